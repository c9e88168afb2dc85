"""Prediction files: JSONL, one ``{"question_id": ..., "prediction": ...}`` object per line.

Malformed lines stop the run with the file, the line's record path and what was expected (all of
them, not only the first). Lines that are well formed but do not fit the split (an unknown id, a
second answer to the same question) are counted and listed, never dropped silently, and so are
the questions no line answers. A ``prediction`` of ``null`` says the model gave no usable answer:
it is scored as *invalid*, like a prediction outside the closed answer vocabulary.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from taskqa.answers import normalize_answer
from taskqa.evaluation.table import QuestionTable
from taskqa.jsonio import parse_json
from taskqa.problems import InvalidInputError, Problem

# Per-question outcome codes.
WRONG, CORRECT, INVALID, MISSING = 0, 1, 2, 3
OUTCOMES = ("wrong", "correct", "invalid", "missing")
EXAMPLES = 10  # ids listed per kind of problem in results.json
MAX_PROBLEMS = 200  # malformed lines reported before giving up on a file


@dataclass
class Coverage:
    """How a prediction file fits the split: what was counted instead of scored."""

    lines: int = 0
    answered: int = 0
    unknown: int = 0
    duplicates: int = 0
    missing: int = 0
    unknown_examples: list[str] = field(default_factory=list)
    duplicate_examples: list[str] = field(default_factory=list)
    missing_examples: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not (self.unknown or self.duplicates or self.missing)

    def to_json(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "answered": self.answered,
            "unknown_ids": self.unknown,
            "duplicate_ids": self.duplicates,
            "missing_ids": self.missing,
            "unknown_examples": self.unknown_examples,
            "duplicate_examples": self.duplicate_examples,
            "missing_examples": self.missing_examples,
        }


@dataclass
class Predictions:
    path: Path
    sha256: str
    outcomes: NDArray[np.int8]  # one outcome code per question of the table
    coverage: Coverage


def read_predictions(path: Path, table: QuestionTable) -> Predictions:
    """Read and score a prediction file against a split's questions."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InvalidInputError([Problem(str(path), "", "file not found")]) from None
    except IsADirectoryError:
        raise InvalidInputError(
            [Problem(str(path), "", "is a folder; expected a JSONL file")]
        ) from None
    ids, values, coverage = _parse(str(path), data)
    placed, first_lines = _place(ids, table, coverage)
    line_codes = _answer_codes(values, table)
    codes = np.full(table.size, MISSING_CODE, dtype=np.int64)
    codes[placed] = line_codes[first_lines]
    if table.aliases:
        by_question: list[str | None] = [None] * table.size
        for question, line in zip(placed.tolist(), first_lines.tolist(), strict=True):
            by_question[question] = values[line]
        codes = table.with_aliases(codes, by_question)
    outcomes = _outcomes(codes, table)
    missing = np.flatnonzero(codes == MISSING_CODE)
    coverage.missing = int(missing.size)
    coverage.missing_examples = [table.ids[i] for i in missing[:EXAMPLES]]
    coverage.answered = table.size - coverage.missing
    return Predictions(path, hashlib.sha256(data).hexdigest(), outcomes, coverage)


