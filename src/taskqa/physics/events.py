"""Events in a CLEVRER trajectory: the simulator's ground truth and a rule-based detector.

Ground truth follows CLEVRER: an object enters or exits when its ``inside_camera_view`` flag
flips, and collisions are the simulator's own contact list. The detector sees only the motion
trajectory and follows the CLEVRER-Humans supplementary (B.1): a pair is close while every
coordinate of their displacement is under 0.5 m; a run of close frames longer than 20 frames
with no sudden velocity change is "moving together"; a shorter or livelier run is a collision
when both objects change their velocity across it, a bounce when they then move apart in
opposite directions (negative dot product of velocities) and a push otherwise. Single-object
events come from the speed, heading and vertical spin of each object frame by frame.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from taskqa.model.physics import EventKind, ObjectMotion
from taskqa.physics.camera import scene_camera
from taskqa.physics.clevrer_format import ClevrerAnnotation

Vector = tuple[float, float, float]


@dataclass(frozen=True, order=True)
class Event:
    """An event at a frame; ``objects`` lists the acting object first, ``detail`` refines it.

    ``detail`` is a side for enter and exit ("left", "top", ...), a direction for turns,
    "bounce" or "push" for collisions and empty otherwise.
    """

    frame: int
    kind: EventKind
    objects: tuple[int, ...]
    detail: str = ""

    def same_happening(self, other: Event, tolerance: int | None) -> bool:
        """The same kind of event between the same objects, optionally near the same frame."""
        if self.kind != other.kind or set(self.objects) != set(other.objects):
            return False
        return tolerance is None or abs(self.frame - other.frame) <= tolerance


@dataclass(frozen=True)
class DetectorConfig:
    close_distance: float = 0.5  # metres, on every axis (L-infinity norm)
    together_frames: int = 20  # a longer close run without jolts is "moving together"
    rapid_change: float = 0.35  # m/s between two frames counts as a jolt
    velocity_change: float = 0.15  # m/s between before and after a close run: motion changed
    after_frames: int = 6  # the "after" velocity is read at most this many frames into a run
    moving_speed: float = 0.1  # CLEVRER's threshold for "moving"
    speed_step: float = 0.3  # m/s within one frame for speeding up or slowing down
    turn_degrees: float = 20.0
    turn_min_speed: float = 0.3  # headings of slower objects are too noisy to call turns
    spin_rate: float = 1.0  # rad/s about the vertical axis
    refractory_frames: int = 5  # one object's events of one kind are at least this far apart


# --- ground truth ---------------------------------------------------------------------------------


def ground_truth_events(annotation: ClevrerAnnotation) -> list[Event]:
    """Enter and exit from visibility flips, collisions from the annotation's collision list."""
    events: list[Event] = []
    frames = annotation.motion_trajectory
    for object_id in range(len(annotation.object_property)):
        track = [frame.objects[object_id] for frame in frames]
        for t in range(1, len(track)):
            before, now = track[t - 1], track[t]
            if now.inside_camera_view and not before.inside_camera_view:
                events.append(Event(t, EventKind.ENTER, (object_id,), _side(before.location)))
            elif before.inside_camera_view and not now.inside_camera_view:
                events.append(Event(t, EventKind.EXIT, (object_id,), _side(now.location)))
    for collision in annotation.collision:
        a, b = collision.object_ids
        t = collision.frame_id
        pair = _hitter_first(frames[max(t - 1, 0)].objects, a, b)
        after = frames[min(t + 1, len(frames) - 1)].objects
        events.append(Event(t, EventKind.COLLISION, pair, _collision_style(after, *pair)))
    return sorted(events)


def _side(location: Sequence[float]) -> str:
    # the picture edge it crossed, as a viewer of the video names it
    return scene_camera().edge(location)


