"""The benchmark folder describes its own clips (issue: oracle 0.87% with `--clip-seconds 10`).

`taskqa generate --clip-seconds 10` then `taskqa build --candidates` used to rebuild clip
windows from a default configuration in five places, so the oracle found 1 of 115 clips and
`videos.csv` listed 1 of 66 test clips. Every reader now takes the windows from `clips.jsonl`.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from problem_text import run_ok
from taskqa.benchmark.folder import Benchmark
from taskqa.cli import app
from taskqa.programs.clips import read_clips
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain

runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    root = tmp_path_factory.mktemp("clips")
    config = SimulationConfig(episodes=10, seed=3)
    write_simulated_corpus(root / "corpus", config, simulate_corpus(config, domain), domain)
    run_ok("generate", str(root / "corpus"), "--clip-seconds", "10", "--out", str(root / "q.jsonl"))
    run_ok("build", str(root / "corpus"), "--candidates", str(root / "q.jsonl"), "--out",
         str(root / "b"), "--balance-by", "type")  # fmt: skip
    return root


def test_generate_writes_the_clips_it_cut(built: Path) -> None:
    clips = read_clips(built / "q.clips.jsonl")
    assert clips
    assert {r.generation["clips"]["seconds"] for r in clips.values()} == {10.0}
    questions = [json.loads(line) for line in (built / "q.jsonl").open()]
    assert {q["clip"] for q in questions} <= clips.keys()


def test_the_manifest_records_the_candidates_own_generation(built: Path) -> None:
    benchmark = Benchmark(built / "b")
    assert benchmark.generation_config().clips.seconds == 10.0
    assert benchmark.manifest["config"]["generation"]["clips"]["seconds"] == 10.0


def test_the_oracle_scores_100_and_videos_csv_covers_every_test_clip(built: Path) -> None:
    bench = built / "b"
    run_ok("baseline", "oracle", "-b", str(bench), "-o", str(built / "oracle.jsonl"))
    run_ok("evaluate", "-b", str(bench), "-p", str(built / "oracle.jsonl"), "-o", str(built / "ev"))
    results = json.loads((built / "ev" / "results.json").read_text())
    (oracle,) = [m for m in results["models"] if m["name"] == "oracle"]
    overall = oracle["breakdowns"]["overall"]["all"]
    assert overall["invalid"] == 0 and overall["missing"] == 0
    assert overall["correct"] == overall["questions"] > 30
    test_clips = {q.question.clip for q in Benchmark(bench).questions("normal", "test")}
    with (bench / "videos.csv").open(encoding="utf-8", newline="") as stream:
        listed = {row["clip"] for row in csv.DictReader(stream)}
    assert test_clips and test_clips <= listed
    clips = read_clips(bench / "clips.jsonl")
    every = {q.question.clip for f in ("normal", "indirect") for s in ("train", "val", "test")
             for q in Benchmark(bench).questions(f, s)}  # fmt: skip
    assert set(clips) == every


def test_check_reads_the_benchmark_clips(built: Path) -> None:
    out = run_ok("check", str(built / "b" / "splits" / "normal" / "test.jsonl"), "--annotations",
               str(built / "corpus"))  # fmt: skip
    assert "answers reproduced" in out


def test_candidates_without_their_clips_file_are_refused(built: Path, tmp_path: Path) -> None:
    for suffix in (".jsonl", ".summary.json"):
        (tmp_path / f"q{suffix}").write_bytes((built / f"q{suffix}").read_bytes())
    result = runner.invoke(
        app,
        [
            "build",
            str(built / "corpus"),
            "--candidates",
            str(tmp_path / "q.jsonl"),
            "--out",
            str(tmp_path / "b"),
        ],  # fmt: skip
    )
    assert result.exit_code == 1
    assert "q.clips.jsonl" in result.output and "taskqa generate" in result.output
    assert not (tmp_path / "b").exists()
