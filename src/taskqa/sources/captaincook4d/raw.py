"""Pydantic models of CaptainCook4D's raw JSON files, and the record checks pydantic cannot express.

The models are strict (``"10.5"`` is not a number) and forbid unknown keys, so a misspelt
optional key such as ``modified_descripton`` is reported instead of silently dropped. Each item
of a list or mapping is validated on its own, so one broken record does not hide the problems of
the others.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Protocol, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from taskqa.model import ErrorTag
from taskqa.model.recording import MAX_DURATION
from taskqa.problems import Location, Problem, problems_from_validation_error

MISSING_TIME = -1.0
"""The start and end time CaptainCook4D gives a step that was not performed."""

START_STEP_ID = -1
"""The id ProMQA's cleaned annotations give the START step they prepend to every recording."""

_VERB = re.compile(r"^\s*([^-\s][^-]*?)\s*-")
_KNOWN_TAGS = ", ".join(f'"{tag.value}"' for tag in ErrorTag)


class _Raw(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, frozen=True)


class RawError(_Raw):
    tag: str
    description: str


class RawStep(_Raw):
    """A step of ``error_annotations.json``; ProMQA's cleaned copy has the same shape."""

    description: str
    step_id: int
    start_time: float
    end_time: float
    errors: list[RawError] = Field(default_factory=list)
    modified_description: str | None = None

    @property
    def tags(self) -> list[str]:
        return [error.tag for error in self.errors]

    @property
    def is_missing(self) -> bool:
        # Activity 18 marks six skipped steps by their -1 times alone, without the tag.
        timeless = self.start_time == MISSING_TIME and self.end_time == MISSING_TIME
        return timeless or ErrorTag.MISSING_STEP.value in self.tags


class RawErrorRecording(_Raw):
    recording_id: str = Field(min_length=1)
    activity_id: int
    is_error: bool
    step_annotations: list[RawStep]


class RawCleanedRecording(RawErrorRecording):
    activity_name: str
    # ProMQA's cleaning means to mark step 12 of six Zoodles recordings (18_3, 18_11, ...) as
    # skipped but writes "Skipped this step" on the recording instead, so the key is allowed here.
    modified_description: str | None = None


class RawPlainStep(_Raw):
    """A step of ``step_annotations.json`` and ``complete_step_annotations.json``."""

    step_id: int
    start_time: float
    end_time: float
    description: str
    has_errors: bool


class RawStepRecording(_Raw):
    recording_id: str = Field(min_length=1)
    steps: list[RawPlainStep]


class RawCompleteRecording(RawStepRecording):
    activity_id: int
    activity_name: str = Field(min_length=1)
    person_id: int
    environment: int


def _pair(edge: list[int]) -> list[int]:
    if len(edge) != 2:
        raise ValueError(f"an edge with {len(edge)} ids; expected a pair [from, to]")
    return edge


# Strict mode refuses a JSON list for a tuple, so an edge is a list checked to hold two ids.
Edge = Annotated[list[int], AfterValidator(_pair)]


class RawTaskGraph(_Raw):
    """``task_graphs/<name>.json``: ``{"steps": {local_id: text}, "edges": [[a, b], ...]}``."""

    steps: dict[str, str]
    edges: list[Edge]


class RawNamedTaskGraph(RawTaskGraph):
    """A value of ProMQA's ``graphs.json``: a task graph plus the recipe's name."""

    name: str = Field(min_length=1)


class TimedStep(Protocol):
    @property
    def step_id(self) -> int: ...
    @property
    def description(self) -> str: ...
    @property
    def start_time(self) -> float: ...
    @property
    def end_time(self) -> float: ...


Model = TypeVar("Model", bound=BaseModel)


def json_kind(value: Any) -> str:
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "a number"
    return kinds.get(type(value), type(value).__name__)


def parse_list(
    data: Any, model: type[Model], file: str, what: str
) -> tuple[list[tuple[int, Model]], list[Problem]]:
    """Validate every item of a JSON list; return the valid ones with their indices."""
    if not isinstance(data, list):
        return [], [Problem.at(file, [], f"expected a JSON list of {what} (got {json_kind(data)})")]
    parsed: list[tuple[int, Model]] = []
    problems: list[Problem] = []
    for index, item in enumerate(data):
        try:
            parsed.append((index, model.model_validate(item)))
        except ValidationError as error:
            problems.extend(problems_from_validation_error(file, [index], error))
    return parsed, problems


