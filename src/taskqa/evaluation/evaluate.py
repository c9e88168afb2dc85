"""Scoring prediction files on a benchmark split, and the results.json that records it all."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from taskqa import __version__
from taskqa.answers import NORMALIZATION_RULES, NORMALIZATION_VERSION, collisions
from taskqa.benchmark.diagnostics import chance_values
from taskqa.benchmark.folder import PAIR_FAMILY, Benchmark, parse_split_name
from taskqa.evaluation.baselines.most_likely import most_likely_predictions
from taskqa.evaluation.metrics import (
    BootstrapConfig,
    Comparison,
    GroupScores,
    clip_weights,
    compare,
    score_groups,
)
from taskqa.evaluation.pair_scores import pair_scores
from taskqa.evaluation.predictions import (
    MISSING,
    Coverage,
    Predictions,
    outcomes_of,
    read_predictions,
)
from taskqa.evaluation.table import QuestionTable, build_table
from taskqa.jsonio import dumps, load_json
from taskqa.outputs import prediction_meta_path
from taskqa.problems import InvalidInputError, Problem

RESULTS_FORMAT = "taskqa-evaluation"
RESULTS_FORMAT_VERSION = 1
MOST_LIKELY = "most-likely"
# What a model is scored on, from its meta file's "scored_on": every question of the split
# (the default; a question without a line counts as missing, i.e. not correct), or only the
# questions its file answers. The second is for a human study that asked a sample of the split
# (EgoTaskQA's Human row is accuracy on the sampled questions): scored on the whole split, the
# questions nobody was asked would count as wrong answers. A file that leaves questions
# unanswered is scored the second way too when `--allow-partial` lets it through (it is
# "partial"), and its coverage (answered of the split's questions) is shown beside its score.
SCORED_ON_SPLIT, SCORED_ON_ANSWERED = "split", "answered"
SCORED_ON = (SCORED_ON_SPLIT, SCORED_ON_ANSWERED)


@dataclass
class ModelRun:
    name: str
    source: str  # the prediction file, or how a built-in baseline was made
    sha256: str | None
    outcomes: NDArray[np.int8]
    coverage: Coverage
    scores: GroupScores
    meta: dict[str, Any] = field(default_factory=dict)
    # the questions it is scored on (scored_on "answered"); None: every question of the split
    scored: NDArray[np.bool_] | None = None
    # scored on the questions it answers because --allow-partial let an incomplete file through
    # (not because its meta file says so)
    partial: bool = False

    @property
    def scored_on(self) -> str:
        return SCORED_ON_SPLIT if self.scored is None else SCORED_ON_ANSWERED

    def questions_scored(self, table: QuestionTable) -> int:
        return table.size if self.scored is None else int(self.scored.sum())


@dataclass
class Evaluation:
    benchmark: Benchmark
    split: str
    table: QuestionTable
    config: BootstrapConfig
    runs: list[ModelRun]
    comparisons: list[Comparison]
    # each question's chance of a guess being right (1/k of the answers it allows; see
    # taskqa.benchmark.diagnostics.chance_values): the reference a blind model is judged by
    chance: NDArray[np.float64] | None = None


def model_names(paths: list[Path], names: list[str] | None) -> list[str]:
    """The given names, else the meta file's ``report_name`` (``taskqa studio`` labels its
    exports "Human"), else file stems; made unique with a counter."""
    if names:
        if len(names) != len(paths):
            raise ValueError(f"{len(names)} names for {len(paths)} prediction files")
        return names
    chosen: list[str] = []
    for path in paths:
        label = read_meta(path).get("report_name")
        stem = label if isinstance(label, str) and label else path.name.removesuffix(".jsonl")
        name, n = stem, 2
        while name in chosen:
            name, n = f"{stem}-{n}", n + 1
        chosen.append(name)
    return chosen


def read_meta(path: Path) -> dict[str, Any]:
    """The sidecar ``NAME.meta.json`` a baseline or adapter writes beside its predictions."""
    sidecar = prediction_meta_path(path)
    if not sidecar.is_file():
        return {}
    meta = load_json(sidecar)
    return meta if isinstance(meta, dict) else {}


def scored_on(path: Path, meta: dict[str, Any]) -> str:
    """The meta file's ``scored_on`` ("split" when absent), refused when it is anything else."""
    value = meta.get("scored_on", SCORED_ON_SPLIT)
    if value not in SCORED_ON:
        expected = " or ".join(json.dumps(v) for v in SCORED_ON)
        message = f"expected {expected}, got {json.dumps(value)}"
        raise InvalidInputError([Problem.at(prediction_meta_path(path), ["scored_on"], message)])
    return str(value)


