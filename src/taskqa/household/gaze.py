"""Where each person stands and looks, frame by frame: the first-person gaze model.

Each action of a person is a *beat*: they stand in the zone of what the action touches and
look at its main thing (what is got, where it is put, what is opened, poured into, cut ...).
The eye sits at head height about 0.8 m from that point, so small states stay legible at
224 pixels. Between two beats the focus and the standing spot glide smoothly (cosine easing)
during the gap, so the camera turns rather than jumps.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass

from taskqa.household.look_spec import CameraSpec
from taskqa.household.scene import (
    EYE_TO_TARGET,
    FIRST_PERSON_FOV,
    HouseholdScene,
    camera_basis,
)
from taskqa.household.timeline import action_zone
from taskqa.model import ActionSegment
from taskqa.render.easing import ease, lerp, lerp2
from taskqa.render.engine import Camera, Vec3

TURN_SECONDS = 1.2  # longest glide between two beats
MIN_TURN = 0.3
LOW_EYE, HIGH_EYE = 1.15, 1.68
BODY_BEHIND_EYE = 0.15  # metres from the eye back to the middle of the figure
# Two people at one counter: the later one steps aside (round what they look at) until their
# eyes and bodies are this far apart, so no first-person camera stands inside a figure.
CLEARANCE = 0.55
SIDESTEPS = tuple(sign * k * math.radians(15) for k in range(1, 7) for sign in (1, -1))
WALL_MARGIN = 0.25  # a turned eye stays this far inside the room's walls
FIGURE_HEIGHT = 1.8  # the room camera keeps a person's feet and head in the picture ...
FIGURE_REACH = 0.4  # ... and this much room (metres) round them and what they look at


@dataclass(frozen=True)
class Beat:
    start: float
    end: float
    focus: Vec3
    stand: tuple[float, float]
    distance: float = EYE_TO_TARGET


class Director:
    """Eye, target and standing spot of every person at any time of a recording."""

    def __init__(self, scene: HouseholdScene) -> None:
        self.scene = scene
        self.timeline = scene.timeline
        layout = scene.layout
        self._first_zone = next(iter(layout.zones), None)
        self.beats: dict[str, list[Beat]] = {}
        self.stepped_aside = 0  # beats moved round their focus to keep clear of someone
        for agent in self.timeline.agents:
            own = sorted(
                (a for a in self.timeline.recording.actions if a.agent == agent),
                key=lambda a: (a.start, a.id),
            )
            beats = self._beats(own)
            if self.beats:
                beats = self._step_aside(beats, list(self.beats.values()))
            self.beats[agent] = beats

    def _step_aside(self, beats: list[Beat], others: list[list[Beat]]) -> list[Beat]:
        """Move each beat's standing spot round its focus, by the smallest turn that keeps this
        person clear of the people already placed for as long as they hold the beat (until the
        next one starts). Decided per beat, so the camera still glides between beats."""
        placed: list[Beat] = []
        duration = self.timeline.recording.duration
        for index, beat in enumerate(beats):
            since = 0.0 if index == 0 else beat.start
            until = beats[index + 1].start if index + 1 < len(beats) else max(duration, beat.end)
            moments = _moments(since, max(until, beat.end))
            crowd = [
                point for t in moments for other in others for point in _eye_and_body(other, t)
            ]
            if _room_left(beat, crowd) >= CLEARANCE:
                placed.append(beat)
                continue
            # the smallest turn that clears everyone; failing that, the one that keeps furthest
            options = [beat, *(_turned(beat, angle) for angle in SIDESTEPS)]
            options = [o for o in options if o is beat or self._inside_room(o)]
            cleared = [o for o in options if _room_left(o, crowd) >= CLEARANCE]
            best = cleared[0] if cleared else max(options, key=lambda o: _room_left(o, crowd))
            self.stepped_aside += best is not beat
            placed.append(best)
        return placed

    def _inside_room(self, beat: Beat) -> bool:
        width, depth, _ = self.scene.layout.size
        eye = eye_point(beat.focus, beat.stand, beat.distance)
        return abs(eye[0]) <= width / 2 - WALL_MARGIN and abs(eye[1]) <= depth / 2 - WALL_MARGIN

    def _beats(self, actions: list[ActionSegment]) -> list[Beat]:
        beats: list[Beat] = []
        zone = self._first_zone
        for action in actions:
            slots = action.slots
            names = [*slots.destination, *slots.source, *slots.patient, *slots.instrument]
            found = action_zone(self.timeline, names, action.start)
            if found is not None and found in self.scene.layout.zones:
                zone = found
            stand = self.scene.layout.zones[zone].stand if zone is not None else (0.0, 0.0)
            focus, distance = self._focus(action, zone)
            beats.append(Beat(action.start, action.end, focus, stand, distance))
        return beats

    def _focus(self, action: ActionSegment, zone: str | None) -> tuple[Vec3, float]:
        slots = action.slots
        if action.verb in {"put", "throw"} and slots.patient:
            name, t = slots.patient[0], action.end
        elif action.verb == "get" and slots.patient:
            name, t = slots.patient[0], action.start
        elif action.verb == "pour" and slots.destination:
            name, t = slots.destination[0], (action.start + action.end) / 2
        else:
            names = [*slots.patient, *slots.destination, *slots.source, *slots.instrument]
            name, t = (names[0] if names else ""), (action.start + action.end) / 2
        fallback = self.scene.layout.zones[zone].look if zone is not None else (0.0, 1.0, 0.9)
        if name and self.timeline.enclosed(name, t):
            # the main thing is shut away at that moment (the egg still in the fridge when
            # cooking starts): look at the action's first thing that can be seen instead
            names = [*slots.patient, *slots.destination, *slots.source, *slots.instrument]
            seen = [n for n in names if n in self.scene.things and not self.timeline.enclosed(n, t)]
            name = seen[0] if seen else name
        if not name or name not in self.scene.things:
            return fallback, EYE_TO_TARGET
        place = self.timeline.placement_at(name, t)
        if place.held and self.timeline.move_at(name, t) is None:
            return (fallback[0], fallback[1], min(fallback[2], 0.95)), EYE_TO_TARGET
        return self.scene.locate(name, t), self.scene.viewing_distance(name)

    def at(self, t: float) -> tuple[dict[str, tuple[Vec3, Vec3]], dict[str, tuple[Vec3, float]]]:
        """(eye, target) and (standing position, heading) of every person at ``t``."""
        gaze: dict[str, tuple[Vec3, Vec3]] = {}
        stand: dict[str, tuple[Vec3, float]] = {}
        for agent, beats in self.beats.items():
            focus, spot, distance = self._blend(beats, t)
            eye = eye_point(focus, spot, distance)
            gaze[agent] = (eye, focus)
            dx, dy = focus[0] - eye[0], focus[1] - eye[1]
            heading = math.atan2(dy, dx)
            norm = math.hypot(dx, dy) or 1.0
            # The body stands a little behind the eye, facing what it looks at.
            body = (eye[0] - dx / norm * BODY_BEHIND_EYE, eye[1] - dy / norm * BODY_BEHIND_EYE, 0.0)
            # the figure's front is its local -y (scene._build_agent): turned this way it
            # faces what the person looks at, so the room camera shows their face or their back
            stand[agent] = (body, heading + math.pi / 2)
        return gaze, stand

    def _blend(self, beats: list[Beat], t: float) -> tuple[Vec3, tuple[float, float], float]:
        if not beats:
            zone = self.scene.layout.zones.get(self._first_zone or "")
            if zone is None:
                return (0.0, 1.0, 0.9), (0.0, 0.0), EYE_TO_TARGET
            return zone.look, zone.stand, EYE_TO_TARGET
        return blend(beats, t)

    def first_person(self, agent: str, t: float, width: int, height: int) -> Camera:
        eye, target = self.at(t)[0][agent]
        return Camera(eye=eye, target=target, fov=FIRST_PERSON_FOV, width=width, height=height)


def blend(beats: list[Beat], t: float) -> tuple[Vec3, tuple[float, float], float]:
    """Focus, standing spot and viewing distance at ``t`` of a person acting out ``beats``."""
    starts = [b.start for b in beats]
    index = bisect_right(starts, t) - 1
    if index < 0:
        return beats[0].focus, beats[0].stand, beats[0].distance
    current = beats[index]
    if index + 1 < len(beats):
        following = beats[index + 1]
        gap = following.start - current.end
        if gap >= MIN_TURN:
            begin = max(current.end, following.start - TURN_SECONDS)
            finish = following.start
        else:
            begin, finish = following.start - MIN_TURN / 2, following.start + MIN_TURN / 2
        if begin <= t:
            return _between(current, following, (t - begin) / (finish - begin))
    if index > 0 and t < current.start + MIN_TURN / 2:
        previous = beats[index - 1]
        if current.start - previous.end < MIN_TURN:
            return _between(previous, current, (t - current.start + MIN_TURN / 2) / MIN_TURN)
    return current.focus, current.stand, current.distance


def _between(a: Beat, b: Beat, share: float) -> tuple[Vec3, tuple[float, float], float]:
    u = ease(share)
    return (
        lerp(a.focus, b.focus, u),
        lerp2(a.stand, b.stand, u),
        a.distance + (b.distance - a.distance) * u,
    )


def eye_point(focus: Vec3, stand: tuple[float, float], distance: float = EYE_TO_TARGET) -> Vec3:
    fx, fy, fz = focus
    dx, dy = stand[0] - fx, stand[1] - fy
    norm = math.hypot(dx, dy)
    if norm < 1e-6:
        dx, dy, norm = 0.0, -1.0, 1.0
    height = min(HIGH_EYE, max(LOW_EYE, fz + 0.5))
    reach = math.sqrt(max(distance**2 - (height - fz) ** 2, 0.3**2))
    reach = min(reach, max(norm, 0.3, distance * 0.8))
    return (fx + dx / norm * reach, fy + dy / norm * reach, height)


def _moments(start: float, end: float, step: float = 0.5) -> list[float]:
    count = max(1, int((end - start) / step))
    return [start + (end - start) * k / count for k in range(count + 1)]


def _eye_and_body(beats: list[Beat], t: float) -> tuple[tuple[float, float], tuple[float, float]]:
    if not beats:
        return (math.inf, math.inf), (math.inf, math.inf)
    focus, spot, distance = blend(beats, t)
    eye = eye_point(focus, spot, distance)
    dx, dy = focus[0] - eye[0], focus[1] - eye[1]
    norm = math.hypot(dx, dy) or 1.0
    body = (eye[0] - dx / norm * BODY_BEHIND_EYE, eye[1] - dy / norm * BODY_BEHIND_EYE)
    return (eye[0], eye[1]), body


def _room_left(beat: Beat, crowd: list[tuple[float, float]]) -> float:
    """How close the beat's eye comes to anyone in ``crowd`` (eyes and bodies, from above)."""
    eye = eye_point(beat.focus, beat.stand, beat.distance)
    return min((math.hypot(eye[0] - x, eye[1] - y) for x, y in crowd), default=math.inf)


