"""`taskqa baseline chat` when the user's setup is wrong: no server, a wrong model name or key,
something that is not a chat API at the address, a benchmark whose clips have no video. Each is
one line that says what to check, exit 1, and no retries where retrying cannot help."""

from __future__ import annotations

import csv
import json
import shutil
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from problem_text import run
from taskqa.llm import ChatRequest, LLMClient, LLMError
from taskqa.llm.testing import StubChatServer
from test_evaluation_fixture import benchmark_dir  # noqa: F401 (a pytest fixture)

OPENAI_NOT_FOUND = {
    "error": {
        "message": "The model `nope` does not exist.",
        "type": "invalid_request_error",
        "code": "model_not_found",
    }
}
OPENAI_BAD_KEY = {
    "error": {
        "message": "Incorrect API key provided.",
        "type": "invalid_request_error",
        "code": "invalid_api_key",
    }
}
NOT_CHAT = "is --base-url an OpenAI-compatible API (usually ending in /v1) and not another service?"


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def ask(bench: Path, out: Path, base_url: str, *extra: str) -> tuple[int, str]:
    return run(
        "baseline", "chat", "-b", str(bench), "-o", str(out), "--base-url", base_url,
        "--model", "nope", "--limit", "1", "--concurrency", "1", *extra,
    )  # fmt: skip


def test_a_closed_port_is_one_line_at_once(benchmark_dir: Path, tmp_path: Path) -> None:  # noqa: F811
    url = f"http://127.0.0.1:{closed_port()}/v1"
    started = time.monotonic()
    code, output = ask(benchmark_dir, tmp_path / "p.jsonl", url, "--frames", "0")
    elapsed = time.monotonic() - started
    assert code == 1, output
    assert output.splitlines() == [  # the whole output: one line
        f"✗ {url}: connection refused: no server listens there; start it or check --base-url"
    ]
    assert "internal error" not in output and "Traceback" not in output
    assert elapsed < 3.0  # refused at the first attempt, not after five with backoff
    assert not (tmp_path / "p.jsonl").exists() and not (tmp_path / "p.jsonl.partial").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no empty cache left either


@pytest.mark.parametrize(
    ("status", "body", "line"),
    [
        (
            404,
            json.dumps(OPENAI_NOT_FOUND),
            "HTTP 404: The model `nope` does not exist; check --model (the server lists its "
            "models at GET /models) and --base-url (an OpenAI-compatible API, usually ending "
            "in /v1)",
        ),
        (
            401,
            json.dumps(OPENAI_BAD_KEY),
            "HTTP 401: Incorrect API key provided; check the API key (OPENAI_API_KEY, sent as "
            "a Bearer token)",
        ),
        (
            200,
            json.dumps({"status": "ok", "version": "1.2"}),
            'expected choices[0].message.content in the reply, got {"status": "ok", '
            f'"version": "1.2"}}; {NOT_CHAT}',
        ),
        (
            200,
            "<!DOCTYPE html>\n<html><body>Welcome to nginx!</body></html>",
            'the reply is not JSON ("<!DOCTYPE html> <html><body>Welcome to nginx!</body>'
            f'</html>"); {NOT_CHAT}',
        ),
    ],
    ids=["wrong-model", "bad-key", "not-a-chat-completion", "a-web-page"],
)
def test_a_server_that_refuses_for_good_is_one_line_and_asked_once(
    benchmark_dir: Path,  # noqa: F811
    tmp_path: Path,
    status: int,
    body: str,
    line: str,
) -> None:
    with StubChatServer(lambda _body: (status, body)) as server:
        code, output = ask(benchmark_dir, tmp_path / "p.jsonl", server.base_url, "--frames", "0")
    assert code == 1, output
    assert output.splitlines() == [f"✗ {server.base_url}: {line}"]
    assert "internal error" not in output and "Traceback" not in output
    assert len(server.requests) == 1  # a client error is not retried


def _unrendered(benchmark: Path, target: Path) -> Path:
    """A copy of ``benchmark`` whose videos.csv names the ``sim://`` addresses of an unrendered
    simulated corpus, as `taskqa build` writes it for one."""
    shutil.copytree(benchmark, target)
    table = target / "videos.csv"
    with table.open(encoding="utf-8", newline="") as stream:
        rows = list(csv.DictReader(stream))
    for row in rows:
        row["video"] = f"sim://{row['recording']}/{row['agent']}"
    with table.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return target


def test_frames_of_an_unrendered_benchmark_are_refused_before_any_request(
    benchmark_dir: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    bench = _unrendered(benchmark_dir, tmp_path / "bench")
    with StubChatServer(lambda _body: "yes") as server:
        code, output = ask(bench, tmp_path / "p.jsonl", server.base_url, "--frames", "2")
    assert code == 1, output
    (line,) = output.splitlines()
    assert line.startswith(f"✗ {bench}: 1 of 1 clips asked about have no video file (its corpus ")
    assert "such as sim://" in line and "sim:/" + "/" in line  # the address as videos.csv has it
    # `taskqa render BENCH` renders what its clips use and rewrites videos.csv: no rebuild
    assert f"`taskqa render {bench}`" in line and line.endswith("or ask without frames: --frames 0")
    assert server.requests == []  # refused up front, not on the first clip
    assert not (tmp_path / "p.jsonl.cache.sqlite").exists()


def test_video_files_that_are_not_there_are_refused_too(
    benchmark_dir: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    # the fixture's videos.csv names videos/<recording>.mp4 files that it never wrote
    with StubChatServer(lambda _body: "yes") as server:
        code, output = ask(benchmark_dir, tmp_path / "p.jsonl", server.base_url, "--limit", "5")
    assert code == 1, output
    (line,) = output.splitlines()
    assert "have no video file (the files are not there; such as " in line
    assert server.requests == []


def test_refused_connections_are_not_retried_but_timeouts_are() -> None:
    delays: list[float] = []
    url = f"http://127.0.0.1:{closed_port()}/v1"
    client = LLMClient(url, sleep=delays.append)
    with pytest.raises(LLMError, match="connection refused") as refused:
        client.complete(ChatRequest.user("tiny", "x"))
    assert delays == [] and refused.value.where == url
    with StubChatServer(lambda _body: "late", delay_seconds=0.6) as slow:
        client = LLMClient(slow.base_url, timeout_seconds=0.2, max_retries=1, sleep=delays.append)
        with pytest.raises(LLMError, match=r"no answer after 2 attempts \(timed out\)"):
            client.complete(ChatRequest.user("tiny", "x"))
    assert delays == [1.0]


def test_an_llm_error_travels_whole() -> None:
    import pickle

    error = LLMError("HTTP 404: gone; check --model", "http://h/v1")
    again: Any = pickle.loads(pickle.dumps(error))
    assert (again.reason, again.where, str(again)) == (
        "HTTP 404: gone; check --model",
        "http://h/v1",
        "http://h/v1: HTTP 404: gone; check --model",
    )
