"""Every JSON and JSON Lines file taskqa reads or writes goes through here.

Writing: one layout for the whole package (UTF-8, non-ASCII kept, two-space indent for JSON
documents, one record per line for JSON Lines, a final newline), written atomically so that no
reader ever sees half a file. The few files laid out otherwise on purpose say so at their call
site: a compact text (``dumps_compact``) or a released dataset's layout (``indent=0``,
``dumps_indented``'s four spaces).

Reading: every way a file can be unreadable becomes one :class:`~taskqa.problems.Problem` that
names the file as the user gave it and the record (``questions.jsonl[12]: invalid JSON: ...``).

``tests/test_jsonio.py`` keeps ``json.dumps``/``json.loads`` out of the rest of the package,
except for JSON that is not a file (HTTP bodies, cache keys, messages to workers, values quoted
in messages, SQLite and Parquet column values), which its allowlist names with the reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from taskqa.atomic import write_text
from taskqa.problems import InvalidInputError, Location, Problem

__all__ = [
    "SURROGATE_ESCAPE",
    "dumps",
    "dumps_compact",
    "dumps_indented",
    "json_reason",
    "jsonl_lines",
    "jsonl_text",
    "load_json",
    "parse_json",
    "read_jsonl",
    "read_jsonl_objects",
    "record_line",
    "record_text",
    "write_json",
    "write_jsonl",
    "write_records",
]


# --- writing ---------------------------------------------------------------------------------


def dumps(data: object, sort_keys: bool = False, *, indent: int = 2) -> str:
    """A JSON document as taskqa writes it: indented by two, non-ASCII kept, final newline.

    ``indent=0`` puts every value on a line of its own without indentation, as EgoTaskQA's
    released id lists are laid out."""
    return json.dumps(data, indent=indent, ensure_ascii=False, sort_keys=sort_keys) + "\n"


def dumps_compact(data: object) -> str:
    """A JSON document on one line without spaces, final newline: for files so large that
    indentation costs, and for canonical texts where equal values must give equal bytes."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False) + "\n"


def record_text(record: object, sort_keys: bool = False) -> str:
    """One JSON Lines record without its newline: on one line, non-ASCII kept. U+2028 and other
    characters ``str.splitlines`` breaks at stay raw, so readers split at ``\\n`` only, as
    ``jsonl_lines`` does."""
    return json.dumps(record, ensure_ascii=False, sort_keys=sort_keys)


def record_line(record: object, sort_keys: bool = False) -> str:
    """One JSON Lines record (``record_text``) with its newline."""
    return record_text(record, sort_keys) + "\n"


def jsonl_text(records: Iterable[object], sort_keys: bool = False) -> str:
    return "".join(record_line(record, sort_keys) for record in records)


def write_json(path: Path, data: object, sort_keys: bool = False, *, indent: int = 2) -> None:
    """Atomic write of one JSON document (see ``dumps``)."""
    write_text(path, dumps(data, sort_keys, indent=indent))


def write_jsonl(path: Path, records: Iterable[object], sort_keys: bool = False) -> None:
    """Atomic write of a JSON Lines file."""
    write_text(path, jsonl_text(records, sort_keys))


# --- the release layout: json.dump(records, indent=4), fast ---------------------------------------
#
# The standard library's encoder falls back to pure Python whenever ``indent`` is set, which makes
# writing the 28 MB procedural candidate file the slowest part of the ``candidates`` command.
# Candidate records share their history steps (the same dict objects appear in many records), so
# this writer renders each container once per nesting depth and reuses the text. The output is
# byte-identical to ``json.dumps(value, indent=4)`` (ASCII escapes included, as ProMQA's release
# has them); tests/test_procedural_candidates.py checks that on the real candidates.

INDENT = "    "
_encode_string = json.encoder.encode_basestring_ascii


def dumps_indented(value: Any) -> str:
    """``json.dumps(value, indent=4)``, without its final newline, fast."""
    pieces: list[str] = []
    _stream(value, 0, pieces, {})
    return "".join(pieces)


def write_records(path: Path, records: Any) -> None:
    """Atomic write of ``records`` as the ProMQA release lays JSON out (indent 4, a newline)."""
    write_text(path, dumps_indented(records) + "\n")


# Containers this deep are rendered to strings once and reused: the questions asked at one
# prefix share their history list and current step, and target lists and history steps are
# shared across prefixes. The record list and the records themselves stream their pieces into
# one output list, so no large intermediate string is built and copied again.
_MEMO_DEPTH = 2


