"""The contact sheet: one picture per value of every visible attribute, labelled, side by side.

Each row of ``sheet.yaml`` shows one object in each value of one attribute, in its room, seen
the way a first-person camera sees what it works on (about 0.8 m away). A person looking at the
sheet should tell every pair apart; docs/images/contact-sheet.png is the built-in one.
"""

from __future__ import annotations

import io
import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import yaml
from PIL import Image, ImageDraw, ImageFont
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taskqa.atomic import write_bytes
from taskqa.household.frames import draw_moment
from taskqa.household.gaze import eye_point
from taskqa.household.look_spec import LookSpec, load_look
from taskqa.household.options import RenderOptions
from taskqa.household.scene import Frame, HouseholdScene
from taskqa.household.timeline import Timeline
from taskqa.model import Agent, Attribute, Recording, Relation, Snapshot, Source, allowed_values
from taskqa.problems import InvalidInputError, Problem, problems_from_validation_error
from taskqa.render.engine import Vec3
from taskqa.simulation.domain import Domain, load_domain
from taskqa.simulation.rules import attribute_named

SHEET_FILE = "sheet.yaml"
COLUMNS = 8
LABEL_HEIGHT = 20
VIEWER = "P1"


class SheetRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    object: str
    attribute: str
    values: list[str] = Field(min_length=1)
    with_: dict[str, str] = Field(default_factory=dict, alias="with")


class SheetSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rows: list[SheetRow]


def load_sheet(path: Path | None = None) -> SheetSpec:
    if path is None:
        text = resources.files("taskqa.household").joinpath(SHEET_FILE).read_text(encoding="utf-8")
        name = SHEET_FILE
    else:
        text, name = path.read_text(encoding="utf-8"), path.name
    raw: Any = yaml.safe_load(text)
    try:
        spec = SheetSpec.model_validate(raw)
    except ValidationError as error:
        raise InvalidInputError(problems_from_validation_error(name, [], error)) from None
    problems = []
    for index, row in enumerate(spec.rows):
        try:
            attribute = attribute_named(row.attribute)
        except Exception:
            problems.append(
                Problem.at(
                    name, ["rows", index, "attribute"], f"unknown attribute {row.attribute!r}"
                )
            )
            continue
        for k, value in enumerate(row.values):
            if value not in allowed_values(attribute):
                expected = ", ".join(allowed_values(attribute))
                problems.append(
                    Problem.at(
                        name, ["rows", index, "values", k], f"{value!r}; expected one of {expected}"
                    )
                )
    if problems:
        raise InvalidInputError(problems)
    return spec


def find_object(domain: Domain, category: str) -> str | None:
    """The first object of the domain drawn as ``category`` (its id when it has no category)."""
    for name, spec in domain.spec.objects.items():
        if (spec.category or name) == category and not spec.distractor:
            return name
    return next((n for n, s in domain.spec.objects.items() if (s.category or n) == category), None)


def sheet_pictures(
    domain: Domain,
    look: LookSpec,
    size: int,
    spec: SheetSpec | None = None,
    backend: str = "tiny",
) -> list[list[tuple[str, npt.NDArray[np.uint8]]]]:
    """Per sheet row, (label, picture) for each value; rows whose object the domain lacks are
    left out."""
    spec = spec or load_sheet()
    rows = []
    for row in spec.rows:
        name = find_object(domain, row.object)
        if name is None:
            continue
        rows.append(_row_pictures(domain, look, size, name, row, backend))
    return rows


def still_recording(domain: Domain, subject: str, attributes: dict[Attribute, str]) -> Recording:
    """A one-second recording of the subject's room: its fixtures, and the subject (a carried
    thing rests on the room's hand-over spot), nothing else to get in the way."""
    room = domain.spec.objects[subject].room
    handover = domain.spec.rooms[room].handover
    initial: dict[str, Snapshot] = {}
    for name in domain.objects_in(room):
        spec = domain.spec.objects[name]
        if not spec.fixture and name != subject:
            continue
        values = domain.initial_attributes(name)
        if Attribute.CLEANLINESS in values:
            values[Attribute.CLEANLINESS] = "clean"  # no dirt but the subject's in the picture
        relations = []
        if not spec.fixture:
            values.update(attributes)
            holder = handover or spec.at
            holds = domain.spec.objects[holder].holds if holder in domain.spec.objects else None
            relations.append(Relation(subject=name, relation=holds or "on-top-of", object=holder))
        elif name == subject:
            values.update(attributes)
        initial[name] = Snapshot(attributes=values, relations=relations)
    return Recording(
        id=f"still-{subject}",
        source=Source.SIMULATED,
        duration=1.0,
        fps=1.0,
        environment=room,
        agents=[Agent(id=VIEWER)],
        initial_state=initial,
    )


