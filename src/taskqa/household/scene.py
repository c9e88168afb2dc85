"""A household room as a render scene: the room, its things in their states, and the people.

The scene is built once per recording (every primitive any thing may need) and then, for each
frame, things are moved, hidden and recoloured to match the recording's state at that moment
(:mod:`taskqa.household.timeline`). What a view shows differs only for carried things: in a
person's own first-person view they sit on the hand at the bottom right; in every other view
they are in the figure's hand.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from taskqa.household.look_spec import LookSpec, RoomLayout
from taskqa.household.motion import SWINGS, hand_motion, opening_share
from taskqa.household.thing_look import ThingLook, generic_model, unit_hash
from taskqa.household.timeline import HELD_BY, Placement, Timeline
from taskqa.model import ActionSegment, Attribute
from taskqa.render.easing import ease, lerp
from taskqa.render.engine import RGBA, Camera, Vec3, open_scene
from taskqa.simulation.domain import Domain

FAR: Vec3 = (0.0, 0.0, -60.0)  # a hidden primitive's nominal place (it is also transparent)
CLEAR: RGBA = (0.0, 0.0, 0.0, 0.0)
AGENT_COLORS: tuple[RGBA, ...] = (
    (0.16, 0.62, 0.56, 1.0),
    (0.9, 0.44, 0.3, 1.0),
    (0.55, 0.35, 0.75, 1.0),
)
SKIN: RGBA = (0.88, 0.66, 0.53, 1.0)
HAIR: RGBA = (0.22, 0.15, 0.1, 1.0)
EYES: RGBA = (0.08, 0.08, 0.1, 1.0)
NOSE: RGBA = (0.8, 0.55, 0.44, 1.0)
EYE_TO_TARGET = 0.78  # metres from the first-person eye to what it looks at
FIRST_PERSON_FOV = 62.0
TO_MOUTH = frozenset({"drink", "eat"})
REACH = 0.42  # metres the hand goes out towards the thing an action works on
MAX_ACTION_SECONDS = 120.0  # no action runs longer: how far back to look for one under way


@dataclass(frozen=True)
class Pose:
    position: Vec3
    yaw: float = 0.0

    def apply(self, local: Vec3) -> Vec3:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        x, y, z = local
        px, py, pz = self.position
        return (px + x * c - y * s, py + x * s + y * c, pz + z)


@dataclass(frozen=True)
class View:
    """A camera and, for a first-person view, whose eyes it is."""

    camera: Camera
    agent: str | None = None


@dataclass(frozen=True)
class Frame:
    rgb: npt.NDArray[np.uint8]
    labels: npt.NDArray[np.uint16]  # 0 = room (walls, floor), k = self.labels[k]
    depth: npt.NDArray[np.float32] | None = None  # metres from the camera plane (with masks)


class HouseholdScene:
    """One room of a recording, drawable at any moment from any view."""

    def __init__(
        self,
        timeline: Timeline,
        domain: Domain,
        look: LookSpec,
        room: str,
        width: int = 224,
        height: int = 224,
        backend: str = "tiny",
        appearance: str = "textured",
        appearance_set: str = "seen",
    ) -> None:
        self.timeline = timeline
        self.domain = domain
        # the held-out set swaps neutral colours here and surface patterns in the GL back-end
        look = look.appearance_set(appearance_set)
        self.look = look
        self.room = room
        self.layout = self._layout(room)
        self.width, self.height = width, height
        self.render = open_scene(
            (*look.rgba(self.layout.walls)[:3], 1.0), backend, appearance, appearance_set
        )
        self.things = [n for n in timeline.things if n not in timeline.agents]
        self.labels: list[str] = ["<room>", *self.things, *timeline.agents]
        self._label_of_body: dict[int, int] = {}
        self._looks: dict[str, ThingLook] = {}
        self._bodies: dict[str, list[int]] = {}
        self._applied: dict[int, tuple[Vec3, Vec3, RGBA]] = {}
        self._shown: dict[int, bool] = {}
        self._base: dict[int, RGBA] = {}
        self._spot_index = self._assign_spots()
        self._figures: dict[str, list[tuple[int, Vec3, RGBA]]] = {}
        self._hands: dict[str, int] = {}
        for index, agent in enumerate(timeline.agents):
            self._build_agent(agent, index)
        for name in self.things:
            self._build_thing(name)
        # The renderer draws bodies in the order they were made and skips the shading of a
        # pixel already covered by something nearer: people and things first, the room's
        # floor and walls (behind everything) last saves about a third of a close-up frame.
        self._build_room()
        self._lut = self._lookup_table()
        self._states: dict[str, dict[Attribute, str]] = {}
        self._time = 0.0
        self._gaze: dict[str, tuple[Vec3, Vec3]] = {}
        self._stand: dict[str, tuple[Vec3, float]] = {}
        self._hand_visible: dict[str, bool] = {}
        self._acting: dict[str, tuple[str, float, float]] = {}  # agent -> verb, start, end
        self._acting_on: dict[str, frozenset[str]] = {}  # agent -> the action's objects
        self._opening: dict[str, float] = {}  # thing -> how far open while it swings
        # the openings and closings of each thing, by start: doors and lids swing over them
        self._door_moves: dict[str, list[ActionSegment]] = {}
        for action in sorted(timeline.recording.actions, key=lambda a: (a.start, a.id)):
            if action.verb in SWINGS:
                for name in action.slots.patient:
                    self._door_moves.setdefault(name, []).append(action)
        self._actions = {
            agent: sorted(
                (a for a in timeline.recording.actions if a.agent == agent),
                key=lambda a: (a.start, a.id),
            )
            for agent in timeline.agents
        }

    def close(self) -> None:
        self.render.close()

    def __enter__(self) -> HouseholdScene:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- building ------------------------------------------------------------------------------
    def _layout(self, room: str) -> RoomLayout:
        if room in self.look.rooms:
            return self.look.rooms[room]
        # A room the look file does not describe: an empty box with zones around its middle.
        zones = list(self.domain.spec.rooms[room].zones) if room in self.domain.spec.rooms else []
        return RoomLayout.model_validate(
            {
                "size": [6.0, 5.0, 2.7],
                "floor": "#a08060",
                "walls": "#e0e0dc",
                "third_person": {"eye": [2.6, -2.2, 2.45], "target": [-0.5, 0.8, 0.6], "fov": 70},
                "zones": {
                    zone: {
                        "stand": [math.cos(k * 1.3) * 1.2, math.sin(k * 1.3) * 1.0],
                        "look": [math.cos(k * 1.3) * 2.2, math.sin(k * 1.3) * 1.9, 0.8],
                    }
                    for k, zone in enumerate(zones)
                },
            }
        )

    def _build_room(self) -> None:
        w, d, h = self.layout.size
        floor = self.look.rgba(self.layout.floor)
        walls = self.look.rgba(self.layout.walls)
        shade = (walls[0] * 0.9, walls[1] * 0.9, walls[2] * 0.92, 1.0)
        add = self.render.add_box
        bodies = [
            add((w / 2, d / 2, 0.05), floor, (0.0, 0.0, -0.05)),
            add((w / 2, 0.05, h / 2), walls, (0.0, d / 2 + 0.05, h / 2)),
            add((w / 2, 0.05, h / 2), shade, (0.0, -d / 2 - 0.05, h / 2)),
            add((0.05, d / 2, h / 2), shade, (-w / 2 - 0.05, 0.0, h / 2)),
            add((0.05, d / 2, h / 2), walls, (w / 2 + 0.05, 0.0, h / 2)),
            add((w / 2, d / 2, 0.05), shade, (0.0, 0.0, h + 0.05)),
        ]
        for body in bodies:
            self._label_of_body[body] = 0

    def _category(self, name: str) -> tuple[str, str | None]:
        spec = self.domain.spec.objects.get(name)
        if spec is None:
            return name, None
        return spec.category or name, spec.color

    def _build_thing(self, name: str) -> None:
        category, colour = self._category(name)
        model = self.look.model(category) or self.look.model(name) or generic_model(category)
        values = self.timeline.values_ever(name)
        look = ThingLook(name, category, model, self.look, values, colour)
        self._looks[name] = look
        label = self.labels.index(name)
        bodies = []
        for primitive in look.primitives:
            body = self._create(primitive.kind, primitive.dims)
            self._label_of_body[body] = label
            bodies.append(body)
        self._bodies[name] = bodies

    def _create(self, kind: str, dims: Sequence[float], colour: RGBA = (0.5, 0.5, 0.5, 1.0)) -> int:
        """A primitive that starts hidden; ``colour`` is what it shows in unless told."""
        if kind == "box":
            body = self.render.add_box((dims[0] / 2, dims[1] / 2, dims[2] / 2), CLEAR, FAR)
        elif kind == "cylinder":
            body = self.render.add_cylinder(dims[0], dims[1], CLEAR, FAR)
        else:
            body = self.render.add_sphere(dims[0], CLEAR, FAR)
        self._base[body] = colour
        return body

    def _build_agent(self, agent: str, index: int) -> None:
        shirt = AGENT_COLORS[index % len(AGENT_COLORS)]
        trousers = (0.2, 0.22, 0.3, 1.0)
        label = self.labels.index(agent)
        parts: list[tuple[str, tuple[float, ...], Vec3, RGBA]] = [
            ("box", (0.34, 0.22, 0.8), (0.0, 0.0, 0.4), trousers),
            ("box", (0.44, 0.26, 0.62), (0.0, 0.0, 1.11), shirt),
            ("sphere", (0.13,), (0.0, 0.0, 1.56), SKIN),
            ("box", (0.22, 0.2, 0.08), (0.0, 0.03, 1.66), HAIR),
            ("box", (0.09, 0.42, 0.09), (-0.22, -0.2, 1.02), shirt),
            ("sphere", (0.05,), (-0.22, -0.42, 1.02), SKIN),
            # a face on the front (-y, where the right arm reaches, -x being the figure's
            # right): which way a person looks reads from the room camera, so whether the
            # other person can see an action does too
            ("sphere", (0.024,), (0.05, -0.115, 1.6), EYES),
            ("sphere", (0.024,), (-0.05, -0.115, 1.6), EYES),
            ("box", (0.03, 0.05, 0.05), (0.0, -0.13, 1.55), NOSE),
        ]
        figure = []
        for kind, dims, offset, colour in parts:
            body = self._create(kind, dims, colour)
            self._label_of_body[body] = label
            figure.append((body, offset, colour))
        self._figures[agent] = figure
        hand = self._create("box", (0.34, 0.09, 0.07), SKIN)
        self._label_of_body[hand] = label
        self._hands[agent] = hand

    def _lookup_table(self) -> npt.NDArray[np.uint16]:
        size = max(self._label_of_body, default=0) + 2
        table = np.zeros(size, dtype=np.uint16)
        for body, label in self._label_of_body.items():
            table[body + 1] = label  # index 0 is pybullet's -1 (nothing)
        return table

    def _assign_spots(self) -> dict[str, int]:
        """A fixed spot per thing in each holder it is ever in, so things never jump around."""
        occupants: dict[str, list[str]] = {}
        for name in self.timeline.things:
            for holder in self.timeline.holders_ever(name):
                occupants.setdefault(holder, []).append(name)
        index: dict[str, int] = {}
        for holder, names in occupants.items():
            for k, name in enumerate(sorted(names)):
                index[f"{holder}/{name}"] = k
        return index

    # --- where things are ----------------------------------------------------------------------
    def fixture_pose(self, name: str) -> Pose:
        placement = self.layout.fixtures.get(name)
        if placement is not None:
            return Pose(placement.at, math.radians(placement.yaw))
        spec = self.domain.spec.objects.get(name)
        zone = self.layout.zones.get(spec.zone or "") if spec is not None else None
        if zone is None:
            zone = next(iter(self.layout.zones.values()), None)
        if zone is None:
            return Pose((0.0, 0.0, 0.0))
        # An unplaced fixture stands beside its zone's focus, shifted by a fixed amount per name.
        shift = (unit_hash(name, 99) - 0.5) * 1.2
        lx, ly, _ = zone.look
        sx, sy = zone.stand
        yaw = math.atan2(sy - ly, sx - lx) + math.pi / 2
        return Pose((lx + shift * math.cos(yaw), ly + shift * math.sin(yaw), 0.0), yaw)

    def rest_pose(self, name: str, place: Placement, view: View | None, depth: int = 0) -> Pose:
        if depth > 8:
            return Pose(FAR)
        if place.holder is None:
            spec = self.domain.spec.objects.get(name)
            if spec is None or spec.fixture or name in self.layout.fixtures:
                return self.fixture_pose(name)
            return Pose(FAR)
        if place.relation == HELD_BY or place.holder in self.timeline.agents:
            # a thing held that the action under way does not use stays at rest in the other
            # hand (the drawer is closed with one hand while the spoon waits in the other)
            working = name in self._acting_on.get(place.holder, frozenset())
            return self.hand_pose(place.holder, view, working)
        holder = self.pose_of(place.holder, view, depth + 1)
        look = self._looks.get(place.holder)
        spot = self._spot(place.holder, name, place.relation or "in", look)
        if look is not None and look.model.slide is not None and self._is_open(place.holder):
            sx, sy, sz = look.model.slide
            out = self._opening.get(place.holder, 1.0)  # what is in a drawer slides with it
            spot = (spot[0] + sx * out, spot[1] + sy * out, spot[2] + sz * out)
        return Pose(holder.apply(spot), holder.yaw)

    def _is_open(self, name: str) -> bool:
        if name in self._opening:
            return self._opening[name] > 0
        return self._states.get(name, {}).get(Attribute.OPENNESS) == "open"

    def _spot(self, holder: str, name: str, relation: str, look: ThingLook | None) -> Vec3:
        spots: list[Vec3] = []
        if look is not None:
            spots = list(look.model.spots.get(relation) or look.model.spots.get("in") or [])
            spots = spots or list(look.model.spots.get("on-top-of") or [])
        top = look.top if look is not None else 0.2
        index = self._spot_index.get(f"{holder}/{name}", 0)
        if not spots:
            return ((index % 3 - 1) * 0.14, (index // 3 % 2) * 0.12 - 0.06, top)
        x, y, z = spots[index % len(spots)]
        layer = index // len(spots)
        return (x + 0.05 * layer, y, z)

    def pose_of(self, name: str, view: View | None, depth: int = 0) -> Pose:
        t = self._time
        move = self.timeline.move_at(name, t)
        place = self.timeline.placement_at(name, t)
        if move is None:
            return self.rest_pose(name, place, view, depth)
        start = self.rest_pose(name, move.source, view, depth)
        end = self.rest_pose(name, move.target, view, depth)
        hand = self.hand_pose(move.agent, view)
        u = ease(move.progress(t))
        if move.source.held:
            a, b, v = hand, end, u
        elif move.target.held:
            a, b, v = start, hand, u
        elif u < 0.5:
            a, b, v = start, hand, u * 2
        else:
            a, b, v = hand, end, u * 2 - 1
        lift = 0.12 * math.sin(math.pi * v)
        position = lerp(a.position, b.position, v)
        return Pose((position[0], position[1], position[2] + lift), a.yaw + (b.yaw - a.yaw) * v)

    def hand_pose(self, agent: str, view: View | None, working: bool = True) -> Pose:
        """Where ``agent``'s hand is: at rest, or doing the action under way (motion.py)."""
        eye, target = self._gaze.get(agent, ((0.0, 0.0, 1.6), (0.0, 1.0, 1.0)))
        forward, right, up = camera_basis(eye, target)
        if view is not None and view.agent == agent:
            rest = _add(eye, forward, 0.56, right, 0.2, up, -0.25)
            yaw = math.atan2(forward[1], forward[0]) + math.pi / 2
        else:
            position, yaw = self._stand.get(agent, ((0.0, 0.0, 0.0), 0.0))
            rest = Pose(position, yaw).apply((-0.22, -0.44, 0.98))  # the right hand
        acting = self._acting.get(agent)
        if acting is None or not working:
            return Pose(rest, yaw)
        out, side, lift = hand_motion(*acting, self._time)
        if acting[0] in TO_MOUTH:  # eating and drinking bring the thing to the head
            target = _add(eye, forward, 0.22, up, -0.12, right, 0.0)
            lift = 0.0
        toward = (target[0] - rest[0], target[1] - rest[1], target[2] + 0.05 - rest[2])
        length = math.sqrt(sum(c * c for c in toward)) or 1.0
        scale = out * min(length * 0.75, REACH) / length  # arm's length, short of the thing
        point = _add(rest, toward, scale, right, side, (0.0, 0.0, 1.0), lift)
        return Pose(point, yaw)

    # --- one moment ----------------------------------------------------------------------------
    def set_time(
        self, t: float, gaze: dict[str, tuple[Vec3, Vec3]], stand: dict[str, tuple[Vec3, float]]
    ) -> None:
        """Bring every thing to its state at ``t``; ``gaze`` and ``stand`` say where people look
        (eye, target) and stand (position, heading)."""
        self._time = t
        self._gaze = gaze
        self._stand = stand
        self._states = {name: self.timeline.attributes_at(name, t) for name in self.things}
        busy = {
            m.agent for name in self.things if (m := self.timeline.move_at(name, t)) is not None
        }
        self._acting = {
            agent: (action.verb, action.start, action.end)
            for agent, actions in self._actions.items()
            if (action := _under_way(actions, t)) is not None
        }
        self._acting_on = {
            agent: frozenset(action.slots.objects())
            for agent, actions in self._actions.items()
            if (action := _under_way(actions, t)) is not None
        }
        self._hand_visible = {
            agent: agent in busy or agent in self._acting or bool(self.timeline.held_by(agent, t))
            for agent in self.timeline.agents
        }
        self._opening = {}
        for name, moves in self._door_moves.items():
            action = _under_way(moves, t)
            if action is not None:
                outcome = action.outcome.value
                fraction = opening_share(action.verb, outcome, action.start, action.end, t)
                if fraction is not None:
                    self._opening[name] = fraction
        self._pieces = {
            name: self._looks[name].pose_parts(self._states[name], t, self._opening.get(name))
            for name in self.things
        }
        self._carried = {name for name in self.things if self._view_dependent(name)}
        for name in self.things:
            if name not in self._carried:
                self._place(name, None)
        # Shadows are the moment's, as a bystander sees it: every body there, what is carried
        # in its carrier's hand. Each view then reuses them, so a person's own body still
        # casts its shadow in their view, and the map is drawn once per moment, not per view.
        for name in sorted(self._carried):
            self._place(name, None)
        for agent in self.timeline.agents:
            self._pose_figure(agent, hidden=False)
            self._apply(self._hands[agent], FAR, (0.0, 0.0, 0.0), None)
        self.render.cast_shadows()

    def _view_dependent(self, name: str) -> bool:
        t = self._time
        if self.timeline.move_at(name, t) is not None:
            return True
        chain = self.timeline.holder_chain(name, t)
        return any(h in self.timeline.agents for h in chain) or any(
            self.timeline.move_at(h, t) is not None for h in chain
        )

    def _place(self, name: str, view: View | None) -> None:
        pose = self.pose_of(name, view)
        for body, (visible, centre, euler, colour) in zip(
            self._bodies[name], self._pieces[name], strict=True
        ):
            if not visible or pose.position == FAR:
                self._apply(body, FAR, (0.0, 0.0, 0.0), None)
                continue
            position = pose.apply(centre)
            self._apply(body, position, (euler[0], euler[1], euler[2] + pose.yaw), colour)

    def _apply(self, body: int, position: Vec3, euler: Vec3, colour: RGBA | None) -> None:
        """Show a body at a pose in a colour (None: the colour it was made with), or hide it
        (``position`` FAR). A hidden body is fully transparent, which the renderer skips: far
        cheaper than drawing it somewhere out of view. Only changes reach pybullet."""
        if position == FAR:
            if self._shown.get(body, False):
                self.render.recolor(body, CLEAR)
                self._shown[body] = False
            return
        wanted = colour if colour is not None else self._base.get(body, (0.5, 0.5, 0.5, 1.0))
        previous = self._applied.get(body)
        if previous is None or previous[0] != position or previous[1] != euler:
            self.render.move_euler(body, position, euler)
        if not self._shown.get(body, False) or previous is None or previous[2] != wanted:
            self.render.recolor(body, wanted)
            self._shown[body] = True
        self._applied[body] = (position, euler, wanted)

    def capture(self, view: View, masks: bool = True) -> Frame:
        for name in sorted(self._carried):
            self._place(name, view)
        for agent in self.timeline.agents:
            self._pose_figure(agent, hidden=view.agent == agent)
            hand = self._hands[agent]
            if view.agent == agent and self._hand_visible.get(agent, False):
                pose = self.hand_pose(agent, view)
                eye, target = self._gaze.get(agent, ((0.0, 0.0, 1.6), (0.0, 1.0, 1.0)))
                forward, _, _ = camera_basis(eye, target)
                centre = _add(
                    pose.position, forward, -0.1, (0.0, 0.0, 1.0), -0.04, (0.0, 0.0, 0.0), 0.0
                )
                pitch = math.asin(max(-1.0, min(1.0, -forward[2])))
                self._apply(
                    hand, centre, (0.0, pitch, math.atan2(forward[1], forward[0]) + 0.35), None
                )
            else:
                self._apply(hand, FAR, (0.0, 0.0, 0.0), None)
        picture = self.render.capture(view.camera, masks=masks)
        labels = self._lut[picture.instances + 1]
        return Frame(rgb=picture.rgb, labels=labels, depth=picture.depth)

    def _pose_figure(self, agent: str, hidden: bool) -> None:
        position, yaw = self._stand.get(agent, (FAR, 0.0))
        pose = Pose(position, yaw)
        for body, offset, _ in self._figures[agent]:
            if hidden:
                self._apply(body, FAR, (0.0, 0.0, 0.0), None)
            else:
                self._apply(body, pose.apply(offset), (0.0, 0.0, yaw), None)

    def locate(self, name: str, t: float) -> Vec3:
        """The middle of a thing at time ``t`` (as no particular view sees it)."""
        saved = self._time, self._states
        self._time = t
        self._states = {
            n: self.timeline.attributes_at(n, t) for n in self.timeline.holder_chain(name, t)
        }
        try:
            pose = self.pose_of(name, None)
        finally:
            self._time, self._states = saved
        look = self._looks.get(name)
        if look is not None and look.model.focus is not None:
            return pose.apply(look.model.focus)
        top = look.top if look is not None else 0.1
        spec = self.domain.spec.objects.get(name)
        if spec is not None and spec.fixture:
            # Small appliances are looked at whole, work surfaces on top, tall things mid-way.
            height = top * 0.6 if top < 0.5 or top >= 1.0 else top
            return pose.apply((0.0, -0.1, height))
        return pose.apply((0.0, 0.0, top / 2))

    def viewing_distance(self, name: str) -> float:
        """How far the eye stays from a thing: ~0.8 m, more for what is big (a fridge)."""
        look = self._looks.get(name)
        if look is None:
            return EYE_TO_TARGET
        return max(EYE_TO_TARGET, 0.85 * max(look.size))

    def states(self) -> dict[str, dict[Attribute, str]]:
        return self._states

    @property
    def body_count(self) -> int:
        """Primitives in the scene (room, things' pieces, people), shown or hidden."""
        return len(self._label_of_body)

    def label(self, name: str) -> int:
        return self.labels.index(name)


