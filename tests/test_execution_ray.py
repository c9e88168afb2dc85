"""The Ray back-end on a local instance (2 CPUs, no dashboard) started once for the
session: every command's files are byte-identical to the local executor's, a killed worker is
retried, and a killed driver leaves nothing running and resumes to the same output."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from execution_support import (
    TASKQA,
    alive,
    descendants,
    recorded_shards,
    start_cli,
    tiny_corpus_fixture,  # noqa: F401  (the tests request it as tiny_corpus)
    tree_bytes,
    wait_until,
)
from taskqa.cli import app

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[str]:
    if ray.is_initialized():
        ray.shutdown()
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
    )
    yield str(ray.get_runtime_context().gcs_address)
    ray.shutdown()


def _taskqa(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def test_simulate_on_ray_is_byte_identical(ray_instance: str, tmp_path: Path) -> None:
    common = ["simulate", "--episodes", "30", "--seed", "5", "--out"]
    _taskqa(*common, tmp_path / "local")
    _taskqa(*common, tmp_path / "ray", "--executor", "ray")
    local, remote = tree_bytes(tmp_path / "local"), tree_bytes(tmp_path / "ray")
    assert local == remote and "recordings.jsonl" in local
    assert len(local["recordings.jsonl"].splitlines()) == 30


def test_generate_and_build_on_ray_are_byte_identical(
    ray_instance: str, tmp_path: Path, tiny_corpus: Path
) -> None:
    _taskqa("generate", tiny_corpus, "--out", tmp_path / "local.jsonl", "--workers", "2")
    _taskqa("generate", tiny_corpus, "--out", tmp_path / "ray.jsonl", "--executor", "ray")
    local = (tmp_path / "local.jsonl").read_bytes()
    assert local == (tmp_path / "ray.jsonl").read_bytes() and local.count(b"\n") > 1000
    assert (tmp_path / "local.summary.json").read_bytes() == (
        tmp_path / "ray.summary.json"
    ).read_bytes()
    _taskqa("build", tiny_corpus, "--out", tmp_path / "bench-local")
    _taskqa("build", tiny_corpus, "--out", tmp_path / "bench-ray", "--executor", "ray")
    built = tree_bytes(tmp_path / "bench-local")
    assert built == tree_bytes(tmp_path / "bench-ray") and "manifest.json" in built


def test_render_on_ray_is_byte_identical(
    ray_instance: str, tmp_path: Path, tiny_corpus: Path
) -> None:
    for name in ("local", "ray"):
        shutil.copytree(tiny_corpus, tmp_path / name)
    small = ["--limit", "2", "--size", "64", "--fps", "1"]
    _taskqa("render", tmp_path / "local", *small)
    _taskqa("render", tmp_path / "ray", *small, "--executor", "ray")
    local, remote = tree_bytes(tmp_path / "local"), tree_bytes(tmp_path / "ray")
    assert local == remote
    videos = [name for name in local if name.endswith(".mp4")]
    assert len(videos) >= 4 and "videos/manifest.json" in local


def _kill_one_running_shard(killed: list[int], stop: threading.Event) -> None:
    """Kill the first Ray worker seen running a shard (its process title names the task)."""
    while not stop.is_set() and not killed:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                title = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if title.startswith(b"ray::call_shard"):
                os.kill(int(entry), signal.SIGKILL)
                killed.append(int(entry))
                return
        stop.wait(0.005)


def test_a_killed_ray_worker_is_retried_and_the_output_is_unchanged(
    ray_instance: str, tmp_path: Path, tiny_corpus: Path
) -> None:
    _taskqa("generate", tiny_corpus, "--out", tmp_path / "local.jsonl")
    killed: list[int] = []
    stop = threading.Event()
    killer = threading.Thread(target=_kill_one_running_shard, args=(killed, stop))
    killer.start()
    try:
        _taskqa("generate", tiny_corpus, "--out", tmp_path / "ray.jsonl", "--executor", "ray")
    finally:
        stop.set()
        killer.join()
    assert killed, "no worker was seen running a shard"
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()


def test_a_killed_driver_leaves_no_ray_process_and_resumes_identically(
    ray_instance: str, tmp_path: Path, tiny_corpus: Path
) -> None:
    out = tmp_path / "q.jsonl"
    journal = tmp_path / ".q.jsonl.shards"
    # its own local Ray instance (no --ray-address), as a user's plain `--executor ray` run gets
    driver = start_cli("generate", str(tiny_corpus), "--out", str(out), "--executor", "ray")
    try:
        assert wait_until(lambda: recorded_shards(journal) >= 2, 90), "no shard finished"
        started = descendants(driver.pid)
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait()
        done = recorded_shards(journal)
        # raylet, GCS, agents and workers, all gone within a few seconds
        assert wait_until(lambda: not alive(started), 5.0), f"still alive: {alive(started)}"
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert len(started) >= 4 and not out.exists() and 2 <= done < 12
    output = _taskqa("generate", tiny_corpus, "--out", out, "--executor", "ray", "--resume")
    assert "resuming:" in output and f"{done} of 12 shards" in output
    _taskqa("generate", tiny_corpus, "--out", tmp_path / "local.jsonl")
    assert out.read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert not journal.exists()


def test_physics_simulate_and_verify_build_on_ray_are_byte_identical(
    ray_instance: str, tmp_path: Path
) -> None:
    scenes = ["physics", "simulate", "--scenes", "2", "--seed", "4", "--render", "--out"]
    _taskqa(*scenes, tmp_path / "scenes-local")
    _taskqa(*scenes, tmp_path / "scenes-ray", "--executor", "ray")
    local = tree_bytes(tmp_path / "scenes-local")
    assert local == tree_bytes(tmp_path / "scenes-ray") and "video_00001.mp4" in local
    trials = ["verify", "build", "--trials", "2", "--render", "--size", "64", "--out"]
    _taskqa(*trials, tmp_path / "egotv-local")
    _taskqa(*trials, tmp_path / "egotv-ray", "--executor", "ray")
    built = tree_bytes(tmp_path / "egotv-local")
    assert built == tree_bytes(tmp_path / "egotv-ray")
    assert sum(name.endswith(".mp4") for name in built) == 10


def test_model_requests_on_ray_are_paid_once(ray_instance: str, tmp_path: Path) -> None:
    from taskqa.execution import Execution, ExecutorKind
    from taskqa.llm import ChatRequest, LLMClient, ResponseCache
    from taskqa.llm.testing import StubChatServer

    requests = [ChatRequest.user("stub", f"question {i}") for i in range(12)]
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with StubChatServer(lambda body: f"re: {body['messages'][0]['content']}") as server:
        client = LLMClient(server.base_url, cache=cache, max_concurrency=3)
        with Execution(ExecutorKind.RAY).open() as executor:
            client.executor = executor
            first = client.complete_many(requests)
            second = client.complete_many(requests)
        assert len(server.requests) == 12 and len(cache) == 12
    assert [c.text for c in first] == [f"re: question {i}" for i in range(12)]
    assert [c.text for c in second] == [c.text for c in first]
    assert not any(c.cached for c in first) and all(c.cached for c in second)


def _job_count() -> int:
    from ray._private import state  # the GCS's job table; the public job API needs a dashboard

    return len(state.jobs())


@pytest.mark.parametrize("how", ["address", "auto"])
def test_a_driver_joins_a_running_instance_and_leaves_it_running(
    ray_instance: str, tmp_path: Path, tiny_corpus: Path, how: str
) -> None:
    """`--ray-address HOST:PORT` (and `auto`, which finds it through RAY_ADDRESS) runs the
    shards on the instance that is already there, as on a cluster, and does not shut it down."""
    _taskqa("generate", tiny_corpus, "--out", tmp_path / "local.jsonl")
    jobs = _job_count()
    address = ray_instance if how == "address" else "auto"
    environment = {**os.environ, "RAY_ADDRESS": ray_instance}
    command = ["generate", str(tiny_corpus), "--out", str(tmp_path / "joined.jsonl")]
    joined = subprocess.run(
        [*TASKQA, *command, "--executor", "ray", "--ray-address", address],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
    )
    assert joined.returncode == 0, joined.stderr
    assert (tmp_path / "joined.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert _job_count() == jobs + 1  # one more driver ran on this instance, not on its own
    assert ray.get(ray.put("still here")) == "still here"
    assert ray.cluster_resources().get("CPU") == 2
