"""The procedural QA report: scores like the paper's Table 8, judge calibration (Tables 9-10)
and self-preference matrices (Table 11), through ``taskqa.reports``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from taskqa.jsonio import load_json
from taskqa.problems import InvalidInputError, Problem
from taskqa.procedural.scoring import (
    calibrate,
    calibration_table,
    matrix_table,
    score_table,
    self_preference,
)
from taskqa.reports import Heading, Paragraph, Report

Record = Mapping[str, Any]
HumanRatings = dict[tuple[str, str], int]


def load_human_ratings(path: Path) -> HumanRatings:
    """``[{question_id, predictor, rating}]`` with ratings 0, 1 or 2."""
    data = load_json(path)
    if not isinstance(data, list):
        raise InvalidInputError([Problem(str(path), "", "expected a list of human ratings")])
    ratings: HumanRatings = {}
    problems = []
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            problems.append(Problem.at(path, [index], "expected {question_id, predictor, rating}"))
            continue
        rating = item.get("rating")
        if rating not in (0, 1, 2) or isinstance(rating, bool):
            message = f"expected a rating of 0, 1 or 2 (got {rating!r})"
            problems.append(Problem.at(path, [index, "rating"], message))
            continue
        ratings[(str(item.get("question_id")), str(item.get("predictor")))] = int(rating)
    if problems:
        raise InvalidInputError(problems)
    return ratings


def build_report(runs: Mapping[str, Sequence[Record]], human: HumanRatings | None) -> Report:
    report = Report("Procedural QA scores")
    report.add(
        Paragraph(
            "Scores are 50 x the judge's 0-2 rating (100 x the 0/1 rating on the binary scale), "
            "averaged over examples. Unjudged examples (no readable verdict after retries) are "
            "left out of the means and counted separately."
        ),
        Heading("Scores"),
        score_table(runs),
    )
    if human is not None:
        results = [calibrate(records, human, _judge_name(records)) for records in runs.values()]
        report.add(Heading("Judge calibration"), calibration_table(results))
    every = [record for records in runs.values() for record in records if "generation" in record]
    if every:
        by_generator, by_evaluator = self_preference(every)
        report.add(
            Heading("Self-preference"),
            matrix_table(by_generator, "generator", "predictor"),
            matrix_table(by_evaluator, "predictor", "evaluator"),
        )
    return report


def _judge_name(records: Sequence[Record]) -> str:
    names = sorted({str(r["evaluation"].get("model_id", "")) for r in records})
    return ", ".join(names)