def read_replies(path: Path) -> tuple[dict[str, str | None], Coverage]:
    """Every ``question_id -> prediction`` of a file, the first line of an id winning (a second
    one is counted in the coverage), without a split to score against: the multiple-choice
    scorer matches the ids itself."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        raise InvalidInputError([Problem(str(path), "", "not a JSONL file")]) from None
    ids, values, coverage = _parse(str(path), data)
    replies: dict[str, str | None] = {}
    for key, value in zip(ids, values, strict=True):
        if key in replies:
            coverage.duplicates += 1
        else:
            replies[key] = value
    coverage.answered = len(replies)
    return replies, coverage


def _parse(file: str, data: bytes) -> tuple[list[str], list[str | None], Coverage]:
    try:
        # utf-8-sig: a byte-order mark before the first line is read past, as pandas and
        # `datasets` read such a file (Windows editors write one)
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InvalidInputError(
            [Problem(file, "", f"not UTF-8 text ({error.reason} at byte {error.start})")]
        ) from None
    # JSON Lines break at \n only: str.splitlines would also split at U+2028 and other
    # separators a JSON string may hold unescaped
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        message = (
            "no predictions; expected one JSON object per line with question_id and prediction"
        )
        raise InvalidInputError([Problem(file, "", message)])
    coverage = Coverage(lines=len(lines))
    fast = _parse_fast(file, lines)
    if fast is not None:
        return fast[0], fast[1], coverage
    return _parse_slow(file, text, coverage)


def _parse_fast(file: str, lines: list[str]) -> tuple[list[str], list[str | None]] | None:
    """One C-level parse of the whole file; None when anything is off (the slow path says what)."""
    try:
        records = parse_json("[" + ",".join(lines) + "]", file, [])
    except InvalidInputError:
        return None
    if len(records) != len(lines) or not all(type(r) is dict for r in records):
        return None  # a line held two values, or a value that is not an object
    ids = [r.get("question_id") for r in records]
    values = [r.get("prediction", ...) for r in records]
    if not all(type(i) is str and i for i in ids):
        return None
    if not all(v is None or type(v) is str for v in values):
        return None
    return ids, values


def _keys_problem(file: str, lines: list[str]) -> Problem | None:
    """One problem for a file none of whose lines has the expected keys (a file of another
    format, e.g. ``{"id": ..., "answer": ...}``), instead of one per line."""
    found: dict[str, int] = {}
    for line in lines:
        try:
            record = parse_json(line, file, [])
        except InvalidInputError:
            return None  # not JSON: each line's own problem says where
        if not isinstance(record, dict) or ("question_id" in record and "prediction" in record):
            return None
        for key in record:
            found[key] = found.get(key, 0) + 1
    keys = ", ".join(sorted(found, key=lambda k: (-found[k], k))[:6]) or "none"
    message = (
        'expected one JSON object per line with the keys "question_id" and "prediction"; '
        f"none of its {len(lines):,} lines has both (keys found: {keys})"
    )
    return Problem(file, "", message)


def _parse_slow(
    file: str, text: str, coverage: Coverage
) -> tuple[list[str], list[str | None], Coverage]:
    lines = [line for line in text.split("\n") if line.strip()]
    wrong_format = _keys_problem(file, lines)
    if wrong_format is not None:
        raise InvalidInputError([wrong_format])
    ids: list[str] = []
    values: list[str | None] = []
    problems: list[Problem] = []
    for index, line in enumerate(text.split("\n")):
        if not line.strip():
            continue
        parsed = _parse_line(file, index, line, problems)
        if parsed is not None:
            ids.append(parsed[0])
            values.append(parsed[1])
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise InvalidInputError(problems)
    return ids, values, coverage


def _parse_line(
    file: str, index: int, line: str, problems: list[Problem]
) -> tuple[str, str | None] | None:
    where = f"(line {index + 1})"
    try:
        record = parse_json(line, file, [index], line=index + 1)
    except InvalidInputError as error:
        problems.extend(error.problems)
        return None
    if not isinstance(record, dict):
        problems.append(Problem.at(file, [index], f"expected a JSON object {where}"))
        return None
    question_id, prediction = record.get("question_id"), record.get("prediction", ...)
    ok = True
    if not isinstance(question_id, str) or not question_id:
        got = "nothing" if question_id is None else json.dumps(question_id)
        problems.append(
            Problem.at(
                file, [index, "question_id"], f"expected a non-empty string {where}, got {got}"
            )
        )
        ok = False
    if prediction is ...:
        problems.append(Problem.at(file, [index, "prediction"], f"missing {where}"))
        ok = False
    elif prediction is not None and not isinstance(prediction, str):
        problems.append(
            Problem.at(
                file,
                [index, "prediction"],
                f"expected a string or null {where}, got {json.dumps(prediction)}",
            )
        )
        ok = False
    return (str(question_id), prediction) if ok else None


def _place(
    ids: list[str], table: QuestionTable, coverage: Coverage
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Which questions got a line, and the first line for each (repeats are counted)."""
    positions = np.fromiter(map(table.index.get, ids, repeat(-1)), dtype=np.int64, count=len(ids))
    unknown = np.flatnonzero(positions < 0)
    coverage.unknown = int(unknown.size)
    coverage.unknown_examples = [ids[i] for i in unknown[:EXAMPLES]]
    known = np.flatnonzero(positions >= 0)
    placed, first = np.unique(positions[known], return_index=True)
    first_lines = known[first]
    repeated = np.setdiff1d(known, first_lines, assume_unique=True)
    coverage.duplicates = int(repeated.size)
    coverage.duplicate_examples = [ids[i] for i in repeated[:EXAMPLES]]
    return placed, first_lines


NULL_CODE, OUT_OF_VOCABULARY, MISSING_CODE = -2, -1, -3


def _answer_codes(values: Sequence[str | None], table: QuestionTable) -> NDArray[np.int64]:
    """The vocabulary code of each line's normalized prediction (negative: null / unknown)."""
    # predictions repeat a small vocabulary, so each distinct string is normalized once
    code_of: dict[str | None, int] = {
        value: table.vocabulary.get(normalize_answer(value), OUT_OF_VOCABULARY)
        for value in set(values)
        if value is not None
    }
    code_of[None] = NULL_CODE
    return np.fromiter(map(code_of.__getitem__, values), dtype=np.int64, count=len(values))


def _outcomes(codes: NDArray[np.int64], table: QuestionTable) -> NDArray[np.int8]:
    outcomes = np.where(codes == table.answer_codes, CORRECT, WRONG).astype(np.int8)
    outcomes[(codes == NULL_CODE) | (codes == OUT_OF_VOCABULARY)] = INVALID
    outcomes[codes == MISSING_CODE] = MISSING
    return outcomes


def outcomes_of(predicted: Sequence[str | None], table: QuestionTable) -> NDArray[np.int8]:
    """Outcomes of in-memory predictions, one per question of the table, in table order."""
    return _outcomes(table.with_aliases(_answer_codes(predicted, table), predicted), table)
