"""Predictions validation, answer normalization, per-tag accuracy, bootstrap and paired tests."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import test_evaluation_fixture
from problem_text import by_name
from taskqa.answers import NORMALIZATION_VERSION, collisions, normalize_answer
from taskqa.benchmark.folder import Benchmark
from taskqa.evaluation.evaluate import evaluate, results_json
from taskqa.evaluation.metrics import (
    BootstrapConfig,
    clip_weights,
    mcnemar_exact,
    paired_bootstrap_p,
)
from taskqa.evaluation.predictions import CORRECT, INVALID, MISSING, WRONG, read_predictions
from taskqa.evaluation.table import build_table
from taskqa.problems import InvalidInputError

benchmark_dir = test_evaluation_fixture.benchmark_dir  # the shared session fixture


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Cup.", "cup"),
        ("  get   something from  the fridge ", "get something from fridge"),
        ("turn-on lamp", "turn on lamp"),
        ("TRUE", "yes"),
        ("Nope", "no"),
        ("yes!", "yes"),
        ("\uff43\uff55\uff50", "cup"),  # full-width letters fold under NFKC
        ("an apple's peel", "apple s peel"),
        ("The person closed the drawer.", "close drawer"),  # version 3: verb forms, subject
        ("the cutting board", "cutting board"),  # an object's name keeps its first word
    ],
)
def test_normalization_rules(text: str, expected: str) -> None:
    assert normalize_answer(text) == expected
    assert NORMALIZATION_VERSION == "4"


def test_collisions_list_answers_that_become_one() -> None:
    assert collisions(["turn-on lamp", "turn on lamp", "cup"]) == {
        "turn on lamp": ["turn on lamp", "turn-on lamp"]
    }


def _write(path: Path, lines: list[object]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def test_malformed_lines_name_file_line_and_field(benchmark_dir: Path, tmp_path: Path) -> None:
    bench = Benchmark(benchmark_dir)
    table = build_table(bench.questions("normal", "test"), bench.answers())
    path = _write(
        tmp_path / "bad.jsonl",
        [
            {"question_id": table.ids[0], "prediction": "yes"},
            '{"question_id": "x", "prediction": ',
            {"question_id": 7, "prediction": "yes"},
            {"question_id": table.ids[1]},
            {"question_id": table.ids[2], "prediction": ["yes"]},
            "[1, 2]",
        ],
    )
    with pytest.raises(InvalidInputError) as caught:
        read_predictions(path, table)
    found = [by_name(p) for p in caught.value.problems]
    assert found == [
        "bad.jsonl[1]: invalid JSON: Expecting value at line 2, column 36",
        "bad.jsonl[2].question_id: expected a non-empty string (line 3), got 7",
        "bad.jsonl[3].prediction: missing (line 4)",
        'bad.jsonl[4].prediction: expected a string or null (line 5), got ["yes"]',
        "bad.jsonl[5]: expected a JSON object (line 6)",
    ]


def test_unknown_duplicate_missing_null_and_out_of_vocabulary(
    benchmark_dir: Path, tmp_path: Path
) -> None:
    bench = Benchmark(benchmark_dir)
    table = build_table(bench.questions("normal", "test"), bench.answers())
    ids, answers = table.ids, table.answers
    wrong = next(a for a in sorted(table.vocabulary) if a != answers[1])
    lines: list[object] = [
        {"question_id": ids[0], "prediction": answers[0].upper(), "extra": 1},
        {"question_id": ids[0], "prediction": "something else"},  # duplicate: first line wins
        {"question_id": "no-such-id", "prediction": "yes"},
        {"question_id": ids[1], "prediction": wrong},
        {"question_id": ids[2], "prediction": None},
        {"question_id": ids[3], "prediction": "a purple elephant"},
        *({"question_id": i, "prediction": a} for i, a in zip(ids[5:], answers[5:], strict=True)),
    ]
    predictions = read_predictions(_write(tmp_path / "p.jsonl", lines), table)
    coverage = predictions.coverage
    assert (coverage.unknown, coverage.duplicates, coverage.missing) == (1, 1, 1)
    assert coverage.unknown_examples == ["no-such-id"]
    assert coverage.duplicate_examples == [ids[0]] and coverage.missing_examples == [ids[4]]
    assert list(predictions.outcomes[:5]) == [CORRECT, WRONG, INVALID, INVALID, MISSING]
    assert np.all(predictions.outcomes[5:] == CORRECT)


def _official(records: list[tuple[list[str], bool]]) -> dict[str, float]:
    """EgoTaskQA's ReasongingTypeAccCalculator, re-typed: each tag occurrence counts once."""
    true_count: Counter[str] = Counter()
    all_count: Counter[str] = Counter()
    for tags, right in records:
        for tag in tags:
            true_count[tag] += int(right)
            all_count[tag] += 1
    return {tag: true_count[tag] / all_count[tag] for tag in all_count}


