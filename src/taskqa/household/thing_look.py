"""How one thing looks in a given state: its model's parts plus the state's visible marks.

A :class:`ThingLook` knows every primitive the thing may ever need (its parts, cut halves,
dice, content, dirt spots, steam, a wrapper ...) so that a scene can create them all once and
afterwards only move, hide and recolour them. ``pose_parts`` says, for a state and a moment,
where each primitive sits in the thing's own frame and in what colour, or that it is hidden.

Every visible attribute has a mark, exaggerated so it reads at 224 pixels from ~0.75 m:
openness (doors, lids, drawers, the laptop's lid and the book's pages), emptiness (content in
the container, a dark hollow when empty), cleanliness (dirt spots and a darker tint), shape
(whole, two cut halves, dice, a puddle), poweredness (glowing parts, a light pool, a running
tap), temperature (a red tint and rising steam), cookedness (the body's colour), wrappedness
(a wrapper with a band around the thing) and state of mixture (swirling bits on the content).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from taskqa.household.look_spec import RGBA, LookSpec, ModelSpec, PartSpec, Vec3, color_word
from taskqa.model import Attribute

HIDDEN: tuple[bool, Vec3, Vec3, RGBA] = (False, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0, 0, 0, 1))
NO_TURN: Vec3 = (0.0, 0.0, 0.0)
STEAM_PUFFS = 4
DIRT_SPOTS = 6
DICE = 6
SWIRL_BITS = 4


@dataclass(frozen=True)
class Primitive:
    """One drawable body: ``box`` (w, d, h), ``cylinder`` (radius, height) or ``sphere`` (r)."""

    key: str
    kind: str
    dims: tuple[float, ...]


PieceLook = tuple[bool, Vec3, Vec3, RGBA]  # visible, centre, euler angles, colour


def _mix(a: RGBA, b: RGBA, share: float) -> RGBA:
    return (
        a[0] * (1 - share) + b[0] * share,
        a[1] * (1 - share) + b[1] * share,
        a[2] * (1 - share) + b[2] * share,
        1.0,
    )


def unit_hash(text: str, salt: int) -> float:
    """A fixed pseudo-random number in [0, 1) from a name: the same thing always looks alike."""
    digest = hashlib.sha256(f"{text}:{salt}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


def _shape_of(part: PartSpec) -> tuple[str, tuple[float, ...]]:
    if part.box is not None:
        return "box", tuple(part.box)
    if part.cylinder is not None:
        return "cylinder", tuple(part.cylinder)
    return "sphere", (float(part.sphere or 0.0),)


def generic_model(category: str) -> ModelSpec:
    """A plain box for a category without a model, so a new object never breaks rendering."""
    red, green, blue = (int(90 + 120 * unit_hash(category, k)) for k in range(3))
    colour = f"#{red:02x}{green:02x}{blue:02x}"
    return ModelSpec.model_validate(
        {
            "size": [0.16, 0.16, 0.16],
            "parts": [{"box": [0.16, 0.16, 0.16], "color": colour, "body": True, "paint": True}],
        }
    )


class ThingLook:
    """Every primitive one thing may need, and where each one goes in a given state."""

    def __init__(
        self,
        name: str,
        category: str,
        model: ModelSpec,
        look: LookSpec,
        values: dict[Attribute, set[str]],
        color: str | None = None,
    ) -> None:
        self.name = name
        self.category = category
        self.model = model
        # Only the pieces of states the thing is ever in are made: fewer bodies to draw.
        self.values = values
        self.attributes = attributes = set(values)
        self.paint = color_word(color)
        self._look = look
        self._cache: dict[
            tuple[tuple[tuple[Attribute, str], ...], float | None], list[PieceLook]
        ] = {}
        self._colour_cache: dict[str, RGBA] = {}
        self.primitives: list[Primitive] = []
        self._colors: list[RGBA] = []
        self._glows: list[RGBA | None] = []
        w, d, h = model.size
        self.size = model.size
        bodies = [p for p in model.parts if p.body] or list(model.parts)
        self._body_keys = {f"part{i}" for i, p in enumerate(model.parts) if p in bodies}
        self.top = max(p.centre[2] + p.height / 2 for p in bodies)
        self.body_color = self._part_color(bodies[0])
        for index, part in enumerate(model.parts):
            kind, dims = _shape_of(part)
            self._add(f"part{index}", kind, dims)
        self._round = _shape_of(bodies[0])[0] != "box"
        shapes = values.get(Attribute.SHAPE, set())
        if "part" in shapes:
            if self._round:
                radius = min(w, d) / 2
                for side in (0, 1):
                    self._add(f"half{side}", "cylinder", (radius, h * 0.45))
                    self._add(f"cut{side}", "cylinder", (radius * 0.82, 0.006))
            else:
                for side in (0, 1):
                    self._add(f"half{side}", "box", (w * 0.46, d, h * 0.6))
                    self._add(f"cut{side}", "box", (w * 0.4, d * 0.86, 0.006))
        if "diced" in shapes:
            edge = max(0.022, min(w, d) * 0.3)
            for k in range(DICE):
                self._add(f"dice{k}", "box", (edge, edge, edge))
        if "fluid" in shapes:
            self._add("puddle", "cylinder", (max(w, d) * 0.6, 0.006))
        content = model.content
        levels = values.get(Attribute.EMPTINESS, set())
        if levels:
            if content is not None and content.band:
                # A closed container shows its level as a band around it, like a window.
                if self._round:
                    self._add("band", "cylinder", (min(w, d) / 2 + 0.006, h * 0.35))
                else:
                    self._add("band", "box", (w + 0.012, d + 0.012, h * 0.35))
            if "full" in levels:
                if content is not None and content.box is not None:
                    self._add("content", "box", tuple(content.box))
                elif content is not None and content.cylinder is not None:
                    self._add("content", "cylinder", tuple(content.cylinder))
                elif content is None or not content.band:
                    self._add("content", "cylinder", (min(w, d) * 0.42, 0.004))
            if (content is None or not content.band) and levels - {"full"}:
                self._add("hollow", "cylinder", (min(w, d) * 0.4, 0.003))
            if content is not None and content.spill is not None and "full" in levels:
                self._add("spill", "cylinder", (max(w, d) * 0.95, 0.004))
        if "mixing" in values.get(Attribute.MIXTURE, set()):
            for k in range(SWIRL_BITS):
                self._add(f"swirl{k}", "sphere", (max(0.022, min(w, d) * 0.12),))
        first = bodies[0]
        self._ball = first.sphere if first.sphere is not None else None
        self._ball_centre = first.centre
        # A round container's dirt is smudged round its outer wall: on top it would hide under
        # what fills it and vanish when the thing is seen from the side.
        self._wall = (
            (first.cylinder[0], first.cylinder[1], first.centre)
            if model.content is not None and first.cylinder is not None
            else None
        )
        if "dirty" in values.get(Attribute.CLEANLINESS, set()):
            radius = min(0.075, max(0.02, min(w, d) * 0.2))
            for k in range(DIRT_SPOTS):
                size = radius * (0.7 + 0.6 * unit_hash(name, k))
                if self._ball is not None:  # a round thing: dirt sits on its skin
                    self._add(f"dirt{k}", "sphere", (size * 0.8,))
                elif self._wall is not None:
                    self._add(f"dirt{k}", "sphere", (min(size * 0.5, self._wall[0] * 0.35),))
                else:
                    self._add(f"dirt{k}", "cylinder", (size, 0.006))
        if "boiled" in values.get(Attribute.TEMPERATURE, set()):
            puff = min(0.05, max(0.022, min(w, d) * 0.22))
            for k in range(STEAM_PUFFS):
                self._add(f"steam{k}", "sphere", (puff,))
        if "wrapped" in values.get(Attribute.WRAPPEDNESS, set()):
            self._add("wrapper", "box", (w * 1.18, d * 1.18, h * 1.18))
            self._add("wrapband", "box", (w * 0.22, d * 1.2, h * 1.2))
        self._has_glow = any(p.glow for p in model.parts)
        if Attribute.POWEREDNESS in attributes and not self._has_glow:
            self._add("led", "sphere", (max(0.02, min(w, d) * 0.12),))

    def _add(self, key: str, kind: str, dims: tuple[float, ...]) -> None:
        self.primitives.append(Primitive(key, kind, dims))

    def _part_color(self, part: PartSpec) -> RGBA:
        if part.paint and self.paint is not None:
            return self.paint
        return self._look.rgba(part.color, f"models.{self.category}")

    def _rgba(self, name: str) -> RGBA:
        colour = self._colour_cache.get(name)
        if colour is None:
            colour = self._colour_cache[name] = self._look.rgba(name, f"models.{self.category}")
        return colour

    # --- one state -----------------------------------------------------------------------------
    def pose_parts(
        self, state: dict[Attribute, str], t: float, opening: float | None = None
    ) -> list[PieceLook]:
        """Where each primitive sits (thing frame) and its colour; hidden ones are flagged.
        ``opening`` (0 shut to 1 open) swings doors and lids part of the way while an opening
        or closing runs; None: as the state says."""
        # Steam rises and mixed bits whirl with time; every other look depends on the state only.
        moving = state.get(Attribute.TEMPERATURE) == "boiled" or (
            state.get(Attribute.MIXTURE) == "mixing"
        )
        key = (tuple(sorted(state.items())), opening)
        if not moving and key in self._cache:
            return self._cache[key]
        looks = self._pose_parts(state, t, opening)
        if not moving:
            self._cache[key] = looks
        return looks

    def _pose_parts(
        self, state: dict[Attribute, str], t: float, opening: float | None = None
    ) -> list[PieceLook]:
        looks: dict[str, PieceLook] = {}
        opened = state.get(Attribute.OPENNESS) == "open" if opening is None else opening > 0
        share = 1.0 if opening is None else opening
        powered = state.get(Attribute.POWEREDNESS) == "on"
        shape = state.get(Attribute.SHAPE, "whole")
        wrapped = state.get(Attribute.WRAPPEDNESS) == "wrapped"
        dirty = state.get(Attribute.CLEANLINESS) == "dirty"
        hot = state.get(Attribute.TEMPERATURE) == "boiled"
        cooked = state.get(Attribute.COOKEDNESS) == "cooked"
        full = state.get(Attribute.EMPTINESS) == "full"
        mixing = state.get(Attribute.MIXTURE) == "mixing"
        body_tint = self._body_tint(dirty, hot, cooked)
        cut = shape in {"part", "diced", "fluid"}
        for index, part in enumerate(self.model.parts):
            key = f"part{index}"
            if not _applies(part.when, state) or (wrapped and key in self._body_keys):
                looks[key] = HIDDEN
                continue
            if cut and key in self._body_keys:
                looks[key] = HIDDEN
                continue
            colour = self._part_color(part)
            if part.glow and powered:
                colour = self._rgba(part.glow)
            elif key in self._body_keys:
                colour = body_tint(colour)
            centre, euler = part.centre, NO_TURN
            if opened and part.open is not None:
                if part.open.hide:
                    if share >= 0.5:  # a cap or a lid that comes off: gone half way through
                        looks[key] = HIDDEN
                        continue
                else:
                    centre, euler = _opened(centre, part.open, share)
            looks[key] = (True, centre, euler, colour)
        w, d, h = self.size
        inner = (
            self._rgba(self.model.inner)
            if self.model.inner
            else _mix(self.body_color, (1, 1, 1, 1), 0.45)
        )
        body = body_tint(self.body_color)
        if Attribute.SHAPE in self.attributes:
            self._cut_pieces(looks, shape, body, inner)
        self._content_pieces(looks, full, mixing, t)
        if Attribute.CLEANLINESS in self.attributes:
            for k in range(DIRT_SPOTS):
                if self._ball is not None:
                    theta = 0.25 + 1.0 * unit_hash(self.name, 10 + k)
                    phi = 6.283 * unit_hash(self.name, 20 + k)
                    cx, cy, cz = self._ball_centre
                    r = self._ball
                    where = (
                        cx + r * math.sin(theta) * math.cos(phi),
                        cy + r * math.sin(theta) * math.sin(phi),
                        cz + r * math.cos(theta),
                    )
                elif self._wall is not None:  # round the wall, spread so some face every view
                    wall_radius, height, (cx, cy, cz) = self._wall
                    phi = 6.283 * (k + 0.6 * unit_hash(self.name, 20 + k)) / DIRT_SPOTS
                    rise = (unit_hash(self.name, 10 + k) - 0.5) * height * 0.5
                    where = (
                        cx + wall_radius * math.cos(phi),
                        cy + wall_radius * math.sin(phi),
                        cz + rise,
                    )
                else:
                    x = (unit_hash(self.name, 10 + k) - 0.5) * w * 0.7
                    y = (unit_hash(self.name, 20 + k) - 0.5) * d * 0.7
                    where = (x, y, self.top + 0.004)
                spot = (True, where, NO_TURN, self._rgba("dirt"))
                looks[f"dirt{k}"] = spot if dirty and not cut and not wrapped else HIDDEN
        if Attribute.TEMPERATURE in self.attributes:
            for k in range(STEAM_PUFFS):
                phase = (t * 0.35 + k / STEAM_PUFFS) % 1.0
                x = math.sin(6.283 * (phase + k * 0.3)) * w * 0.15
                z = self.top + 0.05 + phase * 0.32
                looks[f"steam{k}"] = (
                    (True, (x, 0.0, z), NO_TURN, self._rgba("steam")) if hot else HIDDEN
                )
        if Attribute.WRAPPEDNESS in self.attributes:
            wrap = (True, (0.0, 0.0, h * 0.59), NO_TURN, self._rgba("wrap"))
            band = (True, (0.0, 0.0, h * 0.6), NO_TURN, self._rgba("wrap_band"))
            looks["wrapper"] = wrap if wrapped else HIDDEN
            looks["wrapband"] = band if wrapped else HIDDEN
        if "led" in {p.key for p in self.primitives}:
            led_colour = self._rgba("glow_red") if powered else self._rgba("charcoal")
            looks["led"] = (True, (0.0, -d * 0.3, self.top + 0.01), NO_TURN, led_colour)
        return [looks.get(p.key, HIDDEN) for p in self.primitives]

    def _body_tint(self, dirty: bool, hot: bool, cooked: bool) -> _Tint:
        cooked_colour = None
        if cooked:
            cooked_colour = (
                self._rgba(self.model.cooked) if self.model.cooked else self._rgba("brown")
            )
        return _Tint(dirty, hot, cooked_colour)

    def _cut_pieces(self, looks: dict[str, PieceLook], shape: str, body: RGBA, inner: RGBA) -> None:
        w, d, h = self.size
        for side, sign in ((0, -1.0), (1, 1.0)):
            x = sign * w * (0.62 if self._round else 0.3)
            half_h = h * (0.45 if self._round else 0.6)
            if shape == "part":
                looks[f"half{side}"] = (True, (x, 0.0, half_h / 2), NO_TURN, body)
                looks[f"cut{side}"] = (True, (x, 0.0, half_h + 0.003), NO_TURN, inner)
            else:
                looks[f"half{side}"] = HIDDEN
                looks[f"cut{side}"] = HIDDEN
        edge = max(0.022, min(w, d) * 0.3)
        for k in range(DICE):
            if shape != "diced":
                looks[f"dice{k}"] = HIDDEN
                continue
            col, row = k % 3, k // 3
            x = (col - 1) * edge * 1.35
            y = (row - 0.5) * edge * 1.35
            colour = body if k in (1, 4) else inner
            looks[f"dice{k}"] = (True, (x, y, edge / 2), (0.0, 0.0, 0.35 * k), colour)
        looks["puddle"] = (True, (0.0, 0.0, 0.003), NO_TURN, inner) if shape == "fluid" else HIDDEN

    def _content_pieces(
        self, looks: dict[str, PieceLook], full: bool, mixing: bool, t: float
    ) -> None:
        keys = {p.key for p in self.primitives}
        w, d, h = self.size
        content = self.model.content
        colour = self._rgba(content.color) if content is not None else self._rgba("water")
        if "band" in keys:
            band_colour = colour if full else self._rgba("interior")
            looks["band"] = (True, (0.0, 0.0, h * 0.4), NO_TURN, band_colour)
        if "content" in keys:
            at = (
                content.at
                if content is not None and content.at is not None
                else (0.0, 0.0, self.top + 0.002)
            )
            looks["content"] = (True, at, NO_TURN, colour) if full else HIDDEN
        if "hollow" in keys:
            empty = not full
            # The inside of an empty container: its own colour in deep shade.
            shade = _mix(self.body_color, (0.05, 0.05, 0.06, 1.0), 0.7)
            looks["hollow"] = (
                (True, (0.0, 0.0, self.top + 0.0015), NO_TURN, shade) if empty else HIDDEN
            )
        if "spill" in keys and content is not None and content.spill is not None:
            looks["spill"] = (
                (True, (0.0, 0.0, 0.002), NO_TURN, self._rgba(content.spill)) if full else HIDDEN
            )
        if "swirl0" in keys:
            surface, radius, tall = self.top + 0.01, min(w, d) * 0.25, False
            if content is not None and content.at is not None and content.cylinder is not None:
                height = content.cylinder[1]
                tall = height > 0.05
                surface = content.at[2] + (0.0 if tall else height / 2 + 0.008)
                radius = content.cylinder[0] * (1.05 if tall else 0.55)
            colours = [self._rgba(c) for c in ("white", "red", "charcoal", "green")]
            for k in range(SWIRL_BITS):
                # Bits of what is mixed, whirling round: on the surface, or through the side
                # of a tall jar.
                angle = t * 2.5 + k * 2 * math.pi / SWIRL_BITS
                z = surface + ((k % 2) * 0.08 - 0.04 if tall else 0.0)
                where = (math.cos(angle) * radius, math.sin(angle) * radius, z)
                looks[f"swirl{k}"] = (
                    (True, where, NO_TURN, colours[k]) if mixing and full else HIDDEN
                )


@dataclass(frozen=True)
class _Tint:
    dirty: bool
    hot: bool
    cooked: RGBA | None

    def __call__(self, colour: RGBA) -> RGBA:
        if self.cooked is not None:
            colour = self.cooked
        if self.dirty:
            colour = _mix(colour, (0.29, 0.19, 0.09, 1.0), 0.45)
        if self.hot:
            colour = _mix(colour, (0.95, 0.18, 0.08, 1.0), 0.4)
        return colour


def _applies(when: dict[str, str | list[str]], state: dict[Attribute, str]) -> bool:
    for key, wanted in when.items():
        attribute = _attribute(key)
        value = state.get(attribute, "unknown")
        options = [wanted] if isinstance(wanted, str) else wanted
        if value not in options:
            return False
    return True


def _attribute(key: str) -> Attribute:
    for attribute in Attribute:
        if key in (attribute.value, attribute.name.lower()):
            return attribute
    raise KeyError(key)


def _opened(centre: Vec3, motion: object, share: float = 1.0) -> tuple[Vec3, Vec3]:
    """A part moved ``share`` of the way from shut to open (hinge, lift or slide)."""
    from taskqa.household.look_spec import PartMotion

    assert isinstance(motion, PartMotion)
    x, y, z = centre
    if motion.hinge is not None:
        px, py, degrees = motion.hinge
        a = math.radians(degrees) * share
        dx, dy = x - px, y - py
        return (
            px + dx * math.cos(a) - dy * math.sin(a),
            py + dx * math.sin(a) + dy * math.cos(a),
            z,
        ), (
            0.0,
            0.0,
            a,
        )
    if motion.lift is not None:
        py, pz, degrees = motion.lift
        a = math.radians(degrees) * share
        dy, dz = y - py, z - pz
        return (
            x,
            py + dy * math.cos(a) - dz * math.sin(a),
            pz + dy * math.sin(a) + dz * math.cos(a),
        ), (
            a,
            0.0,
            0.0,
        )
    if motion.slide is not None:
        sx, sy, sz = motion.slide
        return (x + sx * share, y + sy * share, z + sz * share), NO_TURN
    return centre, NO_TURN
