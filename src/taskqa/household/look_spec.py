"""The look of the household world as data: per-category models and room layouts.

``household.yaml`` beside this module is the built-in description; see its header for the
meaning of every key. This module only reads and checks it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from taskqa.problems import InvalidInputError, Problem, problems_from_validation_error

Vec3 = tuple[float, float, float]
RGBA = tuple[float, float, float, float]
BUILTIN = "household.yaml"
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


class PartMotion(BaseModel):
    """How a part moves while its thing is open (exactly one of the fields)."""

    model_config = ConfigDict(extra="forbid")

    hinge: tuple[float, float, float] | None = None  # pivot x, pivot y, degrees about z
    lift: tuple[float, float, float] | None = None  # pivot y, pivot z, degrees about x
    slide: Vec3 | None = None
    hide: bool = False


class PartSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    box: Vec3 | None = None
    cylinder: tuple[float, float] | None = None
    sphere: float | None = None
    at: Vec3 | None = None
    color: str = "grey"
    body: bool = False
    paint: bool = False
    glow: str | None = None
    when: dict[str, str | list[str]] = Field(default_factory=dict)
    open: PartMotion | None = None

    @model_validator(mode="after")
    def _one_shape(self) -> PartSpec:
        shapes = [s for s in (self.box, self.cylinder, self.sphere) if s is not None]
        if len(shapes) != 1:
            raise ValueError("expected exactly one of box, cylinder, sphere")
        return self

    @property
    def height(self) -> float:
        if self.box is not None:
            return self.box[2]
        if self.cylinder is not None:
            return self.cylinder[1]
        return 2 * (self.sphere or 0.0)

    @property
    def centre(self) -> Vec3:
        return self.at if self.at is not None else (0.0, 0.0, self.height / 2)


class ContentSpec(BaseModel):
    """What fills a container while it is full (juice in the glass, soil made wet)."""

    model_config = ConfigDict(extra="forbid")

    color: str
    at: Vec3 | None = None
    cylinder: tuple[float, float] | None = None
    box: Vec3 | None = None
    band: bool = False  # a closed container (kettle, carton): a band shows the level outside
    spill: str | None = None  # a puddle of this colour around the base while full


class ModelSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    size: Vec3 = (0.2, 0.2, 0.2)
    parts: list[PartSpec] = Field(min_length=1)
    inner: str | None = None
    cooked: str | None = None
    content: ContentSpec | None = None
    spots: dict[str, list[Vec3]] = Field(default_factory=dict)
    slide: Vec3 | None = None
    focus: Vec3 | None = None


class ZoneSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stand: tuple[float, float]
    look: Vec3


class PlacementSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    at: Vec3
    yaw: float = 0.0  # degrees; 0 faces -y


class CameraSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    eye: Vec3
    target: Vec3
    fov: float = 60.0
    # Set: the camera stays at ``eye`` but turns and zooms, frame by frame, to keep every person
    # and what they look at in the picture (``gaze.room_camera``), never narrower than this
    # and never wider than ``fov``. Unset: it looks at ``target`` at ``fov`` throughout.
    min_fov: float | None = None


class RoomLayout(BaseModel):
    model_config = ConfigDict(extra="forbid")

    size: Vec3
    floor: str
    walls: str
    third_person: CameraSpec
    zones: dict[str, ZoneSpec]
    fixtures: dict[str, PlacementSpec] = Field(default_factory=dict)


class RoomColours(BaseModel):
    model_config = ConfigDict(extra="forbid")

    floor: str | None = None
    walls: str | None = None


class HeldOutLooks(BaseModel):
    """Colours a held-out render uses instead (``--appearance-set held-out``): neutral materials
    and rooms only, so no colour an object is named or asked about by changes."""

    model_config = ConfigDict(extra="forbid")

    palette: dict[str, str] = Field(default_factory=dict)
    rooms: dict[str, RoomColours] = Field(default_factory=dict)


APPEARANCE_SETS = ("seen", "held-out")


class LookSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    palette: dict[str, str]
    models: dict[str, ModelSpec]
    rooms: dict[str, RoomLayout]
    held_out: HeldOutLooks = Field(default_factory=HeldOutLooks)
    # verbs whose action the renderer shows no sign of (the figures never sit down): a question
    # whose evidence is such an action cannot be answered from the video (benchmark/grounding.py)
    undrawn_verbs: list[str] = Field(default_factory=list)

    def rgba(self, name: str, where: str = "") -> RGBA:
        """A palette name, a plain colour word or ``#rrggbb`` as RGBA in 0..1."""
        text = self.palette.get(name, name)
        if not _HEX.match(text):
            raise InvalidInputError(
                [Problem(BUILTIN, where, f"unknown colour {name!r}; expected a palette name")]
            )
        return (int(text[1:3], 16) / 255, int(text[3:5], 16) / 255, int(text[5:7], 16) / 255, 1.0)

    def model(self, category: str) -> ModelSpec | None:
        return self.models.get(category)

    def appearance_set(self, name: str) -> LookSpec:
        """This look (``seen``) or its held-out set: the held-out palette and room colours
        replace the seen ones; models, layouts and everything else stay."""
        if name == "seen":
            return self
        if name != "held-out":
            raise ValueError(f"unknown appearance set {name!r}; expected seen or held-out")
        rooms = {}
        for room, layout in self.rooms.items():
            colours = self.held_out.rooms.get(room, RoomColours())
            floor, walls = colours.floor or layout.floor, colours.walls or layout.walls
            rooms[room] = layout.model_copy(update={"floor": floor, "walls": walls})
        return self.model_copy(
            update={"palette": {**self.palette, **self.held_out.palette}, "rooms": rooms}
        )


