"""Scoring the description parser against EgoTV's gold graphs (``descriptions_sample.tsv``).

The file has no header and three TAB-separated columns: description, a natural-language graph
and the DSL graph. Two exact-match figures are reported. *Strict* compares DSL strings. *Text
determined* first drops the ``sliced`` suffix of object names (``applesliced`` -> ``apple``):
EgoTV names the object after the trial's pickup type, so a pre-sliced apple makes
``StateQuery(applesliced,clean)`` from the same words "apple is cleaned" that elsewhere give
``StateQuery(apple,clean)``; no parser can recover that from the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from taskqa.problems import InvalidInputError, Problem
from taskqa.verify.graph import QueryGraph, graph_edit_distance, parse_dsl
from taskqa.verify.parser import DescriptionError, parse_description

_PRESLICED = re.compile(r"\b([a-z]+)sliced,")


@dataclass(frozen=True)
class GoldGraph:
    description: str
    dsl: str


@dataclass(frozen=True)
class ParserScore:
    rows: int
    exact_strict: float
    exact_text_determined: float
    mean_ged_strict: float
    mean_ged_text_determined: float
    unparsed: int

    def as_dict(self) -> dict[str, float | int]:
        return {
            "rows": self.rows,
            "exact_match_strict": self.exact_strict,
            "exact_match_text_determined": self.exact_text_determined,
            "mean_graph_edit_distance_strict": self.mean_ged_strict,
            "mean_graph_edit_distance_text_determined": self.mean_ged_text_determined,
            "unparsed": self.unparsed,
        }


def read_gold_graphs(path: Path) -> list[GoldGraph]:
    problems: list[Problem] = []
    rows: list[GoldGraph] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (FileNotFoundError, UnicodeDecodeError) as error:
        raise InvalidInputError([Problem.at(path, [], f"cannot read: {error}")]) from None
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        columns = line.split("\t")
        if len(columns) != 3:
            message = f"expected 3 TAB-separated columns, got {len(columns)}"
            problems.append(Problem.at(path, [number], message))
            continue
        try:
            parse_dsl(columns[2])
        except ValueError as error:
            problems.append(Problem.at(path, [number, 2], f"bad DSL graph: {error}"))
            continue
        rows.append(GoldGraph(columns[0], columns[2]))
    if problems:
        raise InvalidInputError(problems)
    return rows


def without_presliced(dsl: str) -> str:
    return _PRESLICED.sub(r"\1,", dsl)


def score_parser(gold: Sequence[GoldGraph]) -> ParserScore:
    distances: dict[tuple[str, str], float] = {}
    strict = determined = unparsed = 0
    ged_strict = ged_determined = 0.0
    for row in gold:
        try:
            predicted = parse_description(row.description)
        except DescriptionError:
            unparsed += 1
            predicted = QueryGraph(())
        text = predicted.to_dsl()
        strict += text == row.dsl
        determined += text == without_presliced(row.dsl)
        ged_strict += _distance(distances, text, row.dsl)
        ged_determined += _distance(distances, text, without_presliced(row.dsl))
    count = max(len(gold), 1)
    return ParserScore(
        len(gold), strict / count, determined / count, ged_strict / count,
        ged_determined / count, unparsed,
    )  # fmt: skip


def _distance(cache: dict[tuple[str, str], float], predicted: str, expected: str) -> float:
    key = (predicted, expected)
    if key not in cache:
        cache[key] = (
            0.0 if predicted == expected
            else graph_edit_distance(parse_dsl(predicted), parse_dsl(expected))
        )  # fmt: skip
    return cache[key]
