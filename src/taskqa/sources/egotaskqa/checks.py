"""Shape checks on raw JSON that record a problem, with its record path, instead of raising."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from taskqa.jsonio import load_json
from taskqa.problems import InvalidInputError, Location, Problem


class Missing:
    """Stands for a key that is absent; checks on it return None without a second problem."""


MISSING = Missing()


def got(value: object) -> str:
    """A value as a problem message quotes it, cut to 60 characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else f"{text[:57]}..."


class Checker:
    """Checks values of one file, adding a problem for each one of the wrong shape."""

    def __init__(self, file: str, problems: list[Problem]) -> None:
        self.file = file
        self.problems = problems

    def problem(self, location: Location, message: str) -> None:
        self.problems.append(Problem.at(self.file, location, message))

    def get(self, mapping: dict[str, Any], key: str, location: Location) -> object:
        if key not in mapping:
            self.problem([*location, key], "missing")
            return MISSING
        return mapping[key]

    def mapping(self, value: object, location: Location, what: str) -> dict[str, Any] | None:
        if isinstance(value, Missing):
            return None
        if not isinstance(value, dict):
            self.problem(location, f"expected {what} (got {got(value)})")
            return None
        return value

    def sequence(self, value: object, location: Location, what: str) -> list[Any] | None:
        if isinstance(value, Missing):
            return None
        if not isinstance(value, list):
            self.problem(location, f"expected {what} (got {got(value)})")
            return None
        return value

    def text(self, value: object, location: Location) -> str | None:
        if isinstance(value, Missing):
            return None
        if not isinstance(value, str) or not value.strip():
            self.problem(location, f"expected a non-empty string (got {got(value)})")
            return None
        return value

    def frame(self, value: object, location: Location) -> int | None:
        if isinstance(value, Missing):
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.problem(
                location, f"expected a frame number, a whole number >= 0 (got {got(value)})"
            )
            return None
        return value

    def choice(self, value: object, location: Location, options: Sequence[str]) -> str | None:
        if isinstance(value, Missing):
            return None
        if value not in options:
            self.problem(location, f"expected one of {', '.join(options)} (got {got(value)})")
            return None
        assert isinstance(value, str)
        return value


def load(path: Path, label: str, problems: list[Problem], required: bool) -> object:
    """The parsed content of ``path``, or MISSING (with a problem if ``required``)."""
    if not path.is_file():
        if required:
            problems.append(Problem(label, "", "file not found"))
        return MISSING
    try:
        return load_json(path)
    except InvalidInputError as error:
        # load_json names files by their base name; keep the folder-relative label instead.
        problems.extend(Problem(label, p.location, p.message) for p in error.problems)
        return MISSING
