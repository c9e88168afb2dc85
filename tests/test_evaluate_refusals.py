"""`taskqa evaluate` refuses predictions that do not belong to the benchmark split.

A new user scored predictions made for another benchmark, and a file with every id wrong: both
gave 0.00%, a full report and exit 0. A file keyed `id`/`answer` gave 200 lines of problems.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import test_evaluation_fixture
from taskqa.benchmark.folder import Benchmark
from taskqa.cli import app
from taskqa.evaluation.evaluate import evaluate
from taskqa.outputs import prediction_meta_path
from taskqa.problems import InvalidInputError

runner = CliRunner()
benchmark_dir = test_evaluation_fixture.benchmark_dir  # the shared session fixture


def _right_answers(bench: Path, path: Path) -> list[dict[str, str]]:
    lines = [
        {"question_id": q.id, "prediction": q.question.answer}
        for q in Benchmark(bench).questions("normal", "test")
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return lines


def _evaluate(bench: Path, predictions: Path, out: Path, *extra: str) -> tuple[int, str]:
    args = ["evaluate", "-b", str(bench), "-p", str(predictions), "-o", str(out),
            "--resamples", "20", *extra]  # fmt: skip
    result = runner.invoke(app, args)
    return result.exit_code, result.output


def test_every_id_wrong_is_refused_in_one_line(benchmark_dir: Path, tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.jsonl"
    lines = _right_answers(benchmark_dir, wrong)
    wrong.write_text(
        "".join(
            json.dumps({**line, "question_id": "x" + line["question_id"]}) + "\n" for line in lines
        )  # fmt: skip
    )
    code, output = _evaluate(benchmark_dir, wrong, tmp_path / "r")
    assert code == 1
    problems = [line for line in output.splitlines() if line.startswith("✗")]
    assert len(problems) == 1, output
    assert f"answers 0 of the {len(lines):,} questions of normal/test" in problems[0]
    assert "another benchmark or split" in problems[0]
    assert "--allow-partial" not in problems[0]  # it would find nothing to score either
    assert not (tmp_path / "r").exists()
    # --allow-partial scores a file on the questions it answers: this one answers none
    code, output = _evaluate(benchmark_dir, wrong, tmp_path / "r", "--allow-partial")
    assert code == 1, output
    assert "answers none of the" in output and "nothing to score" in output
    assert not (tmp_path / "r").exists()


def test_predictions_for_another_benchmark_are_refused(
    benchmark_dir: Path,
    tmp_path: Path,
) -> None:
    predictions = tmp_path / "model.jsonl"
    _right_answers(benchmark_dir, predictions)
    prediction_meta_path(predictions).write_text(
        json.dumps({"benchmark_manifest_sha256": "0" * 64})
    )
    code, output = _evaluate(benchmark_dir, predictions, tmp_path / "r")
    assert code == 1
    assert "model.meta.json: made for another benchmark" in output
    prediction_meta_path(predictions).write_text(
        json.dumps({"benchmark_manifest_sha256": Benchmark(benchmark_dir).manifest_sha256})
    )
    code, output = _evaluate(benchmark_dir, predictions, tmp_path / "r")
    assert code == 0, output


def test_a_partial_file_is_refused_unless_allowed(benchmark_dir: Path) -> None:
    bench = Benchmark(benchmark_dir)
    first = bench.questions("normal", "test")[0]
    path = benchmark_dir.parent / "partial.jsonl"
    path.write_text(json.dumps({"question_id": first.id, "prediction": first.question.answer}))
    with pytest.raises(InvalidInputError) as refused:
        evaluate(bench, "normal/test", [path], with_most_likely=False)
    (problem,) = refused.value.problems
    assert "answers 1 of the" in str(problem)
    assert "pass --allow-partial to score it on the 1 it answers" in str(problem)
    allowed = evaluate(bench, "normal/test", [path], with_most_likely=False, allow_partial=True)
    assert allowed.runs[0].coverage.missing == allowed.table.size - 1
    # scored on what it answers, as the refusal said: one right answer of one is 100%
    assert allowed.runs[0].partial and allowed.runs[0].questions_scored(allowed.table) == 1
    assert allowed.runs[0].scores.accuracy[0] == 1.0


def test_a_file_of_another_format_gets_one_line(benchmark_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.jsonl"
    lines = _right_answers(benchmark_dir, other)
    other.write_text(
        "".join(
            json.dumps({"id": line["question_id"], "answer": line["prediction"]}) + "\n"
            for line in lines
        )  # fmt: skip
    )
    code, output = _evaluate(benchmark_dir, other, tmp_path / "r")
    assert code == 1
    problems = [line for line in output.splitlines() if line.startswith("✗")]
    assert len(problems) == 1, output
    assert '"question_id" and "prediction"' in problems[0]
    assert f"none of its {len(lines):,} lines has both (keys found: answer, id)" in problems[0]


def test_a_line_separator_inside_a_prediction_is_not_a_line_break(
    benchmark_dir: Path,
    tmp_path: Path,
) -> None:
    predictions = tmp_path / "odd.jsonl"
    lines = _right_answers(benchmark_dir, predictions)
    lines[0]["prediction"] = "a\u2028b\u0085c"
    predictions.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    code, output = _evaluate(benchmark_dir, predictions, tmp_path / "r")
    assert code == 0, output