def _row_pictures(
    domain: Domain, look: LookSpec, size: int, name: str, row: SheetRow, backend: str
) -> list[tuple[str, npt.NDArray[np.uint8]]]:
    framed = row_frames(domain, look, size, name, row, backend=backend)
    return [(label, frame.rgb) for label, frame, _ in framed]


def row_frames(
    domain: Domain,
    look: LookSpec,
    size: int,
    name: str,
    row: SheetRow,
    masks: bool = False,
    backend: str = "tiny",
) -> list[tuple[str, Frame, int]]:
    """(label, frame, the subject's mask label) for each value of one sheet row."""
    attribute = attribute_named(row.attribute)
    extra = {attribute_named(k): v for k, v in row.with_.items()}
    start = {**extra, attribute: row.values[0]}
    recording = still_recording(domain, name, start)
    timeline = Timeline(recording, domain)
    timeline.expect(name, attribute, row.values)
    frames = []
    room = recording.environment or ""
    options = RenderOptions(width=size, height=size, backend=backend)
    # the scene is built from this timeline, which knows every value the row shows
    with HouseholdScene(timeline, domain, look, room, size, size, backend) as scene:
        for value in row.values:
            timeline.set_initial(name, {**extra, attribute: value})
            gaze = {VIEWER: still_gaze(scene, name)}
            stand = {VIEWER: ((0.0, 0.0, -60.0), 0.0)}  # the viewer's own figure: out of sight
            (frame,) = draw_moment(scene, options, 0.0, gaze, stand, [VIEWER], masks)
            frames.append((f"{name}, {attribute.value}: {value}", frame, scene.label(name)))
    return frames


def still_gaze(scene: HouseholdScene, name: str) -> tuple[Vec3, Vec3]:
    """Eye and target of a person looking at ``name`` from the zone they would stand in."""
    focus = scene.locate(name, 0.0)
    zone = scene.timeline.zone_of(name, 0.0)
    spot = scene.layout.zones[zone].stand if zone in scene.layout.zones else (0.0, 0.0)
    return eye_point(focus, spot, scene.viewing_distance(name)), focus


def compose_sheet(rows: list[list[tuple[str, npt.NDArray[np.uint8]]]], size: int) -> Image.Image:
    """Rows of labelled pictures packed left to right, a row never split across lines."""
    lines: list[list[tuple[str, npt.NDArray[np.uint8]]]] = [[]]
    for row in rows:
        if len(lines[-1]) + len(row) > COLUMNS:
            lines.append([])
        lines[-1].extend(row)
    cell_h = size + LABEL_HEIGHT
    sheet = Image.new("RGB", (COLUMNS * size, len(lines) * cell_h), (24, 24, 28))
    draw = ImageDraw.Draw(sheet)
    font = ImageFont.load_default(size=max(9, math.floor(size / 18)))
    for y, line in enumerate(lines):
        for x, (label, picture) in enumerate(line):
            sheet.paste(Image.fromarray(picture), (x * size, y * cell_h + LABEL_HEIGHT))
            tag = Image.new("RGB", (size - 2, LABEL_HEIGHT), (24, 24, 28))
            ImageDraw.Draw(tag).text((3, 3), label, fill=(250, 230, 120), font=font)
            sheet.paste(tag, (x * size, y * cell_h))  # cut at the cell's edge, never overlapping
    del draw
    return sheet


def write_sheet(
    out: Path, size: int = 224, domain: Domain | None = None, backend: str = "tiny"
) -> int:
    """Write the contact sheet PNG; return the number of pictures on it."""
    domain = domain or load_domain()
    rows = sheet_pictures(domain, load_look(), size, backend=backend)
    image = compose_sheet(rows, size)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    write_bytes(out, buffer.getvalue())
    return sum(len(r) for r in rows)