def _turned(beat: Beat, angle: float) -> Beat:
    """The beat with its standing spot turned by ``angle`` round the focus (seen from above)."""
    fx, fy = beat.focus[0], beat.focus[1]
    dx, dy = beat.stand[0] - fx, beat.stand[1] - fy
    c, s = math.cos(angle), math.sin(angle)
    stand = (fx + dx * c - dy * s, fy + dx * s + dy * c)
    return Beat(beat.start, beat.end, beat.focus, stand, beat.distance)


def room_camera(
    spec: CameraSpec,
    gaze: dict[str, tuple[Vec3, Vec3]],
    stand: dict[str, tuple[Vec3, float]],
    width: int,
    height: int,
) -> Camera:
    """The room camera at one moment. With ``spec.min_fov`` it frames the people: from its
    fixed eye it looks at the middle of every person (feet to head) and what they look at, and
    zooms in as far as keeps them all in the picture. People and their gaze move smoothly, so
    the camera pans and zooms smoothly; at 224 px a person's hands and what they hold are then
    several times larger than in the whole-room view."""
    fixed = Camera(spec.eye, spec.target, fov=spec.fov, width=width, height=height)
    if spec.min_fov is None or not stand:
        return fixed
    points: list[Vec3] = []
    for agent, (body, _) in sorted(stand.items()):
        points += [(body[0], body[1], 0.0), (body[0], body[1], FIGURE_HEIGHT)]
        if agent in gaze:
            points.append(gaze[agent][1])
    low = [min(p[axis] for p in points) for axis in range(3)]
    high = [max(p[axis] for p in points) for axis in range(3)]
    target = ((low[0] + high[0]) / 2, (low[1] + high[1]) / 2, (low[2] + high[2]) / 2)
    forward, right, up = camera_basis(spec.eye, target)
    aspect = width / height
    half = 0.0  # the vertical half-angle that keeps every point (and its reach) in the picture
    for point in points:
        offset = tuple(p - e for p, e in zip(point, spec.eye, strict=True))
        depth = max(0.1, sum(o * f for o, f in zip(offset, forward, strict=True)))
        across = abs(sum(o * r for o, r in zip(offset, right, strict=True))) + FIGURE_REACH
        rise = abs(sum(o * u for o, u in zip(offset, up, strict=True))) + FIGURE_REACH
        half = max(half, math.atan2(rise, depth), math.atan(across / depth / aspect))
    fov = min(spec.fov, max(spec.min_fov, math.degrees(2 * half)))
    return Camera(spec.eye, target, fov=fov, width=width, height=height)