def _hitter_first(objects: Sequence[ObjectMotion], a: int, b: int) -> tuple[int, int]:
    # The faster object before the contact is the one that "hits"; ties keep id order.
    return (b, a) if _speed(objects[b].velocity) > _speed(objects[a].velocity) else (a, b)


def _collision_style(objects: Sequence[ObjectMotion], a: int, b: int) -> str:
    return "bounce" if _dot(objects[a].velocity, objects[b].velocity) < 0 else "push"


def _speed(v: Sequence[float]) -> float:
    return math.hypot(v[0], v[1])


def _dot(u: Sequence[float], v: Sequence[float]) -> float:
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


def _difference(u: Sequence[float], v: Sequence[float]) -> float:
    return math.sqrt(sum((p - q) ** 2 for p, q in zip(u, v, strict=True)))


# --- the rule-based detector ----------------------------------------------------------------------


def detect_events(
    annotation: ClevrerAnnotation, config: DetectorConfig | None = None
) -> list[Event]:
    """Pairwise and single-object events seen in the trajectory alone."""
    config = config or DetectorConfig()
    events = detect_pair_events(annotation, config)
    for object_id in range(len(annotation.object_property)):
        events.extend(detect_object_events(annotation, object_id, config))
    return sorted(events)


def _present(motion: ObjectMotion) -> bool:
    # Objects waiting outside the view to be thrown in are still and invisible; skip them.
    return motion.inside_camera_view or _speed(motion.velocity) > 0


def detect_pair_events(annotation: ClevrerAnnotation, config: DetectorConfig) -> list[Event]:
    frames = annotation.motion_trajectory
    count = len(annotation.object_property)
    events = []
    for a in range(count):
        for b in range(a + 1, count):
            close = [_close(frame.objects[a], frame.objects[b], config) for frame in frames]
            for start, end in _runs(close):
                event = _classify_run(annotation, a, b, start, end, config)
                if event is not None:
                    events.append(event)
    return events


def _close(first: ObjectMotion, second: ObjectMotion, config: DetectorConfig) -> bool:
    if not (_present(first) and _present(second)):
        return False
    gap = max(abs(p - q) for p, q in zip(first.location, second.location, strict=True))
    return gap < config.close_distance


def _runs(flags: Sequence[bool]) -> Iterable[tuple[int, int]]:
    """Maximal runs of true flags as inclusive (start, end) frame pairs."""
    start = None
    for index, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = index
        elif not flag and start is not None:
            yield start, index - 1
            start = None


def _classify_run(
    annotation: ClevrerAnnotation, a: int, b: int, start: int, end: int, config: DetectorConfig
) -> Event | None:
    frames = annotation.motion_trajectory
    last = len(frames) - 1

    def velocity(object_id: int, t: int) -> Vector:
        return frames[min(max(t, 0), last)].objects[object_id].velocity

    jolts = [
        _difference(velocity(a, t), velocity(a, t - 1))
        + _difference(velocity(b, t), velocity(b, t - 1))
        for t in range(max(start, 1), end + 2)
    ]
    jolt_frames = list(range(max(start, 1), end + 2))
    rapid = any(j > config.rapid_change for j in jolts)
    if end - start + 1 > config.together_frames and not rapid:
        return Event(start, EventKind.MOVE_TOGETHER, (a, b))
    after = min(end + 1, start + config.after_frames)
    changed = [
        _difference(velocity(o, after), velocity(o, start - 1)) > config.velocity_change
        for o in (a, b)
    ]
    if not all(changed):
        return None
    frame = jolt_frames[max(range(len(jolts)), key=lambda i: (jolts[i], -i))] if jolts else start
    pair = _hitter_first(frames[max(frame - 1, 0)].objects, a, b)
    style = "bounce" if _dot(velocity(a, after), velocity(b, after)) < 0 else "push"
    return Event(frame, EventKind.COLLISION, pair, style)