def evaluate(
    benchmark: Benchmark,
    split: str,
    prediction_paths: list[Path],
    names: list[str] | None = None,
    config: BootstrapConfig | None = None,
    with_most_likely: bool = True,
    allow_partial: bool = False,
    other_ids: bool = False,
) -> Evaluation:
    """Score ``prediction_paths`` on ``split``.

    A file made for another benchmark (its meta file names another manifest sha256) or that
    leaves questions of the split unanswered or answers ids the split does not have is refused,
    one problem per file, unless ``allow_partial``: a 0% from a mismatched file looks like a
    result. With ``allow_partial`` a file that leaves questions unanswered is scored on the
    questions it answers (its coverage says how many), and one that answers none is still
    refused: there is nothing to score. A human study's file (``"scored_on": "answered"``) may
    answer a sample. With ``other_ids`` a file may also answer questions of other splits (one
    file for every family).
    """
    config = config or BootstrapConfig()
    family, part = split.split("/")
    questions = benchmark.questions(family, part)
    table = build_table(questions, benchmark.answers())
    weights = clip_weights(table, config)
    runs: list[ModelRun] = []
    # a most-likely file for this split already is that column; a second copy would only repeat it
    passed = [read_meta(path) for path in prediction_paths]
    if any(m.get("baseline") == MOST_LIKELY and m.get("split") == split for m in passed):
        with_most_likely = False
    if with_most_likely:
        predicted = most_likely_predictions(benchmark.questions(family, "train"), questions)
        outcomes = outcomes_of(predicted, table)
        runs.append(
            ModelRun(
                MOST_LIKELY,
                f"built in: most frequent {family}/train answer per reasoning type",
                None,
                outcomes,
                Coverage(lines=table.size, answered=table.size),
                score_groups(table, outcomes, weights, config),
                {"baseline": MOST_LIKELY},
            )
        )
    refused: list[Problem] = []
    for name, path in zip(model_names(prediction_paths, names), prediction_paths, strict=True):
        run = _run(name, read_predictions(path, table), table, weights, config, allow_partial)
        refused += mismatch(path, run, benchmark, split, table, other_ids, allow_partial)
        runs.append(run)
    if refused:
        raise InvalidInputError(refused)
    comparisons = [
        compare(
            (a.name, b.name),
            table,
            a.outcomes,
            b.outcomes,
            weights,
            config,
            _both(a.scored, b.scored),
        )  # fmt: skip
        for i, a in enumerate(runs)
        for b in runs[i + 1 :]
    ]
    chance = np.asarray(
        chance_values(
            [q.question.model_dump() for q in benchmark.questions(family, "train")],
            [q.question.model_dump() for q in questions],
        ),
        dtype=np.float64,
    )
    return Evaluation(benchmark, split, table, config, runs, comparisons, chance)


def mismatch(
    path: Path,
    run: ModelRun,
    benchmark: Benchmark,
    split: str,
    table: QuestionTable,
    other_ids: bool = False,
    allow_partial: bool = False,
) -> list[Problem]:
    """Why ``run``'s file does not fit this benchmark split (empty when it does, and whenever
    ``allow_partial`` is given and the file answers at least one question)."""
    coverage = run.coverage
    if allow_partial:
        if coverage.answered:
            return []
        message = (
            f"answers none of the {table.size:,} questions of {split} (made for another "
            "benchmark or split?): nothing to score, even with --allow-partial"
        )
        return [Problem(str(path), "", message)]
    hint = "; pass --allow-partial to score it anyway"
    made_for = run.meta.get("benchmark_manifest_sha256")
    if isinstance(made_for, str) and made_for != benchmark.manifest_sha256:
        message = (
            f"made for another benchmark: its benchmark_manifest_sha256 is {made_for[:12]}…, "
            f"this benchmark's manifest.json is {benchmark.manifest_sha256[:12]}…{hint}"
        )
        return [Problem(str(prediction_meta_path(path)), "", message)]
    missing = 0 if run.scored is not None else coverage.missing
    unknown = 0 if other_ids else coverage.unknown
    if not (unknown or missing):
        return []
    parts = [f"answers {coverage.answered:,} of the {table.size:,} questions of {split}"]
    if unknown:
        parts.append(
            f"{coverage.unknown:,} of its {coverage.lines:,} lines name ids {split} does not "
            f"have (e.g. {coverage.unknown_examples[0]!r})"
        )
    if not coverage.answered:
        parts.append("made for another benchmark or split?")
        hint = ""  # --allow-partial would find nothing to score either
    elif missing:
        hint = f"; pass --allow-partial to score it on the {coverage.answered:,} it answers"
    else:
        hint = "; pass --allow-partial to score it, leaving out the lines of other ids"
    return [Problem(str(path), "", "; ".join(parts) + hint)]


