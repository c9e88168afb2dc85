"""Candidate questions as compact columns, for the global balancing and splitting passes.

Balancing looks at every candidate at once (CLEVR's per-shard balancing is the mistake to avoid),
so a candidate is held as a handful of small values plus the byte offset of its line; the full
record is read back only for the questions that survive.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskqa.jsonio import parse_json
from taskqa.problems import InvalidInputError, Problem
from taskqa.questions.tags import BINARY_ANSWERS, category_tags, reasoning_type

FIELDS = (
    *("id", "answer", "types", "scopes", "semantic", "structural", "reference", "template"),
    *("question", "params"),
)


def phrasing(record: Mapping[str, Any]) -> int:
    """What a text-only model sees of a question, as a 64-bit key: template, shown parameters
    and text (lower-cased, spaces collapsed). Questions with one key cannot be told apart
    without the video."""
    text = " ".join(str(record["question"]).lower().split())
    params = "\x1e".join(f"{k}\x1d{v}" for k, v in sorted(record["params"].items()))
    key = f"{record['template']}\x1f{params}\x1f{text}"
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")


def balancing_key(record: Mapping[str, Any], with_reference: bool = False) -> str:
    """The balancing key: the reasoning type without the reference (or with it)."""
    return reasoning_type(record, "reference" if with_reference else "structural")


@dataclass
class Candidates:
    """One row per candidate question, in file order."""

    path: Path
    ids: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)  # reasoning type (balancing key)
    clips: list[str] = field(default_factory=list)
    recordings: list[str] = field(default_factory=list)
    templates: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    phrasings: list[int] = field(default_factory=list)  # see ``phrasing``
    # how many answers the question allows (``answer_choices``); 0: an open vocabulary
    choices: list[int] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    categories: Counter[str] = field(default_factory=Counter)  # questions per tag (multi-label)

    def __len__(self) -> int:
        return len(self.ids)

    def is_binary(self, row: int) -> bool:
        return self.answers[row] in BINARY_ANSWERS

    def records(self, rows: list[int]) -> Iterator[dict[str, object]]:
        """The full records of ``rows``, in the order given; a line that no longer parses (the
        file changed after it was read) fails naming the file and the row."""
        with self.path.open("rb") as stream:
            for row in rows:
                stream.seek(self.offsets[row])
                yield parse_json(stream.readline(), self.path, [row])


def read_candidates(
    path: Path,
    with_reference: bool = False,
    on_progress: Callable[[int], None] | None = None,
) -> Candidates:
    """Read a questions JSONL file (``taskqa generate``'s output) into columns."""
    table = Candidates(path)
    seen: set[str] = set()
    offset = 0
    with path.open("rb") as stream:
        for index, line in enumerate(stream):
            start, offset = offset, offset + len(line)
            if not line.strip():
                continue
            record = _parse(path, index, line)
            identifier = str(record["id"])
            if identifier in seen:
                message = f"duplicate question id {identifier}; expected unique ids"
                raise InvalidInputError([Problem.at(path, [index, "id"], message)])
            seen.add(identifier)
            table.ids.append(identifier)
            table.answers.append(str(record["answer"]))
            table.types.append(balancing_key(record, with_reference))
            table.clips.append(str(record["clip"]))
            table.recordings.append(str(record["recording"]))
            table.templates.append(str(record["template"]))
            table.references.append(str(record["reference"]))
            table.phrasings.append(phrasing(record))
            choices = record.get("answer_choices") or []
            table.choices.append(len(choices) if isinstance(choices, list) else 0)
            table.offsets.append(start)
            table.categories.update(category_tags(record))
            if on_progress is not None and index % 10000 == 0:
                on_progress(index)
    return table


def _parse(path: Path, index: int, line: bytes) -> dict[str, object]:
    record = parse_json(line, path, [index], line=index + 1)
    if not isinstance(record, dict):
        raise InvalidInputError([Problem.at(path, [index], "expected a JSON object")])
    missing = [name for name in (*FIELDS, "clip", "recording") if name not in record]
    if missing:
        raise InvalidInputError(
            [
                Problem.at(path, [index, name], "missing; a question record has it")
                for name in missing
            ]
        )
    if not isinstance(record["params"], dict):
        message = "expected an object of shown template parameters"
        raise InvalidInputError([Problem.at(path, [index, "params"], message)])
    return record
