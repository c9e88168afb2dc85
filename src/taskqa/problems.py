"""Problems found in input files, each pinned to a file and a record path.

A record path reads like ``error_annotations.json[12].step_annotations[3].end_time``: the file
name, then list indices in brackets, identifier keys after dots and other keys quoted in brackets.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

Location = Sequence[str | int]
MAX_MESSAGE = 500
MAX_VALUE = 80  # characters of an offending value quoted in a message
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def format_location(location: Location) -> str:
    parts: list[str] = []
    for key in location:
        if isinstance(key, int):
            parts.append(f"[{key}]")
        elif _IDENTIFIER.match(key):
            parts.append(f".{key}")
        else:
            parts.append(f"[{json.dumps(key)}]")
    return "".join(parts)


@dataclass(frozen=True, order=True)
class Problem:
    file: str
    location: str
    message: str

    def __post_init__(self) -> None:
        # A 10 MB value echoed into a message helps nobody; keep the start and say how much went.
        if len(self.message) > MAX_MESSAGE:
            cut = len(self.message) - MAX_MESSAGE
            object.__setattr__(
                self, "message", f"{self.message[:MAX_MESSAGE]}... ({cut:,} more characters)"
            )

    def __str__(self) -> str:
        return f"{self.file}{self.location}: {self.message}"

    @classmethod
    def at(cls, file: str | Path, location: Location, message: str) -> Problem:
        return cls(str(file), format_location(location), message)


class InvalidInputError(ValueError):
    """Raised when an input file cannot be used; carries every problem found, not just the first."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = list(problems)
        shown = "\n".join(f"  {p}" for p in self.problems[:20])
        more = len(self.problems) - 20
        suffix = f"\n  ... and {more} more" if more > 0 else ""
        super().__init__(f"{len(self.problems)} problem(s):\n{shown}{suffix}")


def problems_from_validation_error(
    file: str, prefix: Location, error: ValidationError
) -> list[Problem]:
    """Turn pydantic's errors into problems whose paths start at ``prefix`` inside ``file``."""
    problems = []
    for detail in error.errors(include_url=False):
        location = [*prefix, *(k for k in detail["loc"] if not _is_internal(k))]
        problems.append(Problem(file, format_location(location), _describe(detail)))
    return problems


def _is_internal(key: str | int) -> bool:
    # pydantic adds the names of union members and validators to locations; readers need none.
    return isinstance(key, str) and (key.startswith("function-") or "[" in key)


def _describe(detail: Any) -> str:
    message = str(detail["msg"]).removeprefix("Value error, ")
    if detail["type"] in {"missing", "extra_forbidden"}:
        return message.lower()
    given = detail.get("input")
    if isinstance(given, dict | list):
        return message
    return f"{message} (got {shorten(json.dumps(given, default=str))})"


def shorten(text: str, limit: int = MAX_VALUE) -> str:
    """``text`` cut to ``limit`` characters, saying how many went."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"
