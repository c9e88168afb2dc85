"""Verifiers, metrics, the evaluate command and its report."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from taskqa.problems import InvalidInputError
from taskqa.verify.benchmark import build_benchmark
from taskqa.verify.cli import app
from taskqa.verify.evaluation import f1_and_accuracy, load_benchmark, run_verifier, summarize
from taskqa.verify.parser import parse_description
from taskqa.verify.scorers import (
    AlignedVerifier,
    LogitsFileScorer,
    NoisyOracleScorer,
    OracleScorer,
)


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("verify-eval") / "bench"
    build_benchmark(out, trials_per_split=30, seed=2)
    return out


def test_metrics_at_one_half() -> None:
    result = f1_and_accuracy([1, 1, 0, 0], [0.9, 0.4, 0.6, 0.1])
    assert result == {"f1": 50.0, "accuracy": 50.0, "pairs": 4}


def test_oracle_is_perfect_and_noise_or_the_symmetric_mean_rule_hurt(bench: Path) -> None:
    pairs = load_benchmark(bench)
    oracle = summarize(pairs, run_verifier(AlignedVerifier(OracleScorer()), pairs, lambda: None))
    assert all(v["f1"] == 100.0 and v["accuracy"] == 100.0 for v in oracle["splits"].values())
    symmetric = summarize(
        pairs, run_verifier(AlignedVerifier(OracleScorer(symmetric=True)), pairs, lambda: None)
    )
    assert all(v["accuracy"] < 80 for v in symmetric["splits"].values())
    noisy = run_verifier(AlignedVerifier(NoisyOracleScorer(0.2, seed=1)), pairs, lambda: None)
    assert noisy == run_verifier(
        AlignedVerifier(NoisyOracleScorer(0.2, seed=1)), pairs, lambda: None
    )
    assert summarize(pairs, noisy)["splits"]["train"]["accuracy"] < 100
    assert set(oracle["test_axes"]) >= {"complexity=1", "complexity=3", "ordering=0", "ordering=2"}


def test_learned_scorer_logits_file(bench: Path, tmp_path: Path) -> None:
    pairs = load_benchmark(bench)[:20]
    path = tmp_path / "logits.jsonl"
    lines = []
    for pair in pairs:
        count = len(parse_description(pair.view.description).queries)
        sign = 1.0 if pair.label else -1.0
        lines.append(
            json.dumps(
                {
                    "pair_id": pair.view.pair_id,
                    "logits": (sign * np.ones((count, len(pair.view.segments)))).tolist(),
                }
            )
        )
    path.write_text("\n".join(lines) + "\n")
    probabilities = run_verifier(AlignedVerifier(LogitsFileScorer(path)), pairs, lambda: None)
    assert [p >= 0.5 for p in probabilities] == [bool(p.label) for p in pairs]
    path.write_text('{"pair_id": "x"}\n')
    with pytest.raises(InvalidInputError, match=r"logits.jsonl\[0\]"):
        LogitsFileScorer(path)


def test_malformed_benchmark_is_reported_with_record_path(bench: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "episodes.jsonl").write_bytes((bench / "episodes.jsonl").read_bytes())
    first = json.loads((bench / "pairs.jsonl").read_text().splitlines()[0])
    del first["label"]
    (broken / "pairs.jsonl").write_text(json.dumps(first) + "\n")
    with pytest.raises(InvalidInputError, match=r"pairs.jsonl\[0\].label: missing"):
        load_benchmark(broken)


def test_build_and_evaluate_commands_write_results_and_report(tmp_path: Path) -> None:
    runner = CliRunner()
    bench = tmp_path / "bench"
    built = runner.invoke(app, ["build", "--out", str(bench), "--trials", "4", "--seed", "1"])
    assert built.exit_code == 0, built.output
    out = tmp_path / "results"
    result = runner.invoke(app, ["evaluate", str(bench), "--out", str(out), "--noise", "0.1"])
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    assert set(results) == {"oracle", "oracle_symmetric", "noisy_oracle_p0.1", "text2text"}
    assert results["oracle"]["splits"]["novel_tasks"]["f1"] == 100.0
    assert 0 <= results["text2text"]["splits"]["abstraction"]["f1"] <= 100
    report = (out / "report.md").read_text()
    assert "| oracle |" in report and "f1_by_complexity_ordering.png" in report
    assert (out / "figures" / "f1_by_complexity_ordering.png").read_bytes().startswith(b"\x89PNG")
    assert (out / "report.html").is_file()