def _both(
    first: NDArray[np.bool_] | None, second: NDArray[np.bool_] | None
) -> NDArray[np.bool_] | None:
    """The questions two runs were both scored on (None: the whole split)."""
    if first is None:
        return second
    return first if second is None else first & second


def _run(
    name: str,
    predictions: Predictions,
    table: QuestionTable,
    weights: NDArray[np.float64],
    config: BootstrapConfig,
    allow_partial: bool = False,
) -> ModelRun:
    """A file scored on the split; on the questions it answers where its meta file says
    ``scored_on`` "answered", or where ``allow_partial`` lets through a file that leaves some
    unanswered (``partial``: a missing answer is not a wrong one, as the refusal promised)."""
    meta = read_meta(predictions.path)
    scored = None
    sampled = scored_on(predictions.path, meta) == SCORED_ON_ANSWERED
    partial = allow_partial and not sampled and predictions.coverage.missing > 0
    if sampled or partial:
        scored = predictions.outcomes != MISSING
        if sampled and not scored.any():
            message = 'scored_on is "answered" but no line answers a question of the split'
            raise InvalidInputError([Problem(str(predictions.path), "", message)])
    return ModelRun(
        name,
        str(predictions.path),
        predictions.sha256,
        predictions.outcomes,
        predictions.coverage,
        score_groups(table, predictions.outcomes, weights, config, scored),
        meta,
        scored,
        partial,
    )


def results_json(evaluation: Evaluation) -> dict[str, Any]:
    """Every number of the evaluation plus everything that determines it."""
    bench, table, config = evaluation.benchmark, evaluation.table, evaluation.config
    return {
        "format": RESULTS_FORMAT,
        "format_version": RESULTS_FORMAT_VERSION,
        "taskqa_version": __version__,
        "benchmark": {
            "path": str(bench.root),
            "manifest_sha256": bench.manifest_sha256,
            "benchmark_taskqa_version": bench.manifest.get("taskqa_version"),
            "split": evaluation.split,
            "questions": table.size,
            "clips": len(table.clips),
            "answer_vocabulary": len(table.vocabulary),
        },
        "normalization": {
            "version": NORMALIZATION_VERSION,
            "rules": list(NORMALIZATION_RULES),
            "collisions": collisions(bench.answers()),
        },
        "scoring": {
            "correct": (
                "the normalized prediction equals the normalized answer, or one of its "
                "answer_aliases (the world's raw form of an answer said in plain words) that is "
                "not itself another answer"
            ),
            "invalid": "null, or a prediction outside the closed answer vocabulary",
            "missing": (
                "no line for the question: a file with missing questions is refused unless "
                '--allow-partial, which scores it on the questions it answers ("partial": true)'
            ),
            "denominator": (
                "every question of the split (invalid counts as not correct), except for a "
                'model scored_on "answered": the questions its file has a line for'
            ),
            "scored_on_answered": (
                'a model whose meta file says "scored_on": "answered" (a human study that '
                "asked a sample), or whose incomplete file --allow-partial let through "
                '("partial": true), is scored only on the questions its file has a line for; '
                "its questions_scored and coverage.answered say how many, and comparisons with "
                "it use those questions"
            ),
            "open_binary": {
                "open_binary_structural": "open = structural query, binary = structural verify",
                "open_binary_answer": "binary = the answer is yes or no, open = any other answer",
            },
        },
        "bootstrap": {
            "unit": "clip",
            "resamples": config.resamples,
            "seed": config.seed,
            "confidence": config.confidence,
            "interval": "percentile",
        },
        "models": [
            _with_pairs(_model_json(run, table), run, evaluation) for run in evaluation.runs
        ],
        "comparisons": [_comparison_json(c) for c in evaluation.comparisons],
        "chance": _chance_json(evaluation),
    }