def test_official_tag_accuracy_matches_the_released_calculator(
    benchmark_dir: Path, tmp_path: Path
) -> None:
    bench = Benchmark(benchmark_dir)
    questions = bench.questions("normal", "test")
    # right on every third question, to get uneven per-tag accuracies
    lines = [
        {"question_id": q.id, "prediction": q.question.answer if i % 3 == 0 else "zzz"}
        for i, q in enumerate(questions)
    ]
    _write(tmp_path / "third.jsonl", lines)
    results = results_json(evaluate(bench, "normal/test", [tmp_path / "third.jsonl"]))
    model = results["models"][1]
    expected = _official(
        [(q.question.reasoning_type.split("$"), i % 3 == 0) for i, q in enumerate(questions)]
    )
    got = {tag: cell["accuracy"] for tag, cell in model["breakdowns"]["official_tags"].items()}
    assert got == pytest.approx(expected, abs=1e-6)
    # multi-label: type groups overlap, so their sizes add up to at least the question count
    sizes = sum(c["questions"] for c in model["breakdowns"]["type"].values())
    assert sizes >= len(questions)
    # both Open/Binary readings are present and labelled
    scoring = results["scoring"]["open_binary"]
    assert set(scoring) == {"open_binary_structural", "open_binary_answer"}
    by_structure = model["breakdowns"]["open_binary_structural"]
    by_answer = model["breakdowns"]["open_binary_answer"]
    assert list(by_structure) == ["open", "binary", "all"] == list(by_answer)
    verify = sum(q.question.structural == "verify" for q in questions)
    yes_no = sum(q.question.answer in ("yes", "no") for q in questions)
    assert by_structure["binary"]["questions"] == verify
    assert by_answer["binary"]["questions"] == yes_no
    # the readings differ only on a yes/no answer to a query (an executability question, out
    # of the default set since issue 33); each count above is its own reading's
    assert model["breakdowns"]["overall"]["all"]["invalid"] == len(
        [i for i in range(len(questions)) if i % 3]
    )


def test_bootstrap_is_seeded_and_brackets_the_accuracy(benchmark_dir: Path) -> None:
    bench = Benchmark(benchmark_dir)
    first = results_json(evaluate(bench, "normal/test", [], config=BootstrapConfig(300, seed=4)))
    again = results_json(evaluate(bench, "normal/test", [], config=BootstrapConfig(300, seed=4)))
    other = results_json(evaluate(bench, "normal/test", [], config=BootstrapConfig(300, seed=5)))
    cell = first["models"][0]["breakdowns"]["overall"]["all"]
    assert cell == again["models"][0]["breakdowns"]["overall"]["all"]
    assert cell["ci95"] != other["models"][0]["breakdowns"]["overall"]["all"]["ci95"]
    low, high = cell["ci95"]
    assert low < cell["accuracy"] < high and high - low < 0.2
    table = build_table(bench.questions("normal", "test"), bench.answers())
    weights = clip_weights(table, BootstrapConfig(50, seed=1))
    assert weights.shape == (50, len(table.clips))
    assert np.all(weights.sum(axis=1) == len(table.clips))  # each resample draws every clip slot


def test_mcnemar_exact_and_paired_bootstrap_p() -> None:
    # b = 1, c = 9: p = 2 * P(X <= 1), X ~ Bin(10, 1/2) = 2 * 11 / 1024
    assert mcnemar_exact(1, 9) == pytest.approx(22 / 1024)
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)
    assert mcnemar_exact(0, 0) == 1.0 and mcnemar_exact(5, 5) == 1.0
    assert 0.0 < mcnemar_exact(400_000, 401_000) < 1.0  # no underflow on large counts
    assert paired_bootstrap_p(np.array([0.1, 0.2, 0.3])) == 0.0
    assert paired_bootstrap_p(np.array([-0.1, 0.1, 0.2, 0.3])) == 0.5


def test_paired_comparison_in_results(benchmark_dir: Path, tmp_path: Path) -> None:
    bench = Benchmark(benchmark_dir)
    questions = bench.questions("normal", "test")
    perfect = _write(
        tmp_path / "perfect.jsonl",
        [{"question_id": q.id, "prediction": q.question.answer} for q in questions],
    )
    results = results_json(evaluate(bench, "normal/test", [perfect]))
    [comparison] = results["comparisons"]
    assert comparison["first"] == "most-likely" and comparison["second"] == "perfect"
    assert comparison["only_first_correct"] == 0
    assert comparison["difference"] < 0 and comparison["difference_ci95"][1] < 0
    assert comparison["mcnemar_exact_p"] < 1e-6 and comparison["paired_bootstrap_p"] == 0.0
    assert results["benchmark"]["manifest_sha256"] == bench.manifest_sha256
    assert results["normalization"]["version"] == NORMALIZATION_VERSION
