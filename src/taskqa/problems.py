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


def load_json(path: Path) -> Any:
    """Parse a JSON file, turning every way it can be unreadable into one Problem."""
    name = str(path)
    if path.is_dir():
        raise InvalidInputError([Problem(name, "", "is a folder; expected a JSON file")])
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInputError([Problem(name, "", "file not found")]) from None
    except UnicodeDecodeError as error:
        raise InvalidInputError(
            [Problem(name, "", f"not UTF-8 text ({error.reason} at byte {error.start})")]
        ) from None
    return parse_json(text, name, [])


def parse_json(text: str | bytes, file: str | Path, location: Location, line: int = 0) -> Any:
    """``json.loads`` whose failures name ``file`` and ``location``; ``line`` numbers a JSON Lines
    record. Refuses what parses but breaks later: nesting too deep for Python's stack, integers
    longer than Python converts, and lone surrogates, which cannot be written back as UTF-8."""
    try:
        # bytes are decoded here, as UTF-8 only: json.loads would guess UTF-16 from a stray BOM
        value = json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)
    except json.JSONDecodeError as error:
        message = f"invalid JSON: {json_reason(error, line)}"
        if not line and error.pos >= len(text.rstrip()):
            message += " (the file looks truncated)"
        raise InvalidInputError([Problem.at(file, location, message)]) from None
    except RecursionError:
        message = "invalid JSON: nested too deeply to read (more than about 900 levels)"
        raise InvalidInputError([Problem.at(file, location, message)]) from None
    except UnicodeDecodeError as error:
        message = f"not UTF-8 text ({error.reason} at byte {error.start})"
        raise InvalidInputError([Problem.at(file, location, message)]) from None
    except ValueError as error:  # an integer of more than 4,300 digits
        raise InvalidInputError([Problem.at(file, location, f"invalid JSON: {error}")]) from None
    if SURROGATE_ESCAPE.search(text if isinstance(text, str) else text.decode("utf-8")):
        _refuse_lone_surrogates(value, file, location)
    return value


def json_reason(error: json.JSONDecodeError, line: int = 0) -> str:
    """json's message with its position: its ``msg`` alone can end mid-sentence
    ("Unterminated string starting at")."""
    where = f"line {line or error.lineno}, column {error.colno}"
    joint = " " if error.msg.endswith(" at") else " at "
    return f"{error.msg}{joint}{where}"


SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _refuse_lone_surrogates(value: Any, file: str | Path, location: Location) -> None:
    """A ``\\ud800`` escape without its pair parses to a string no UTF-8 file can hold."""
    stack: list[tuple[Any, list[str | int]]] = [(value, list(location))]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise InvalidInputError(
                    [Problem.at(file, where, "holds an unpaired UTF-16 surrogate escape")]
                ) from None
        elif isinstance(item, dict):
            for key, child in item.items():
                stack.append((key, where))
                stack.append((child, [*where, key]))
        elif isinstance(item, list):
            stack.extend((child, [*where, index]) for index, child in enumerate(item))