def _under_way(actions: Sequence[ActionSegment], t: float) -> ActionSegment | None:
    """The action (of one person, by start) running at ``t``, if any; the later one where two
    touch."""
    index = bisect_right([a.start for a in actions], t) - 1
    while index >= 0:
        if actions[index].start <= t <= actions[index].end:
            return actions[index]
        index -= 1
        if index >= 0 and actions[index].end < t - MAX_ACTION_SECONDS:
            break
    return None


def camera_basis(eye: Vec3, target: Vec3) -> tuple[Vec3, Vec3, Vec3]:
    """Forward, right and up of a camera at ``eye`` looking at ``target`` (z is up)."""
    f = _normal((target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]))
    r = _normal((f[1], -f[0], 0.0)) if abs(f[2]) < 0.999 else (1.0, 0.0, 0.0)
    u = (r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0])
    return f, r, u


def _normal(v: Vec3) -> Vec3:
    n = math.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2) or 1.0
    return (v[0] / n, v[1] / n, v[2] / n)


def _add(base: Vec3, a: Vec3, ka: float, b: Vec3, kb: float, c: Vec3, kc: float) -> Vec3:
    return tuple(base[i] + a[i] * ka + b[i] * kb + c[i] * kc for i in range(3))  # type: ignore[return-value]
