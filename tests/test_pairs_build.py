"""`build --pairs` on a partly rendered corpus, as a new user runs it (issue 35, items 5 and 7).

The corpus: four simulated episodes, two of them rendered (`render --limit 2`, tiny frames). A
build with `--pairs` says what it will do and each stage as it goes, also into a log; renders
the second recordings of the rendered episodes only, so no pair has one clip to see and the
other not; and leaves a benchmark the exports take (with --allow-missing-videos, as without
pairs). `taskqa render BENCH` then renders what is missing and lists it in videos.csv. A build
interrupted (Ctrl-C) keeps its work beside the output, says so, and `--resume` takes it up.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

import taskqa.benchmark.pairs as pairs_module
import taskqa.household.corpus_videos as corpus_videos_module
from taskqa.atomic import sha256_file
from taskqa.benchmark.folder import EVERY_FAMILY, PAIR_CANDIDATES, Benchmark
from taskqa.benchmark.progress import ProgressLines
from taskqa.cli import app
from taskqa.household.corpus_videos import render_corpus
from taskqa.household.options import RenderOptions
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain

ROOT = Path(__file__).resolve().parent.parent
BUILD = ["--pairs", "--target", "300", "--balance-by", "type"]
STAMP = re.compile(r"^\[\d+:\d\d:\d\d\] ")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    """Four simulated episodes, the first two rendered (as `render --limit 2`)."""
    folder = tmp_path_factory.mktemp("partly-rendered") / "corpus"
    config = SimulationConfig(episodes=4, seed=5)
    write_simulated_corpus(folder, config, simulate_corpus(config, domain), domain)
    options = RenderOptions(fps=0.5, width=32, height=32, views=("first",), backend="tiny")
    render_corpus(folder, options=options, limit=2)
    return folder


def _build(corpus: Path, out: Path, *extra: str) -> Any:
    return CliRunner().invoke(app, ["build", str(corpus), "--out", str(out), *BUILD, *extra])


@pytest.fixture(scope="module")
def built(corpus: Path) -> tuple[Path, str]:
    """The benchmark and what the build wrote to stderr (a log: not a terminal)."""
    out = corpus.parent / "bench"
    result = _build(corpus, out)
    assert result.exit_code == 0, result.output
    return out, result.stderr


def _video_rows(bench: Path) -> list[dict[str, str]]:
    with (bench / "videos.csv").open(newline="") as stream:
        return list(csv.DictReader(stream))


def _sides_rendered(bench: Path) -> list[tuple[bool, bool]]:
    """For each pair: whether its first and its second recording have video files."""
    rows = _video_rows(bench)
    rendered: dict[str, bool] = {}
    for row in rows:
        here = (bench / row["video"]).is_file()
        rendered[row["recording"]] = rendered.get(row["recording"], True) and here
    return [(rendered[p["recording_a"]], rendered[p["recording_b"]]) for p in _pairs(bench)]


def _pairs(bench: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (bench / "pairs.jsonl").open()]


def test_a_build_says_its_plan_and_every_stage_in_a_log(built: tuple[Path, str]) -> None:
    _, log = built
    lines = log.splitlines()
    assert lines and all(STAMP.match(line) for line in lines[:-1]), log
    plan = lines[0]
    assert "building from 4 recordings (2 of them rendered)" in plan
    assert "--pairs: 4 episodes simulated again" in plan
    assert "the 2 rendered episodes" in plan
    for stage in (
        r"generating candidates: 4/4 recordings in [\d.]+ s \([\d.]+ recordings/s\)",
        r"grounding: \d+/\d+ recordings",
        r"balancing",
        r"splitting",
        r"minimal pairs: re-simulating each episode with one change: 4/4 episodes in [\d.]+ s "
        r"\([\d.]+ episodes/s\)",
        r"minimal pairs: grounding check",
        r"minimal pairs: rendering second recordings: (\d+)/\1 recordings in",
        r"writing the video list and report",
    ):
        assert re.search(stage, log), f"no line matches {stage!r}:\n{log}"


def test_progress_lines_come_while_a_stage_runs() -> None:
    """Redirected, a long stage prints its count and rate every `every_s` seconds, not only at
    the end (the log of an 18-minute build stayed empty until its last line)."""
    console = Console(record=True, width=200, force_terminal=False)
    now = [0.0]
    lines = ProgressLines(console, every_s=10.0, clock=lambda: now[0])
    lines.stage("minimal pairs: re-simulating", 30, "episodes")
    for _ in range(30):
        now[0] += 1.0
        lines.advance()
    lines.stage("minimal pairs: grounding check")
    now[0] += 15.0
    lines.status("grounding: 40/80 recordings (2.7/s)")
    now[0] += 2.0
    lines.status("grounding: 80/80 recordings (4.7/s)")
    lines.finish()
    said = console.export_text().splitlines()
    assert said == [
        "[0:00:00] minimal pairs: re-simulating: 0/30 episodes",
        "[0:00:10] minimal pairs: re-simulating: 10/30 episodes (1.0 episodes/s)",
        "[0:00:20] minimal pairs: re-simulating: 20/30 episodes (1.0 episodes/s)",
        "[0:00:30] minimal pairs: re-simulating: 30/30 episodes (1.0 episodes/s)",
        "[0:00:30] minimal pairs: re-simulating: 30/30 episodes in 30.0 s (1.0 episodes/s)",
        "[0:00:30] minimal pairs: grounding check",
        "[0:00:45] grounding: 40/80 recordings (2.7/s)",
        "[0:00:47] grounding: 80/80 recordings (4.7/s) in 17.0 s",
    ]


def test_a_pair_is_rendered_on_both_sides_or_neither(built: tuple[Path, str]) -> None:
    bench, _ = built
    sides = _sides_rendered(bench)
    assert sides
    assert all(a == b for a, b in sides), "a pair with one side rendered"
    assert any(a for a, _ in sides), "the rendered episodes' pairs are rendered"
    assert not all(a for a, _ in sides)  # two episodes were never rendered
    # drawn: the two rendered episodes and their second recordings, nothing else
    videos = Benchmark(bench).corpus_dir / "videos"
    drawn = {path.parent.name for path in videos.glob("*/*.mp4")}
    assert len({name.split("~")[0] for name in drawn}) == 2
    assert any("~" in name for name in drawn)


def test_the_exports_take_it_as_they_take_a_build_without_pairs(
    built: tuple[Path, str], tmp_path: Path
) -> None:
    bench, _ = built
    runner = CliRunner()
    refused = runner.invoke(app, ["export", "hf", str(bench), "--out", str(tmp_path / "no")])
    assert refused.exit_code == 1 and "have no video file" in refused.output
    assert f"taskqa render {bench}" in " ".join(refused.output.split())
    for kind in ("hf", "lmms-eval", "vlmevalkit"):
        out = tmp_path / kind
        command = ["export", kind, str(bench), "--out", str(out), "--allow-missing-videos"]
        result = runner.invoke(app, command)
        assert result.exit_code == 0, result.output
    # the rendered pairs' clips are in the export, both sides
    clips = {path.stem for path in (tmp_path / "hf" / "videos").glob("*.mp4")}
    assert clips


def test_render_bench_renders_what_is_missing_and_lists_it(
    built: tuple[Path, str], tmp_path: Path
) -> None:
    bench = tmp_path / "bench"
    shutil.copytree(built[0], bench)
    runner = CliRunner()
    limited = runner.invoke(app, ["render", str(bench / "corpus"), "--limit", "1"])
    assert limited.exit_code == 1 and "--limit" in limited.output
    other_fps = runner.invoke(app, ["render", str(bench), "--fps", "2"])
    assert other_fps.exit_code == 1 and "--fps 0.5" in " ".join(other_fps.output.split())
    result = runner.invoke(app, ["render", str(bench)])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "is a benchmark: rendering the" in said and "every one with its video file" in said
    rows = _video_rows(bench)
    assert rows and not [row for row in rows if not (bench / row["video"]).is_file()]
    assert all(a and b for a, b in _sides_rendered(bench))
    # the manifest lists every file of the folder with its sha256, as a build writes it
    manifest = json.loads((bench / "manifest.json").read_text())
    files = {
        path.relative_to(bench).as_posix(): sha256_file(path)
        for path in bench.rglob("*")
        if path.is_file() and path.name != "manifest.json"
    }
    assert manifest["files"] == files
    # now every export takes it without --allow-missing-videos
    exported = runner.invoke(app, ["export", "hf", str(bench), "--out", str(tmp_path / "hf")])
    assert exported.exit_code == 0, exported.output
    # again: nothing left to render, nothing changes
    before = (bench / "manifest.json").read_bytes()
    again = runner.invoke(app, ["render", str(bench / "corpus")])
    assert again.exit_code == 0 and "kept" in again.output
    assert (bench / "manifest.json").read_bytes() == before


def _counting(
    monkeypatch: pytest.MonkeyPatch,
    module: Any,
    name: str,
    stop_at: int | None = None,
) -> list[int]:
    """Count the calls of ``module.name`` (a shard function, run in this process with one
    worker); the ``stop_at``-th raises KeyboardInterrupt, as Ctrl-C would."""
    calls: list[int] = []
    real: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any) -> Any:
        calls.append(1)
        if stop_at is not None and len(calls) == stop_at:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_an_interrupted_build_keeps_its_work_and_resumes(
    corpus: Path, built: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "bench"
    kept = tmp_path / ".bench.shards-pairs"
    # Ctrl-C while the third episode is simulated again
    with monkeypatch.context() as patch:
        simulated = _counting(patch, pairs_module, "_pair_shard", stop_at=3)
        first = _build(corpus, out)
    assert first.exit_code == 130
    said = " ".join(first.stderr.split())
    assert "build interrupted" in said and "--resume" in said
    assert "minimal-pair episodes: 2 of 4 done (.bench.shards-pairs)" in said
    assert "generated candidates: all" in said
    assert not out.exists() and len(list(kept.glob("*.sha256"))) == 2
    # resumed: the two episodes are not simulated again; Ctrl-C while rendering the second
    # recordings, after the first of them
    with monkeypatch.context() as patch:
        simulated = _counting(patch, pairs_module, "_pair_shard")
        rendered = _counting(patch, corpus_videos_module, "_render_one", stop_at=2)
        second = _build(corpus, out, "--resume")
    assert second.exit_code == 130, second.output
    assert len(simulated) == 2 and len(rendered) == 2
    said = " ".join(second.stderr.split())
    assert "resuming: the candidates generated before" in said
    assert re.search(r"rendered second recordings: 1 of (\d+) done", said), said
    total = int(re.findall(r"rendered second recordings: 1 of (\d+) done", said)[0])
    # resumed again: nothing simulated, one recording fewer rendered, and the same benchmark
    # as a build never interrupted, byte for byte
    with monkeypatch.context() as patch:
        simulated = _counting(patch, pairs_module, "_pair_shard")
        rendered = _counting(patch, corpus_videos_module, "_render_one")
        third = _build(corpus, out, "--resume")
    assert third.exit_code == 0, third.output
    assert len(simulated) == 0 and len(rendered) == total - 1
    assert (out / "manifest.json").read_bytes() == (built[0] / "manifest.json").read_bytes()
    assert not list(tmp_path.glob(".bench.shards*"))  # a finished build removes what it kept


def test_the_folder_doc_names_every_family_and_file(built: tuple[Path, str]) -> None:
    doc = (ROOT / "docs" / "benchmark-folder.md").read_text()
    for family in EVERY_FAMILY:
        assert f"{family}/train.jsonl" in doc or f"{family}/{{train,val,test}}.jsonl" in doc
    for name in (PAIR_CANDIDATES, "pairs.jsonl", "clips.jsonl", "videos.csv"):
        assert (built[0] / name).is_file() and name in doc, name
