"""Egocentric videos of EgoTV kitchen episodes, with segment boundaries on frames.

Frame ``i`` shows the moment ``i / fps`` of the episode's timeline (``kitchen_timeline``). The
person's first-person camera stands in front of the receptacle the action touches and looks at
the spot where things rest there; walking (``GotoLocation``) moves the camera smoothly from one
receptacle to the next. A change happens halfway through its action; a door swings (or a drawer
slides) over the whole open or close action. States are drawn larger than life so they read at
224 px: hot is a red-orange tint with steam, cold a pale blue tint with frost, an object that can
be cleaned carries brown dirt until it is, a sliced object lies in pieces, the stove burner
glows while it heats, water runs while the sink cleans. All drawing goes through the shared
render layer (``taskqa.render``); the same episode and options give the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from taskqa.render.easing import lerp, smoothstep
from taskqa.render.engine import RGBA, Camera, Picture, Vec3, open_scene
from taskqa.render.engine import Scene as DrawnScene
from taskqa.render.video import write_mp4
from taskqa.verify.graph import SubTask
from taskqa.verify.kitchen import AFFORDANCES, Episode, Scene
from taskqa.verify.kitchen_timeline import (
    Moment,
    Step,
    boundary_frames,
    load_look,
    segment_times,
    timeline,
)

HIDDEN: Vec3 = (0.0, 0.0, -20.0)  # under the floor: out of every picture
DOOR_OPEN_DEGREES = 115.0
DRAWER_SLIDE = 0.35
PIECES = 3


@dataclass(frozen=True)
class KitchenRenderOptions:
    """How an EgoTV kitchen episode is drawn: frame rate, square frame side, back-end."""

    fps: float = 6.0
    size: int = 224  # square frames; even, as H.264 in yuv420p needs
    backend: str = "tiny"  # gl or tiny, as engine.resolve_backend chose it


@dataclass(frozen=True)
class EpisodeVideo:
    """What was written: frame count, rate and each segment's time and frame span."""

    frames: int
    fps: float
    times: list[tuple[float, float]]
    boundaries: list[tuple[int, int]] = field(default_factory=list)


# --- the look (data) -----------------------------------------------------------------------------


def _rgba(values: Any) -> RGBA:
    r, g, b = (float(v) for v in values)
    return (r, g, b, 1.0)


def _vec(values: Any) -> Vec3:
    x, y, z = (float(v) for v in values)
    return (x, y, z)


# --- geometry ------------------------------------------------------------------------------------


def _add(a: Vec3, b: Vec3, scale: float = 1.0) -> Vec3:
    return (a[0] + scale * b[0], a[1] + scale * b[1], a[2] + scale * b[2])


def _unit(v: Vec3) -> Vec3:
    length = math.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2) or 1.0
    return (v[0] / length, v[1] / length, v[2] / length)


@dataclass(frozen=True)
class Place:
    name: str
    position: Vec3  # footprint centre on the floor
    yaw: float  # local +x faces the middle of the kitchen
    spec: dict[str, Any]

    def world(self, local: Vec3) -> Vec3:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        x, y, z = local
        return (self.position[0] + c * x - s * y, self.position[1] + s * x + c * y, z)

    @property
    def base(self) -> float:
        return float(self.spec.get("base", 0.0))

    @property
    def size(self) -> tuple[float, float, float]:
        depth, width, height = (float(v) for v in self.spec["size"])
        return depth, width, height

    def spot(self, slot: float, openness: float) -> Vec3:
        """Where a thing rests; ``slot`` shifts it sideways (metres) so things do not overlap."""
        depth, width, height = self.size
        if "inside" in self.spec:
            slide = DRAWER_SLIDE * openness if self.spec.get("door") == "drawer" else 0.0
            local = (depth / 2 - 0.12 + slide, slot * width / 1.2, self.base + self.spec["inside"])
        elif "basin" in self.spec:
            local = (0.0, slot * width / 1.2, self.base + height - 0.08)
        else:
            local = (0.0, slot * width / 1.2, self.base + height)
        return self.world(local)

    def stand(self, eye_height: float, stand_off: float) -> Vec3:
        depth = self.size[0]
        x, y, _ = self.world((depth / 2 + stand_off, 0.0, 0.0))
        return (x, y, eye_height)


def layout(scene: Scene) -> dict[str, Place]:
    """Receptacles on a circle around the middle, in the scene's order, facing inwards."""
    look = load_look()
    radius = float(look["kitchen_radius"])
    count = len(scene.receptacles)
    places = {}
    for index, name in enumerate(scene.receptacles):
        angle = 2 * math.pi * index / count
        position = (radius * math.cos(angle), radius * math.sin(angle), 0.0)
        places[name] = Place(name, position, angle + math.pi, look["receptacles"][name])
    return places


