"""Pair accuracy wherever accuracy is shown (issue 35, item 6, the evaluation part).

Pair accuracy (both questions of a minimal pair right, docs/minimal-pairs.md) was in
results.json and the report only: the command line's summary and ``--split all/test`` left it
out. A file scored on the questions it answers (``--allow-partial``) is scored on the pairs it
answers both sides of. The build report of the same benchmark shows no table without rows.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import test_minimal_pairs
from taskqa.benchmark.folder import Benchmark
from taskqa.cli import app

paired = test_minimal_pairs.paired  # a benchmark built with --pairs (module fixture)
runner = CliRunner()


def _answers(bench: Benchmark, family: str) -> dict[str, str]:
    return {q.id: q.question.answer for q in bench.questions(family, "test")}


def _write(path: Path, answers: dict[str, str]) -> Path:
    path.write_text(
        "".join(json.dumps({"question_id": i, "prediction": a}) + "\n" for i, a in answers.items())
    )
    return path


def test_pair_accuracy_is_shown_beside_accuracy(paired: Path, tmp_path: Path) -> None:
    bench = Benchmark(paired)
    pairs = [p for p in bench.pairs() if p["split"] == "test"]
    assert pairs
    right = _write(tmp_path / "right.jsonl", _answers(bench, "pairs"))
    out = tmp_path / "pairs"
    args = ["evaluate", "-b", str(paired), "-p", str(right), "-o", str(out), "--split",
            "pairs/test", "--resamples", "20"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"pair accuracy 100.00% over {len(pairs):,} pairs" in result.output
    markdown = (out / "report.md").read_text()
    assert "pair accuracy (%)" in markdown and f"100.0 ({len(pairs):,} pairs)" in markdown


def test_split_all_shows_pair_accuracy(paired: Path, tmp_path: Path) -> None:
    bench = Benchmark(paired)
    every: dict[str, str] = {}
    for family in ("normal", "pairs"):
        every.update(_answers(bench, family))
    right = _write(tmp_path / "right.jsonl", every)
    out = tmp_path / "families"
    args = ["evaluate", "-b", str(paired), "-p", str(right), "-o", str(out), "--split",
            "all/test", "--resamples", "20", "--allow-partial"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "families.json").read_text())
    pairs = summary["families"]["pairs"]["pair_accuracy"]
    assert pairs["right"]["pair_accuracy"] == 1.0
    assert pairs["most-likely"]["pair_accuracy"] == 0.0  # one answer per text: never both
    markdown = (out / "families.md").read_text()
    assert "Pair accuracy (%)" in markdown
    assert f"| pairs | 0.00 ({pairs['right']['pairs']:,} pairs) | 100.00 (" in markdown
    assert "Pair accuracy (%)" in result.output


def test_a_partial_file_is_scored_on_the_pairs_it_answers(paired: Path, tmp_path: Path) -> None:
    bench = Benchmark(paired)
    pairs = [p for p in bench.pairs() if p["split"] == "test"]
    answers = _answers(bench, "pairs")
    # both sides of the first pair, one side of every other: one pair is answered
    kept = {pairs[0]["a"], pairs[0]["b"], *(p["a"] for p in pairs[1:])}
    partial = _write(tmp_path / "partial.jsonl", {i: a for i, a in answers.items() if i in kept})
    out = tmp_path / "r"
    args = ["evaluate", "-b", str(paired), "-p", str(partial), "-o", str(out), "--split",
            "pairs/test", "--resamples", "20", "--allow-partial"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    model = json.loads((out / "results.json").read_text())["models"][1]
    assert model["partial"] and model["pairs"]["all"] == {"pairs": 1, "pair_accuracy": 1.0}
    assert "pair accuracy 100.00% over 1 pairs" in result.output


def test_the_build_report_shows_no_empty_table(paired: Path) -> None:
    lines = (paired / "diagnostics" / "report.md").read_text().splitlines()
    for index, line in enumerate(lines):
        if line.startswith("|---"):
            following = lines[index + 1] if index + 1 < len(lines) else ""
            assert following.startswith("|"), f"a table without rows under {lines[index - 1]}"