def _stream(value: Any, depth: int, out: list[str], memo: dict[tuple[int, int], str]) -> None:
    kind = type(value)
    if kind is str:
        out.append(_encode_string(value))
    elif (kind is dict or kind is list) and value and depth < _MEMO_DEPTH:
        encode = _encode_string
        inner = ",\n" + INDENT * (depth + 1)
        below = depth + 1
        out.append(("{" if kind is dict else "[") + inner[1:])
        keyed = kind is dict
        items = value.items() if keyed else enumerate(value)
        for index, (k, v) in enumerate(items):
            if index:
                out.append(inner)
            if keyed:
                out.append(_key(k) + ": ")
            kind_v = type(v)
            if kind_v is str:
                out.append(encode(v))
            elif below >= _MEMO_DEPTH and (kind_v is dict or kind_v is list):
                # Inlined memo lookup: history steps are the bulk of every record.
                key = (id(v), below)
                text = memo.get(key)
                if text is None:
                    text = memo[key] = _render_container(v, below, memo)
                out.append(text)
            else:
                _stream(v, below, out, memo)
        out.append("\n" + INDENT * depth + ("}" if kind is dict else "]"))
    else:
        out.append(_render(value, depth, memo))


def _render(value: Any, depth: int, memo: dict[tuple[int, int], str]) -> str:
    kind = type(value)
    if kind is str:
        return str(_encode_string(value))
    if kind is dict or kind is list:
        key = (id(value), depth)
        text = memo.get(key)
        if text is None:
            text = _render_container(value, depth, memo)
            memo[key] = text
        return text
    return _scalar(value)


def _scalar(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return int.__repr__(value)
    return json.dumps(value)  # floats, None, and subclasses: the standard spelling


def _render_container(
    value: dict[str, Any] | list[Any], depth: int, memo: dict[tuple[int, int], str]
) -> str:
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    inner = "\n" + INDENT * (depth + 1)
    encode = _encode_string
    items: list[str] = []
    append = items.append
    below = depth + 1
    # Strings are most leaves, so they are encoded here rather than through _render's dispatch.
    if isinstance(value, dict):
        for k, v in value.items():
            text = encode(v) if type(v) is str else _render(v, below, memo)
            append(f"{_key(k)}: {text}")
        opening, closing = "{", "}"
    else:
        for v in value:
            append(encode(v) if type(v) is str else _render(v, below, memo))
        opening, closing = "[", "]"
    return opening + inner + ("," + inner).join(items) + "\n" + INDENT * depth + closing


def _key(key: Any) -> str:
    """A key as json spells it: non-string keys (numbers, booleans, None) become strings."""
    return str(_encode_string(key if type(key) is str else json.dumps(key)))


# --- reading ---------------------------------------------------------------------------------


def load_json(path: Path) -> Any:
    """Parse a JSON file, turning every way it can be unreadable into one Problem."""
    name = str(path)
    if path.is_dir():
        raise InvalidInputError([Problem(name, "", "is a folder; expected a JSON file")])
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark is read past (BOM)
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
    # A UTF-8 byte-order mark (Windows editors write one; pandas and `datasets` read past it)
    # is not JSON: it goes before parsing, so every reader accepts such a file. Bytes are
    # decoded here, as UTF-8 only: json.loads would guess UTF-16 from a BOM.
    text = text.removeprefix(BOM) if isinstance(text, str) else text.removeprefix(UTF8_BOM)
    try:
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
BOM = "\ufeff"
UTF8_BOM = BOM.encode("utf-8")


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


def jsonl_lines(path: Path, name: str | None = None) -> Iterator[tuple[int, int, bytes]]:
    """``(index, line number, line)`` for every non-blank line of a JSON Lines file, streamed:
    the record index counts non-blank lines from 0, the line number every line from 1.

    For readers that parse lines themselves (pydantic's ``model_validate_json`` is about twice as
    fast as ``json.loads`` and validating); they hand a line that is not JSON to ``parse_json`` so
    that its problem reads like every other reader's. A missing file or a folder raises one
    Problem naming the file (``name``; default: the path as given).
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
            if number == 1:  # a byte-order mark opens the file, not its first record
                raw = raw.removeprefix(UTF8_BOM)
            if not raw.strip():
                continue
            # without its line ending: a record cut inside a string reads "Unterminated string"
            yield index, number, raw.rstrip(b"\r\n")
            index += 1


def read_jsonl(path: Path, name: str | None = None) -> Iterator[tuple[int, Any]]:
    """``(index, value)`` for every non-blank line of a JSON Lines file, streamed.

    ``name`` is how problems name the file (default: the path as given). A missing file, a
    folder, text that is not UTF-8 and a line that is not JSON each raise one Problem naming
    the file and the record index (``questions.jsonl[12]: invalid JSON: ...``).
    """
    label = str(path) if name is None else name
    for index, number, raw in jsonl_lines(path, label):
        yield index, parse_json(raw, label, [index], line=number)


def read_jsonl_objects(path: Path, name: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """``read_jsonl`` for files whose every record must be a JSON object."""
    label = str(path) if name is None else name
    for index, value in read_jsonl(path, name):
        if not isinstance(value, dict):
            raise InvalidInputError([Problem.at(label, [index], "expected a JSON object")])
        yield index, value