# --- the scene -----------------------------------------------------------------------------------


class KitchenVideo:
    """The bodies of one episode's kitchen; ``frames`` draws the episode moment by moment."""

    def __init__(self, episode: Episode, options: KitchenRenderOptions) -> None:
        self.episode = episode
        self.options = options
        self.look = load_look()
        self.scene_spec = Scene.generate(episode.scene)
        self.places = layout(self.scene_spec)
        self.steps = timeline(episode)
        self.scene = open_scene(_rgba(self.look["background"]), options.backend)
        self.scene.add_box((8.0, 8.0, 0.01), _rgba(self.look["floor"]), (0.0, 0.0, -0.01))
        self._add_room()
        self.doors: dict[str, int] = {}
        self.handles: dict[str, int] = {}
        self.glow: dict[str, int] = {}
        self.drawer_floor: dict[str, int] = {}
        for place in self.places.values():
            self._add_place(place)
        self.water = self.scene.add_cylinder(
            0.012, 0.3, _rgba(self.look["states"]["water"]), HIDDEN
        )
        self.target = _ObjectBodies(self.scene, episode.obj, self.look)
        knife = self.look["objects"]["knife"]
        self.knife = self.scene.add_box(tuple(knife["size"]), _rgba(knife["color"]), HIDDEN)
        hand = _rgba(self.look["hand"])
        # a hand per side (right holds the target, left the knife): palm and forearm
        self.hands = {
            side: (
                self.scene.add_box((0.045, 0.04, 0.018), hand, HIDDEN),
                self.scene.add_box((0.11, 0.03, 0.025), hand, HIDDEN),
            )
            for side in (1.0, -1.0)
        }
        self._add_distractors()

    def __enter__(self) -> KitchenVideo:
        return self

    def __exit__(self, *_: object) -> None:
        self.scene.close()

    def _add_place(self, place: Place) -> None:
        spec = place.spec
        depth, width, height = place.size
        if place.base > 0:
            base_color = _rgba(spec.get("base_color", spec["color"]))
            centre = place.world((0.0, 0.0, place.base / 2))
            self.scene.add_box(
                (depth / 2, width / 2, place.base / 2), base_color, centre, place.yaw
            )
        centre = place.world((0.0, 0.0, place.base + height / 2))
        if spec.get("solid", True) is False:
            pass  # drawn from its parts alone
        elif place.name == "garbagecan":
            self.scene.add_cylinder(width / 2, height, _rgba(spec["color"]), centre)
        elif "door" in spec:
            self._add_shell(place)
        else:
            self.scene.add_box(
                (depth / 2, width / 2, height / 2), _rgba(spec["color"]), centre, place.yaw
            )
        top = place.base + height
        if "basin" in spec:
            where = place.world((0.0, 0.0, top - 0.04))
            self.scene.add_box(
                (depth * 0.35, width * 0.35, 0.05), _rgba(spec["basin"]), where, place.yaw
            )
        if "burner" in spec:
            where = place.world((0.0, 0.0, top + 0.005))
            self.glow[place.name] = self.scene.add_cylinder(
                0.14, 0.012, _rgba(spec["burner"]), where
            )
        if "door" in spec:
            door = self.scene.add_box(
                (0.015, width / 2, height / 2 * 0.96), _rgba(spec["door_color"]), HIDDEN
            )
            self.doors[place.name] = door
            if "handle" in spec:  # a bar on the door's free edge (a drawer's middle)
                long = spec["door"] == "hinged" and height > 0.5
                half = (0.015, 0.012, min(0.3, height * 0.3)) if long else (0.015, 0.08, 0.012)
                self.handles[place.name] = self.scene.add_box(half, _rgba(spec["handle"]), HIDDEN)
        for part in self.look["parts"].get(place.name, ()):
            self._add_part(part, place.world(_vec(part["at"])), place.yaw)

    def _add_part(self, part: dict[str, Any], where: Vec3, yaw: float) -> int:
        """One fixed part of the look: a ``box`` (half extents) or upright ``cylinder``."""
        color = _rgba(part["color"])
        if "cylinder" in part:
            radius, height = (float(v) for v in part["cylinder"])
            return self.scene.add_cylinder(radius, height, color, where, yaw)
        return self.scene.add_box(_vec(part["box"]), color, where, yaw)

    def _add_room(self) -> None:
        """Walls on a ring behind the receptacles, with a band of tiles above the counters."""
        room = self.look["room"]
        radius, panels, height = float(room["radius"]), int(room["panels"]), float(room["height"])
        half_width = radius * math.tan(math.pi / panels) + 0.02  # panels overlap at the corners
        low, high = float(room["tiles_from"]), float(room["tiles_to"])
        bands = ((0.0, low, room["wall"]), (low, high, room["tiles"]), (high, height, room["wall"]))
        for index in range(panels):
            angle = 2 * math.pi * (index + 0.5) / panels
            x, y = radius * math.cos(angle), radius * math.sin(angle)
            for bottom, top, color in bands:
                self.scene.add_box(
                    (0.03, half_width, (top - bottom) / 2),
                    _rgba(color),
                    (x, y, (top + bottom) / 2),
                    angle,
                )

    def _add_shell(self, place: Place) -> None:
        """A receptacle with a door is hollow (five walls and a shelf), so what is inside
        shows when it opens; the inside is lighter than the outside."""
        depth, width, height = place.size
        outer = _rgba(place.spec["color"])
        inner = _rgba(min(1.0, 0.5 * c + 0.5) for c in outer[:3])
        wall = 0.02
        base, middle = place.base, place.base + height / 2
        walls: list[tuple[Vec3, Vec3, RGBA]] = [
            ((-depth / 2 + wall / 2, 0.0, middle), (wall / 2, width / 2, height / 2), inner),
            ((0.0, -width / 2 + wall / 2, middle), (depth / 2, wall / 2, height / 2), outer),
            ((0.0, width / 2 - wall / 2, middle), (depth / 2, wall / 2, height / 2), outer),
            ((0.0, 0.0, base + height - wall / 2), (depth / 2, width / 2, wall / 2), outer),
            ((0.0, 0.0, base + wall / 2), (depth / 2, width / 2, wall / 2), outer),
        ]
        shelf = base + float(place.spec["inside"]) - wall / 2
        if place.spec["door"] != "drawer" and shelf > base + wall:
            walls.append(((0.0, 0.0, shelf), (depth / 2 - wall, width / 2 - wall, wall / 2), inner))
        for local, half, color in walls:
            self.scene.add_box(half, color, place.world(local), place.yaw)
        if place.spec["door"] == "drawer":  # the drawer's own floor slides with its front
            self.drawer_floor[place.name] = self.scene.add_box(
                (depth / 2 - wall, width / 2 - wall, wall / 2), inner, HIDDEN
            )

    def _add_distractors(self) -> None:
        shapes = self.look["distractors"]
        for name, contents in self.scene_spec.contents.items():
            place = self.places[name]
            for slot, thing in enumerate(contents):
                openness = 1.0 if "door" not in place.spec else 0.0
                where = place.spot(-0.35 - 0.22 * slot, openness)
                for part in shapes[thing]:
                    self._add_part(part, _add(where, _vec(part["at"])), place.yaw)

    # --- drawing ---------------------------------------------------------------------------------

    def frame_count(self) -> int:
        end = self.steps[-1].end if self.steps else 0.0
        return max(1, round(end * self.options.fps))

    def pictures(self) -> Iterator[Picture]:
        """Frame ``i`` shows the moment ``i / fps``, with its instance mask (always asked
        for: nearly free, and it keeps the backdrop the kitchen's own colour)."""
        size = self.options.size
        for index in range(self.frame_count()):
            time = index / self.options.fps
            camera = self._pose(time, size)
            yield self.scene.capture(camera, masks=True)

    def frames(self) -> Iterator[npt.NDArray[np.uint8]]:
        for picture in self.pictures():
            yield picture.rgb

    def _step_at(self, time: float) -> tuple[Step, float]:
        for step in self.steps:
            if time < step.end:
                return step, (time - step.start) / (step.end - step.start)
        last = self.steps[-1]
        return last, 1.0

    def _pose(self, time: float, size: int) -> Camera:
        step, progress = self._step_at(time)
        verb, *args = step.action.split(" ")
        moment = step.after if progress >= 0.5 else step.before
        self._place_doors(step, verb, args, progress)
        eye, target = self._gaze(step, verb, progress)
        camera = Camera(eye=eye, target=target, fov=70.0, width=size, height=size, near=0.05)
        self._place_things(moment, camera, step, verb, args, progress)
        return camera

    def _gaze(self, step: Step, verb: str, progress: float) -> tuple[Vec3, Vec3]:
        eye_height = float(self.look["eye_height"])
        stand_off = float(self.look["stand_off"])

        def view(name: str) -> tuple[Vec3, Vec3]:
            place = self.places[name]
            openness = 1.0 if name in step.after.opened or name in step.before.opened else 0.0
            return place.stand(eye_height, stand_off), place.spot(0.0, openness)

        if verb == "GotoLocation":
            start_eye, start_target = view(step.before.agent_at)
            end_eye, end_target = view(step.after.agent_at)
            t = smoothstep(progress)
            return lerp(start_eye, end_eye, t), lerp(start_target, end_target, t)
        return view(step.after.agent_at)

    def _openness(
        self, name: str, step: Step, verb: str, args: list[str], progress: float
    ) -> float:
        if verb == "OpenObject" and args[0] == name:
            return smoothstep(progress)
        if verb == "CloseObject" and args[0] == name:
            return 1.0 - smoothstep(progress)
        return 1.0 if name in step.before.opened else 0.0

    def _place_doors(self, step: Step, verb: str, args: list[str], progress: float) -> None:
        for name, door in self.doors.items():
            place = self.places[name]
            depth, width, height = place.size
            openness = self._openness(name, step, verb, args, progress)
            z = place.base + height / 2
            if place.spec["door"] == "drawer":
                slide = DRAWER_SLIDE * openness
                local = (depth / 2 + 0.015 + slide, 0.0, z)
                self.scene.move(door, place.world(local), place.yaw)
                floor = (slide, 0.0, place.base + float(place.spec["inside"]) - 0.01)
                self.scene.move(self.drawer_floor[name], place.world(floor), place.yaw)
                if name in self.handles:
                    grip = (depth / 2 + 0.045 + slide, 0.0, z + height * 0.25)
                    self.scene.move(self.handles[name], place.world(grip), place.yaw)
                continue
            angle = -math.radians(DOOR_OPEN_DEGREES) * openness  # hinge on the left edge
            hinge = (depth / 2 + 0.015, -width / 2)
            local = (
                hinge[0] - math.sin(angle) * width / 2,
                hinge[1] + math.cos(angle) * width / 2,
                z,
            )
            self.scene.move(door, place.world(local), place.yaw + angle)
            if name in self.handles:  # near the free edge, on the door's outer face
                reach = width * 0.85
                grip = (
                    hinge[0] - math.sin(angle) * reach + math.cos(angle) * 0.03,
                    hinge[1] + math.cos(angle) * reach + math.sin(angle) * 0.03,
                    z,
                )
                self.scene.move(self.handles[name], place.world(grip), place.yaw + angle)

    def _place_things(
        self, moment: Moment, camera: Camera, step: Step, verb: str, args: list[str],
        progress: float,
    ) -> None:  # fmt: skip
        forward = _unit((camera.target[0] - camera.eye[0], camera.target[1] - camera.eye[1],
                         camera.target[2] - camera.eye[2]))  # fmt: skip
        right = _unit((forward[1], -forward[0], 0.0))
        up = (0.0, 0.0, 1.0)

        def held(side: float) -> Vec3:
            return _add(_add(_add(camera.eye, forward, 0.6), right, 0.2 * side), up, -0.22)

        def resting(name: str, slot: float) -> Vec3:
            place = self.places[name]
            return place.spot(slot, self._openness(name, step, verb, args, progress))

        busy = 0.15 < progress < 0.9
        target_spot = held(1.0) if moment.target_at == "agent" else resting(moment.target_at, 0.0)
        if busy and verb in ("HeatObject", "CoolObject", "CleanObject"):
            target_spot = resting(args[-1], 0.0)  # held into the appliance while it works
        self.target.show(target_spot, moment.states)
        knife_spot = held(-1.0) if moment.knife_at == "agent" else resting(moment.knife_at, 0.35)
        yaw = math.atan2(right[1], right[0])
        self.scene.move(self.knife, _add(knife_spot, (0.0, 0.0, 0.01)), yaw)
        holding = {1.0: target_spot == held(1.0), -1.0: moment.knife_at == "agent"}
        heading = math.atan2(forward[1], forward[0])
        for side, (palm, arm) in self.hands.items():
            if not holding[side]:
                self.scene.move(palm, HIDDEN)
                self.scene.move(arm, HIDDEN)
                continue
            under = _add(held(side), up, -0.02)
            self.scene.move(palm, under, heading)
            self.scene.move(arm, _add(_add(under, forward, -0.14), up, -0.03), heading)
        for name, burner in self.glow.items():
            hot = busy and verb == "HeatObject" and args[-1] == name
            color = self.places[name].spec["glow" if hot else "burner"]
            self.scene.recolor(burner, _rgba(color))
        if busy and verb == "CleanObject":
            sink = self.places[args[-1]]
            self.scene.move(self.water, _add(sink.spot(0.0, 1.0), (0.0, 0.0, 0.3)))
        else:
            self.scene.move(self.water, HIDDEN)


