"""Every JSON and JSON Lines file taskqa reads or writes goes through here.

Writing: one layout for the whole package (UTF-8, non-ASCII kept, two-space indent for JSON
documents, one compact record per line for JSON Lines, a final newline), written atomically so
that no reader ever sees half a file. Reading: failures name the file as the user gave it and
the record (``questions.jsonl[12].answer``), through ``taskqa.problems.parse_json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from taskqa.atomic import write_text
from taskqa.problems import InvalidInputError, Problem, load_json, parse_json

__all__ = [
    "dumps",
    "jsonl_text",
    "load_json",
    "parse_json",
    "read_jsonl",
    "read_jsonl_objects",
    "record_line",
    "write_json",
    "write_jsonl",
]


def dumps(data: object, sort_keys: bool = False) -> str:
    """A JSON document as taskqa writes it: indented by two, non-ASCII kept, final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=sort_keys) + "\n"


def record_line(record: object) -> str:
    """One JSON Lines record: compact, non-ASCII kept, with its newline."""
    return json.dumps(record, ensure_ascii=False) + "\n"


def jsonl_text(records: Iterable[object]) -> str:
    return "".join(record_line(record) for record in records)


def write_json(path: Path, data: object, sort_keys: bool = False) -> None:
    """Atomic write of one JSON document."""
    write_text(path, dumps(data, sort_keys))


def write_jsonl(path: Path, records: Iterable[object]) -> None:
    """Atomic write of a JSON Lines file."""
    write_text(path, jsonl_text(records))


def read_jsonl(path: Path, name: str | None = None) -> Iterator[tuple[int, Any]]:
    """``(index, value)`` for every non-blank line of a JSON Lines file, streamed.

    ``name`` is how problems name the file (default: the path as given). A missing file, a
    folder, text that is not UTF-8 and a line that is not JSON each raise one Problem naming
    the file and the record index.
    """
    label = str(path) if name is None else name
    if path.is_dir():
        raise InvalidInputError([Problem(label, "", "is a folder; expected a JSON Lines file")])
    try:
        stream = path.open("rb")
    except FileNotFoundError:
        raise InvalidInputError([Problem(label, "", "file not found")]) from None
    with stream:
        index = 0
        for number, raw in enumerate(stream, start=1):
            if not raw.strip():
                continue
            yield index, parse_json(raw, label, [index], line=number)
            index += 1


def read_jsonl_objects(path: Path, name: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """``read_jsonl`` for files whose every record must be a JSON object."""
    label = str(path) if name is None else name
    for index, value in read_jsonl(path, name):
        if not isinstance(value, dict):
            raise InvalidInputError([Problem.at(label, [index], "expected a JSON object")])
        yield index, value