def detect_object_events(
    annotation: ClevrerAnnotation, object_id: int, config: DetectorConfig
) -> list[Event]:
    track = [frame.objects[object_id] for frame in annotation.motion_trajectory]
    found: list[Event] = []
    last_frame: dict[EventKind, int] = {}

    def emit(t: int, kind: EventKind, detail: str = "") -> None:
        previous = last_frame.get(kind)
        if previous is None or t - previous > config.refractory_frames:
            found.append(Event(t, kind, (object_id,), detail))
        last_frame[kind] = t

    for t in range(1, len(track)):
        before, now = track[t - 1], track[t]
        if not (before.inside_camera_view and now.inside_camera_view):
            continue
        for kind, detail in _object_changes(before, now, config):
            emit(t, kind, detail)
    return found


def _object_changes(
    before: ObjectMotion, now: ObjectMotion, config: DetectorConfig
) -> list[tuple[EventKind, str]]:
    changes: list[tuple[EventKind, str]] = []
    speed_before, speed_now = _speed(before.velocity), _speed(now.velocity)
    moving_before = speed_before > config.moving_speed
    moving_now = speed_now > config.moving_speed
    if moving_now and not moving_before:
        changes.append((EventKind.START_MOVING, _direction(now.velocity)))
    elif moving_before and not moving_now:
        changes.append((EventKind.STOP_MOVING, ""))
    elif moving_now and speed_now - speed_before > config.speed_step:
        changes.append((EventKind.SPEED_UP, ""))
    elif moving_now and speed_before - speed_now > config.speed_step:
        changes.append((EventKind.SLOW_DOWN, ""))
    if min(speed_before, speed_now) > config.turn_min_speed:
        turn = _heading_change(before.velocity, now.velocity)
        if turn > config.turn_degrees:
            changes.append((EventKind.TURN, _direction(now.velocity)))
    spinning_before = abs(before.angular_velocity[2]) > config.spin_rate
    if abs(now.angular_velocity[2]) > config.spin_rate and not spinning_before:
        sense = "clockwise" if now.angular_velocity[2] < 0 else "counterclockwise"
        changes.append((EventKind.SPIN, sense))
    return changes


def _heading_change(u: Sequence[float], v: Sequence[float]) -> float:
    difference = math.degrees(math.atan2(v[1], v[0]) - math.atan2(u[1], u[0]))
    return abs((difference + 180.0) % 360.0 - 180.0)


def _direction(v: Sequence[float]) -> str:
    """The screen direction of a velocity: right, left, up or down, whichever dominates."""
    if abs(v[0]) >= abs(v[1]):
        return "right" if v[0] > 0 else "left"
    return "up" if v[1] > 0 else "down"


# --- scoring the detector -------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchCounts:
    true_positives: int
    detected: int
    actual: int

    @property
    def precision(self) -> float:
        return self.true_positives / self.detected if self.detected else 1.0

    @property
    def recall(self) -> float:
        return self.true_positives / self.actual if self.actual else 1.0

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0

    def __add__(self, other: MatchCounts) -> MatchCounts:
        return MatchCounts(
            self.true_positives + other.true_positives,
            self.detected + other.detected,
            self.actual + other.actual,
        )


def match_collisions(
    detected: Sequence[Event], actual: Sequence[Event], tolerance: int = 3
) -> MatchCounts:
    """One-to-one matching of collisions with the same pair within ``tolerance`` frames."""
    predicted = [e for e in detected if e.kind == EventKind.COLLISION]
    truth = [e for e in actual if e.kind == EventKind.COLLISION]
    candidates = sorted(
        (abs(p.frame - t.frame), i, j)
        for i, p in enumerate(predicted)
        for j, t in enumerate(truth)
        if p.same_happening(t, tolerance)
    )
    used_predicted: set[int] = set()
    used_truth: set[int] = set()
    for _, i, j in candidates:
        if i not in used_predicted and j not in used_truth:
            used_predicted.add(i)
            used_truth.add(j)
    return MatchCounts(len(used_predicted), len(predicted), len(truth))