def load_look(path: Path | None = None) -> LookSpec:
    """The built-in look, or a user's file of the same shape."""
    return parse_look(*look_source(path))


def look_source(path: Path | None) -> tuple[str, str]:
    """The text and file name of a look file (None: the built-in ``household.yaml``), as
    ``parse_look`` takes them: what workers are sent instead of a parsed look."""
    if path is None:
        return resources.files("taskqa.household").joinpath(BUILTIN).read_text(
            encoding="utf-8"
        ), BUILTIN
    return path.read_text(encoding="utf-8"), path.name


@lru_cache(maxsize=4)
def parse_look(text: str, file_name: str) -> LookSpec:
    try:
        raw: Any = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as error:
        raise InvalidInputError([Problem(file_name, "", f"invalid YAML: {error}")]) from None
    try:
        look = LookSpec.model_validate(raw)
    except ValidationError as error:
        raise InvalidInputError(problems_from_validation_error(file_name, [], error)) from None
    problems = [
        Problem.at(file_name, ["palette", name], "expected a colour as #rrggbb")
        for name, value in look.palette.items()
        if not _HEX.match(value)
    ]
    for name, value in look.held_out.palette.items():
        held = ["held_out", "palette", name]
        if name not in look.palette:
            problems.append(Problem.at(file_name, held, "expected a name the palette has"))
        elif name in COLOR_WORDS:
            # a model's part coloured "red" is red in every set: questions may name the colour
            problems.append(
                Problem.at(file_name, held, "a colour word keeps its colour; rename the entry")
            )
        elif not _HEX.match(value):
            problems.append(Problem.at(file_name, held, "expected a colour as #rrggbb"))
    for room, room_colours in look.held_out.rooms.items():
        if room not in look.rooms:
            problems.append(
                Problem.at(file_name, ["held_out", "rooms", room], "expected a room of rooms")
            )
        for key in ("floor", "walls"):
            value = getattr(room_colours, key)
            if value is not None and not _HEX.match(look.palette.get(value, value)):
                problems.append(
                    Problem.at(
                        file_name,
                        ["held_out", "rooms", room, key],
                        "expected #rrggbb or a palette name",
                    )
                )
    for category, model in look.models.items():
        colours: list[tuple[list[str | int], str | None]] = [
            (["parts", i, "color"], p.color) for i, p in enumerate(model.parts)
        ]
        colours += [(["parts", i, "glow"], p.glow) for i, p in enumerate(model.parts) if p.glow]
        for key in ("inner", "cooked"):
            if getattr(model, key):
                colours.append(([key], getattr(model, key)))
        if model.content is not None:
            colours.append((["content", "color"], model.content.color))
        for where, colour in colours:
            if colour not in look.palette and not _HEX.match(colour or ""):
                problems.append(
                    Problem.at(
                        file_name,
                        ["models", category, *where],
                        f"unknown colour {colour!r}; expected a palette name or #rrggbb",
                    )
                )
    if problems:
        raise InvalidInputError(problems)
    return look


# Plain colour words a domain may give an object (ObjectSpec.color), as RGB in 0..1.
COLOR_WORDS: dict[str, tuple[float, float, float]] = {
    "red": (0.82, 0.16, 0.14),
    "blue": (0.16, 0.36, 0.85),
    "green": (0.2, 0.62, 0.22),
    "yellow": (0.95, 0.82, 0.2),
    "orange": (0.95, 0.52, 0.1),
    "purple": (0.52, 0.22, 0.75),
    "pink": (0.93, 0.5, 0.7),
    "white": (0.95, 0.95, 0.93),
    "black": (0.12, 0.12, 0.13),
    "grey": (0.55, 0.55, 0.55),
    "gray": (0.55, 0.55, 0.55),
    "brown": (0.48, 0.29, 0.13),
    "cyan": (0.2, 0.78, 0.8),
    "teal": (0.15, 0.55, 0.55),
    "beige": (0.88, 0.8, 0.64),
    "silver": (0.75, 0.77, 0.8),
    "gold": (0.85, 0.68, 0.2),
}


def color_word(word: str | None) -> RGBA | None:
    """RGBA of a plain colour word; None for no word or one taskqa does not know (not drawn)."""
    if word is None:
        return None
    rgb = COLOR_WORDS.get(word.lower())
    return None if rgb is None else (*rgb, 1.0)
