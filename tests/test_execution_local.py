"""The executor layer without Ray: the local pool, shard failures, the resume journal, the
driver-death guard and the message when Ray is missing."""

from __future__ import annotations

import builtins
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from execution_support import (
    Interrupt,
    alive,
    bad_input,
    descendants,
    dies_once,
    failing,
    recorded_shards,
    square,
    start_cli,
    stop_after,
    tiny_corpus_fixture,  # noqa: F401  (the tests request it as tiny_corpus)
    tree_bytes,
    wait_until,
)
from taskqa.cli import app
from taskqa.execution import Execution, ShardFailed, ShardJournal, fingerprint, run_shards
from taskqa.problems import InvalidInputError

LABELS = [f"{i} (recording r{i})" for i in range(8)]


@pytest.mark.parametrize("workers", [1, 2])
def test_results_come_back_in_shard_order(workers: int) -> None:
    with Execution(workers=workers).open() as executor:
        assert list(executor.map(square, 5, list(range(8)), LABELS)) == [
            i * i + 5 for i in range(8)
        ]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_shard_names_its_inputs_and_carries_the_remote_traceback(workers: int) -> None:
    with _local(workers) as executor, pytest.raises(ShardFailed) as caught:
        list(executor.map(failing, 0, list(range(8)), LABELS))
    assert str(caught.value.message) == "shard 3 (recording r3) failed: ValueError: item 3 is bad"
    assert "execution_support.py" in caught.value.remote_traceback
    assert "raise ValueError" in caught.value.remote_traceback


def _local(workers: int) -> Any:
    return Execution(workers=workers).open()


def test_bad_input_in_a_worker_stays_bad_input() -> None:
    with _local(2) as executor, pytest.raises(InvalidInputError) as caught:
        list(executor.map(bad_input, 0, [0, 1], LABELS[:2]))
    assert str(caught.value.problems[0]).startswith("input.json[0]")


def test_a_worker_that_dies_mid_shard_is_replaced_and_the_shard_rerun(tmp_path: Path) -> None:
    with _local(2) as executor:
        results = list(executor.map(dies_once, str(tmp_path), list(range(6)), LABELS[:6]))
    assert results == [i * 10 for i in range(6)]
    assert (tmp_path / "died-2").exists()  # the worker did die once


def test_the_journal_replays_recorded_shards_and_refuses_another_run(tmp_path: Path) -> None:
    folder = tmp_path / ".out.shards"
    run = fingerprint("test", "inputs")
    journal = ShardJournal(folder, run, 4, resume=False)
    journal.record(0, b"7")  # not what square gives: proves it is read back, not recomputed
    journal.record(1, b"1")
    (folder / "000001.json").write_bytes(b"9")  # changed after its digest was recorded
    resumed = ShardJournal(folder, run, 4, resume=True)
    assert resumed.stored(0) == b"7"
    assert resumed.stored(1) is None and resumed.stored(2) is None
    with _local(1) as executor:
        results = list(run_shards(executor, square, 0, [10, 11, 12, 13], LABELS[:4], resumed))
    assert results == [7, 121, 144, 169] and resumed.resumed == 1
    assert resumed.stored(1) == b"121"
    with pytest.raises(InvalidInputError, match="other inputs or settings"):
        ShardJournal(folder, fingerprint("test", "other inputs"), 4, resume=True)
    fresh = ShardJournal(folder, fingerprint("test", "other inputs"), 4, resume=False)
    assert fresh.stored(0) is None