class _ObjectBodies:
    """The target object: whole, or in pieces; tinted hot or cold; dirt, steam and frost."""

    def __init__(self, scene: DrawnScene, name: str, look: dict[str, Any]) -> None:
        self.scene = scene
        spec = look["objects"][name]
        self.states_look = look["states"]
        self.color = _rgba(spec["color"])
        self.cleanable = SubTask.CLEAN in AFFORDANCES.get(name, frozenset())
        shape, size = spec["shape"], spec["size"]
        if shape == "sphere":
            self.radius = float(size)
            self.height = self.radius
            self.whole = scene.add_sphere(self.radius, self.color, HIDDEN)
        elif shape == "box":
            half = tuple(float(v) for v in size)
            self.radius, self.height = max(half), half[2]
            self.whole = scene.add_box((half[0], half[1], half[2]), self.color, HIDDEN)
        else:
            radius, height = (float(v) for v in size)
            self.radius, self.height = radius, height / 2
            self.whole = scene.add_cylinder(radius, height, self.color, HIDDEN)
        piece = (self.radius / 4, self.radius, self.height * 0.8)
        self.pieces = [scene.add_box(piece, self.color, HIDDEN) for _ in range(PIECES)]
        spot = max(0.012, self.radius * 0.3)
        dirt = _rgba(self.states_look["dirt"])
        self.dirt = [scene.add_sphere(spot, dirt, HIDDEN) for _ in range(2)]
        steam = _rgba(self.states_look["steam"])
        self.steam = [scene.add_sphere(0.02 + 0.006 * i, steam, HIDDEN) for i in range(3)]
        frost = _rgba(self.states_look["frost"])
        self.frost = [scene.add_box((0.012, 0.012, 0.012), frost, HIDDEN) for _ in range(3)]
        self._tint: RGBA | None = None

    def _tinted(self, states: frozenset[str]) -> RGBA:
        weight = float(self.states_look["tint_weight"])
        tint = None
        if "hot" in states:
            tint = self.states_look["hot_tint"]
        elif "cold" in states:
            tint = self.states_look["cold_tint"]
        if tint is None:
            return self.color
        r, g, b = (
            c * (1 - weight) + float(t) * weight for c, t in zip(self.color[:3], tint, strict=False)
        )
        return (r, g, b, 1.0)

    def show(self, spot: Vec3, states: frozenset[str]) -> None:
        centre = _add(spot, (0.0, 0.0, self.height))
        color = self._tinted(states)
        if color != self._tint:
            for body in (self.whole, *self.pieces):
                self.scene.recolor(body, color)
            self._tint = color
        sliced = "sliced" in states
        self.scene.move(self.whole, HIDDEN if sliced else centre)
        gap = self.radius * 0.75
        for index, body in enumerate(self.pieces):
            offset = (index - (PIECES - 1) / 2) * gap
            self.scene.move(body, _add(centre, (offset, 0.0, 0.0)) if sliced else HIDDEN)
        dirty = self.cleanable and "clean" not in states
        for index, body in enumerate(self.dirt):
            where = _add(centre, (0.5 * self.radius * (1 - 2 * index), 0.0, self.height * 0.9))
            self.scene.move(body, where if dirty else HIDDEN)
        top = self.height + self.radius * 0.2
        for index, body in enumerate(self.steam):
            where = _add(centre, (0.02 * (index - 1), 0.0, top + 0.06 * (index + 1)))
            self.scene.move(body, where if "hot" in states else HIDDEN)
        for index, body in enumerate(self.frost):
            angle = 2 * math.pi * index / len(self.frost)
            where = _add(
                centre,
                (self.radius * 1.1 * math.cos(angle), self.radius * 1.1 * math.sin(angle), 0.0),
            )
            self.scene.move(body, where if "cold" in states else HIDDEN)


def render_episode(episode: Episode, path: Path, options: KitchenRenderOptions) -> EpisodeVideo:
    """Write the episode's egocentric MP4; return its frame count and segment frame spans."""
    with KitchenVideo(episode, options) as video:
        # All frames are drawn before encoding starts: libx264 fed between pybullet draws gave
        # bytes that depended on the process's history, though the frames were the same.
        frames = list(video.frames())
    count = write_mp4(path, frames, options.fps)
    times = segment_times(episode)
    return EpisodeVideo(count, options.fps, times, boundary_frames(times, options.fps))
