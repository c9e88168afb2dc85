"""Record files in the release's layout (``json.dump(records, indent=4)`` plus a newline), fast.

The standard library's encoder falls back to pure Python whenever ``indent`` is set, which makes
writing the 28 MB candidate file the slowest part of the ``candidates`` command. Candidate
records share their history steps (the same dict objects appear in many records), so this writer
renders each container once per nesting depth and reuses the text. The output is byte-identical
to ``json.dumps(value, indent=4)``; a test checks that on the real candidates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from taskqa.atomic import write_text

INDENT = "    "
_encode_string = json.encoder.encode_basestring_ascii


def dumps_indented(value: Any) -> str:
    pieces: list[str] = []
    _stream(value, 0, pieces, {})
    return "".join(pieces)


def write_records(path: Path, records: Any) -> None:
    """Atomic write of ``records`` as the release lays JSON out."""
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
