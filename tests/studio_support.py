"""Helpers shared by the studio tests: a small rendered benchmark, study files, a live server
on 127.0.0.1 in a subprocess, and a rater client that retries the way a browser would."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from taskqa.benchmark.balance import BalanceConfig
from taskqa.benchmark.build import BuildConfig, build_benchmark
from taskqa.household.corpus_videos import render_corpus
from taskqa.household.options import RenderOptions
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import load_domain
from taskqa.studio import db
from taskqa.studio.create import create_study
from taskqa.studio.kinds.base import CreateOptions
from taskqa.studio.queue import invite

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
SUBMISSION = re.compile(r'name="submission_id" value="([^"]+)"')


def studio_bench(factory: pytest.TempPathFactory) -> Path:
    """Six simulated recordings, the first rendered to MP4, built into a benchmark (once per
    session, whichever test module asks first)."""
    root = factory.getbasetemp() / "studio-bench"
    bench = root / "bench"
    if (bench / "manifest.json").is_file():
        return bench
    domain = load_domain()
    config = SimulationConfig(episodes=6, seed=0)
    write_simulated_corpus(root / "corpus", config, simulate_corpus(config, domain), domain)
    render_corpus(root / "corpus", options=RenderOptions(fps=2.0, width=160, height=120), limit=1)
    build_benchmark(root / "corpus", bench, BuildConfig(balance=BalanceConfig(balance_by="type")))
    return bench


def make_study(path: Path, source: Path, kind: str = "answer", **options: object) -> Path:
    create_study(kind, source, path, CreateOptions(**options))  # type: ignore[arg-type]
    return path


def tokens(study: Path, raters: int | None = None, days: float = 1.0) -> tuple[list[str], str]:
    connection = db.connect(study)
    try:
        issued, admin = invite(connection, raters, days)
    finally:
        connection.close()
    return [token for _, token in issued], admin


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class LiveServer:
    """``taskqa studio serve`` in a subprocess, on a free loopback port."""

    study: Path
    media: Path | None = None
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LiveServer:
        command = [sys.executable, "-m", "taskqa", "studio", "serve", str(self.study),
                   "--port", str(self.port)]  # fmt: skip
        if self.media is not None:
            command += ["--media", str(self.media)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.process.stderr.read()!r}")  # type: ignore[union-attr]
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.1)
        raise RuntimeError("server did not start in 30 s")

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def form_fields(html: str) -> tuple[str, str]:
    csrf, submission = CSRF.search(html), SUBMISSION.search(html)
    assert csrf and submission, html[:500]
    return csrf.group(1), submission.group(1)
