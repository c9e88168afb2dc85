"""Scores from judged records: the overall/clean/noisy/per-type table, judge calibration against
human ratings, and self-preference matrices.

A score is the mean of judge x (100 / top rating) over judged records: 50 x the 0-2 rating for
the ternary scale, as in ProMQA. Unjudged records (no readable verdict after retries) are left
out of the mean and counted in their own column, so a failing judge shows instead of hiding.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from taskqa.procedural.candidates import QUESTION_TYPES
from taskqa.procedural.judge import SCALE_MAX
from taskqa.reports import Cell, Table

Record = Mapping[str, Any]


def record_score(record: Record) -> float | None:
    evaluation = record["evaluation"]
    verdict = evaluation.get("judge")
    if verdict is None:
        return None
    scale = str(evaluation.get("template_type", "ternary")).split("-")[0]
    return float(verdict) * 100.0 / SCALE_MAX.get(scale, 2)


def mean_score(records: Iterable[Record]) -> float | None:
    scores = [s for s in (record_score(r) for r in records) if s is not None]
    return sum(scores) / len(scores) if scores else None


@dataclass(frozen=True)
class ScoreRow:
    name: str
    overall: float | None
    clean: float | None
    noisy: float | None
    by_type: dict[str, float | None]
    judged: int
    unjudged: int


def score_row(name: str, records: Sequence[Record]) -> ScoreRow:
    return ScoreRow(
        name,
        mean_score(records),
        mean_score(r for r in records if not r["is_noisy"]),
        mean_score(r for r in records if r["is_noisy"]),
        {t: mean_score(r for r in records if r["type"] == t) for t in QUESTION_TYPES},
        sum(record_score(r) is not None for r in records),
        sum(record_score(r) is None for r in records),
    )


def score_table(runs: Mapping[str, Sequence[Record]]) -> Table:
    """One row per model (or human run), micro-averaged over examples; 0-100."""
    headers = ["Model", "Overall", "Clean", "Noisy", *QUESTION_TYPES, "Judged", "Unjudged"]
    rows = []
    for name, records in runs.items():
        row = score_row(name, records)
        rows.append([
            name, row.overall, row.clean, row.noisy,
            *(row.by_type[t] for t in QUESTION_TYPES), row.judged, row.unjudged,
        ])  # fmt: skip
    return Table(headers, rows, caption="Judge scores (0-100, mean of 50 x rating)")


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r; None when either side is constant or there are fewer than two pairs."""
    if len(xs) != len(ys) or len(xs) < 2:
        return None
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    cov = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    var_x = sum((x - mean_x) ** 2 for x in xs)
    var_y = sum((y - mean_y) ** 2 for y in ys)
    if var_x == 0 or var_y == 0:
        return None
    return cov / math.sqrt(var_x * var_y)


@dataclass(frozen=True)
class Calibration:
    judge: str
    template: str
    pairs: int
    pearson: float | None
    match_accuracy: float | None
    unjudged: int


def human_on_scale(human: int, scale: str) -> int:
    """Human ratings are ternary; on the binary scale only a full match (2) counts as 1."""
    return int(human == 2) if scale == "binary" else human


def calibrate(
    judged: Sequence[Record], human: Mapping[tuple[str, str], int], judge: str
) -> Calibration:
    """Agreement of one judge run with human ratings keyed by (question_id, predictor)."""
    template = str(judged[0]["evaluation"]["template_type"]) if judged else ""
    scale = template.split("-")[0]
    machine: list[float] = []
    people: list[float] = []
    unjudged = 0
    for record in judged:
        key = (str(record["question_id"]), predictor_of(record))
        if key not in human:
            continue
        verdict = record["evaluation"].get("judge")
        if verdict is None:
            unjudged += 1
            continue
        machine.append(float(verdict))
        people.append(float(human_on_scale(human[key], scale)))
    matches = sum(m == p for m, p in zip(machine, people, strict=True))
    return Calibration(
        judge,
        template,
        len(machine),
        pearson(machine, people),
        matches / len(machine) if machine else None,
        unjudged,
    )


def predictor_of(record: Record) -> str:
    if "human_answer" in record:
        return "human"
    return str(record.get("prediction", {}).get("model_id", ""))


def calibration_table(results: Sequence[Calibration]) -> Table:
    rows: list[list[Cell]] = [
        [c.judge, c.template, c.pairs, c.pearson, c.match_accuracy, c.unjudged] for c in results
    ]
    return Table(
        ["Judge", "Template", "Pairs", "Pearson", "Match accuracy", "Unjudged"],
        rows,
        caption="Judge calibration against human ratings",
        digits=3,
    )


def matrix_table(
    cells: Mapping[tuple[str, str], float | None], rows_name: str, columns_name: str
) -> Table:
    """A matrix of scores, e.g. generator x predictor; missing cells show as '-'."""
    row_keys = sorted({r for r, _ in cells})
    column_keys = sorted({c for _, c in cells})
    body: list[list[Cell]] = [[r, *(cells.get((r, c)) for c in column_keys)] for r in row_keys]
    return Table(
        [f"{rows_name} \\ {columns_name}", *column_keys],
        body,
        caption=f"Mean score by {rows_name} and {columns_name}",
    )


def self_preference(
    runs: Sequence[Record],
) -> tuple[dict[tuple[str, str], float | None], dict[tuple[str, str], float | None]]:
    """Generator x predictor and predictor x evaluator mean scores over judged records."""
    by_gp: dict[tuple[str, str], list[Record]] = {}
    by_pe: dict[tuple[str, str], list[Record]] = {}
    for record in runs:
        generator = str(record["generation"]["model_id"])
        predictor = predictor_of(record)
        evaluator = str(record["evaluation"]["model_id"])
        by_gp.setdefault((generator, predictor), []).append(record)
        by_pe.setdefault((predictor, evaluator), []).append(record)
    return (
        {key: mean_score(records) for key, records in by_gp.items()},
        {key: mean_score(records) for key, records in by_pe.items()},
    )