def parse_mapping(
    data: Any, model: type[Model], file: str, what: str
) -> tuple[list[tuple[str, Model]], list[Problem]]:
    """Validate every value of a JSON object; return the valid ones with their keys."""
    if not isinstance(data, dict):
        message = f"expected a JSON object of {what} (got {json_kind(data)})"
        return [], [Problem.at(file, [], message)]
    parsed: list[tuple[str, Model]] = []
    problems: list[Problem] = []
    for key, item in data.items():
        try:
            parsed.append((key, model.model_validate(item)))
        except ValidationError as error:
            problems.extend(problems_from_validation_error(file, [key], error))
    return parsed, problems


def verb_of(description: str) -> str | None:
    """The verb of ``"<Verb>-<text>"`` (``"Cut -Cut the muffin"`` gives ``"cut"``)."""
    match = _VERB.match(description)
    return match.group(1).lower() if match else None


def time_problems(file: str, location: Location, step: TimedStep) -> list[Problem]:
    start, end = step.start_time, step.end_time
    if start == MISSING_TIME and end == MISSING_TIME:
        return []
    problems = []
    for name, value in (("start_time", start), ("end_time", end)):
        if value < 0 and value != MISSING_TIME:
            problems.append(
                Problem.at(
                    file,
                    [*location, name],
                    f"{name} {value} is negative; expected seconds >= 0, or -1 for a missing step",
                )
            )
        elif value > MAX_DURATION:
            problems.append(
                Problem.at(
                    file,
                    [*location, name],
                    f"{name} {value} is past any recording; expected at most {MAX_DURATION:.0f} s",
                )
            )
    if (start == MISSING_TIME) != (end == MISSING_TIME):
        name, other = ("start_time", end) if start == MISSING_TIME else ("end_time", start)
        problems.append(
            Problem.at(
                file,
                [*location, name],
                f"{name} is -1 but the other time is {other}; "
                "expected both times -1 for a missing step, or both >= 0",
            )
        )
    elif start >= 0 and 0 <= end < start:
        problems.append(
            Problem.at(
                file,
                [*location, "end_time"],
                f"end_time {end} is before start_time {start}; expected end_time >= start_time",
            )
        )
    return problems


def description_problems(file: str, location: Location, description: str) -> list[Problem]:
    # The text before the first hyphen becomes an action's verb, so it must exist.
    if verb_of(description) is not None:
        return []
    return [
        Problem.at(
            file,
            [*location, "description"],
            f'{description!r} has no verb before a "-"; expected "<Verb>-<text>"',
        )
    ]


def tag_problems(file: str, location: Location, errors: Sequence[RawError]) -> list[Problem]:
    known = {tag.value for tag in ErrorTag}
    return [
        Problem.at(
            file,
            [*location, "errors", index, "tag"],
            f"unknown error tag {error.tag!r}; expected one of {_KNOWN_TAGS}",
        )
        for index, error in enumerate(errors)
        if error.tag not in known
    ]


def step_problems(file: str, location: Location, step: TimedStep) -> list[Problem]:
    problems = time_problems(file, location, step)
    problems.extend(description_problems(file, location, step.description))
    if isinstance(step, RawStep):
        problems.extend(tag_problems(file, location, step.errors))
    return problems


def repeat_problems(file: str, keyed: Iterable[tuple[Location, str]], what: str) -> list[Problem]:
    """One problem per repeated value, pointing at the repeat and naming the first place."""
    first: dict[str, Location] = {}
    problems = []
    for location, value in keyed:
        if value in first:
            problems.append(
                Problem.at(
                    file,
                    location,
                    f"{what} {value!r} repeats {file}{_where(first[value])}; expected it once",
                )
            )
        else:
            first[value] = location
    return problems


def _where(location: Location) -> str:
    return Problem.at("", location, "").location


def time_order(steps: Sequence[TimedStep]) -> list[int]:
    """Indices of ``steps`` by start time, steps at -1 first, ties in file order.

    This is ProMQA's order; the occurrence count of repeated steps depends on it.
    """
    return sorted(range(len(steps)), key=lambda index: steps[index].start_time)