def _chance_json(evaluation: Evaluation) -> dict[str, dict[str, float | None]]:
    """Mean chance per breakdown group (a fraction, like accuracies): 1/k of the answers each
    question allows, averaged; a blind model is judged against the larger of this and most
    likely (docs/balancing.md, "Diagnostics")."""
    table, chance = evaluation.table, evaluation.chance
    if chance is None or not len(chance):
        return {}
    groups = sum(len(b.groups) for b in table.breakdowns)
    sums = np.bincount(table.pair_groups, weights=chance[table.pair_questions], minlength=groups)
    counts = np.bincount(table.pair_groups, minlength=groups)
    return {
        breakdown.name: {
            group: _number(sums[i] / counts[i]) if counts[i] else None
            for i, group in enumerate(breakdown.groups, start=breakdown.offset)
        }
        for breakdown in table.breakdowns
    }


def _with_pairs(model: dict[str, Any], run: ModelRun, evaluation: Evaluation) -> dict[str, Any]:
    """A model's results with its pair accuracy, on the minimal pairs' split family."""
    family, split = parse_split_name(evaluation.split)
    pairs = evaluation.benchmark.pairs() if family == PAIR_FAMILY else []
    if pairs:
        questions = {q.id: q.question for q in evaluation.benchmark.questions(family, split)}
        model["pairs"] = pair_scores(pairs, evaluation.table, run.outcomes, questions, run.scored)
    return model


def _model_json(run: ModelRun, table: QuestionTable) -> dict[str, Any]:
    scores = run.scores
    # a group without questions (no yes/no question in the split) has no accuracy: null, not 0
    empty = scores.total == 0
    breakdowns: dict[str, Any] = {}
    for breakdown in table.breakdowns:
        groups: dict[str, Any] = {}
        for offset, group in enumerate(breakdown.groups):
            i = breakdown.offset + offset
            groups[group] = {
                "questions": int(scores.total[i]),
                "correct": int(scores.correct[i]),
                "wrong": int(
                    scores.total[i] - scores.correct[i] - scores.invalid[i] - scores.missing[i]
                ),
                "invalid": int(scores.invalid[i]),
                "missing": int(scores.missing[i]),
                "accuracy": None if empty[i] else _number(scores.accuracy[i]),
                "ci95": [_number(scores.low[i]), _number(scores.high[i])],
            }
        breakdowns[breakdown.name] = groups
    return {
        "name": run.name,
        "source": run.source,
        "sha256": run.sha256,
        "meta": run.meta,
        # answered of the split's questions, beside every score of a partial file
        "coverage": {
            **run.coverage.to_json(),
            "questions": table.size,
            "answered_share": _number(run.coverage.answered / table.size) if table.size else None,
        },
        "scored_on": run.scored_on,
        "partial": run.partial,
        "questions_scored": run.questions_scored(table),
        "accuracy": breakdowns["overall"]["all"]["accuracy"],
        "breakdowns": breakdowns,
    }


def _comparison_json(comparison: Comparison) -> dict[str, Any]:
    return {
        "first": comparison.first,
        "second": comparison.second,
        "questions": comparison.questions,
        "accuracy_first": comparison.accuracy_first,
        "accuracy_second": comparison.accuracy_second,
        "difference": comparison.difference,
        "difference_ci95": [comparison.difference_low, comparison.difference_high],
        "only_first_correct": comparison.only_first_correct,
        "only_second_correct": comparison.only_second_correct,
        "mcnemar_exact_p": comparison.mcnemar_p,
        "paired_bootstrap_p": comparison.bootstrap_p,
    }


def _number(value: float) -> float | None:
    return None if np.isnan(value) else round(float(value), 6)


def dump_results(results: dict[str, Any]) -> str:
    return dumps(results)