def test_executor_ray_without_ray_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tiny_corpus: Path
) -> None:
    real_import = builtins.__import__

    def no_ray(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "ray" or name.startswith("ray."):
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    monkeypatch.delitem(sys.modules, "ray", raising=False)
    result = CliRunner().invoke(
        app,
        [
            "generate",
            str(tiny_corpus),
            "--out",
            str(tmp_path / "q.jsonl"),
            "--executor",
            "ray",
        ],
    )
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == [
        "taskqa: --executor ray needs Ray, which is not installed: pip install 'taskqa[ray]'"
    ]
    assert not (tmp_path / "q.jsonl").exists()


def test_ray_address_needs_the_ray_executor(tmp_path: Path, tiny_corpus: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "generate",
            str(tiny_corpus),
            "--out",
            str(tmp_path / "q.jsonl"),
            "--ray-address",
            "auto",
        ],
    )
    assert result.exit_code == 2 and "--executor ray" in result.output


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_no_pool_worker_outlives_a_killed_driver(tmp_path: Path, tiny_corpus: Path) -> None:
    out = tmp_path / "q.jsonl"
    driver = start_cli("generate", str(tiny_corpus), "--out", str(out), "--workers", "2")
    journal = tmp_path / ".q.jsonl.shards"
    try:
        assert wait_until(lambda: recorded_shards(journal) >= 1, 60), "no shard finished"
        workers = descendants(driver.pid)
        assert len(workers) >= 2, "the pool has not started its workers"
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait()
        # PR_SET_PDEATHSIG ends them at once; 3 s leaves room for a loaded machine
        assert wait_until(lambda: not alive(workers), 3.0), f"still alive: {alive(workers)}"
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert not out.exists()  # the output appears only when the run completes
    resumed = CliRunner().invoke(
        app, ["generate", str(tiny_corpus), "--out", str(out), "--workers", "2", "--resume"]
    )
    assert resumed.exit_code == 0, resumed.output
    assert "resuming:" in resumed.output
    direct = CliRunner().invoke(
        app, ["generate", str(tiny_corpus), "--out", str(tmp_path / "d.jsonl")]
    )
    assert direct.exit_code == 0, direct.output
    assert out.read_bytes() == (tmp_path / "d.jsonl").read_bytes()
    assert not journal.exists()


def test_an_interrupted_render_resumes_to_the_same_files(
    tmp_path: Path, tiny_corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from taskqa.execution import journal_beside
    from taskqa.household.corpus_videos import render_corpus
    from taskqa.household.options import RenderOptions

    small = RenderOptions(fps=1.0, width=64, height=64)
    for name in ("fresh", "resumed"):
        shutil.copytree(tiny_corpus, tmp_path / name)
    render_corpus(tmp_path / "fresh", options=small, limit=3)
    corpus = tmp_path / "resumed"
    journal = journal_beside(corpus / "videos")
    with pytest.raises(Interrupt):
        render_corpus(corpus, options=small, limit=3, on_progress=stop_after(2), journal=journal)
    assert recorded_shards(journal) == 2
    resumed = Execution(workers=2, resume=True)
    render_corpus(corpus, options=small, limit=3, execution=resumed, journal=journal)
    assert "resuming: 2 of 3 shards" in capsys.readouterr().err
    assert tree_bytes(corpus) == tree_bytes(tmp_path / "fresh") and not journal.exists()


def test_a_resumed_run_redoes_a_shard_whose_video_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from taskqa.execution import journal_beside
    from taskqa.verify.benchmark import build_benchmark
    from taskqa.verify.render import KitchenRenderOptions

    small = KitchenRenderOptions(fps=2.0, size=32)
    build_benchmark(tmp_path / "fresh", 1, 3, render=small)
    out = tmp_path / "resumed"
    with pytest.raises(Interrupt):
        build_benchmark(out, 1, 3, tick=stop_after(3), render=small)
    media = journal_beside(out) / "media" / "videos"
    damaged = sorted(media.glob("*.mp4"))[0]
    damaged.write_bytes(b"not the video")
    build_benchmark(out, 1, 3, render=small, execution=Execution(resume=True))
    assert "resuming: 2 of 5 shards" in capsys.readouterr().err
    assert tree_bytes(out) == tree_bytes(tmp_path / "fresh")
