"""The OpenAI-compatible client against a stub server: caching, retries, errors, concurrency."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from taskqa.llm import ChatRequest, LLMClient, LLMError, ResponseCache, request_key
from taskqa.llm.testing import StubChatServer


def _echo(body: dict[str, Any]) -> str:
    return f"echo: {body['messages'][-1]['content']}"


def _client(server: StubChatServer, tmp_path: Path | None = None, **settings: Any) -> LLMClient:
    cache = ResponseCache(tmp_path / "cache.sqlite") if tmp_path is not None else None
    return LLMClient(server.base_url, cache=cache, sleep=lambda _s: None, **settings)


def test_completion_text_and_request_body() -> None:
    with StubChatServer(_echo) as server:
        client = _client(server)
        request = ChatRequest.user("tiny", "hello", temperature=0.3, seed=5, max_tokens=7)
        completion = client.complete(request)
    assert completion.text == "echo: hello"
    assert not completion.cached and completion.attempts == 1
    body = server.requests[0]
    assert body == {
        "model": "tiny",
        "messages": [{"role": "user", "content": "hello"}],
        "temperature": 0.3,
        "max_tokens": 7,
        "seed": 5,
    }


def test_cache_answers_repeats_without_a_request(tmp_path: Path) -> None:
    with StubChatServer(_echo) as server:
        client = _client(server, tmp_path)
        first = client.complete(ChatRequest.user("tiny", "hi"))
        second = client.complete(ChatRequest.user("tiny", "hi"))
    assert first.text == second.text == "echo: hi"
    assert second.cached and len(server.requests) == 1
    # A new client on the same file (a rerun) and another server port still hit the cache.
    with StubChatServer(lambda _b: "different") as other:
        rerun = LLMClient(other.base_url, cache=ResponseCache(tmp_path / "cache.sqlite"))
        assert rerun.complete(ChatRequest.user("tiny", "hi")).text == "echo: hi"
    assert other.requests == []


@pytest.mark.parametrize(
    "change",
    [
        {"model": "other"},
        {"temperature": 0.5},
        {"seed": 1},
        {"max_tokens": 9},
        {"messages": ({"role": "user", "content": "hi!"},)},
    ],
)
def test_cache_key_covers_every_setting(change: dict[str, Any]) -> None:
    base = {"model": "tiny", "messages": ({"role": "user", "content": "hi"},), "seed": 0}
    assert request_key(ChatRequest(**base)) != request_key(ChatRequest(**(base | change)))


def test_transient_failures_are_retried_with_backoff() -> None:
    failures = iter([(500, "boom"), (429, "slow down"), None])
    delays: list[float] = []

    def flaky(body: dict[str, Any]) -> Any:
        failure = next(failures)
        return failure if failure is not None else "finally"

    with StubChatServer(flaky) as server:
        client = LLMClient(server.base_url, backoff_seconds=0.5, sleep=delays.append)
        completion = client.complete(ChatRequest.user("tiny", "x"))
    assert completion.text == "finally" and completion.attempts == 3
    assert delays == [0.5, 1.0]


def test_retries_run_out_with_a_clear_error() -> None:
    with StubChatServer(lambda _b: (503, "down")) as server:
        client = _client(server, max_retries=2)
        with pytest.raises(LLMError, match=r"no answer after 3 attempts \(HTTP 503: down\)"):
            client.complete(ChatRequest.user("tiny", "x"))
    assert len(server.requests) == 3


def test_client_errors_are_not_retried() -> None:
    with (
        StubChatServer(lambda _b: (400, '{"error": "bad model"}')) as server,
        pytest.raises(LLMError, match="HTTP 400"),
    ):
        _client(server).complete(ChatRequest.user("tiny", "x"))
    assert len(server.requests) == 1


def test_malformed_reply_names_what_was_expected() -> None:
    with (
        StubChatServer(lambda _b: (200, json.dumps({"choices": []}))) as server,
        pytest.raises(LLMError, match=r"expected choices\[0\]\.message\.content"),
    ):
        _client(server).complete(ChatRequest.user("tiny", "x"))


def test_complete_many_keeps_order_and_bounds_concurrency() -> None:
    with StubChatServer(_echo, delay_seconds=0.05) as server:
        client = _client(server, max_concurrency=3)
        done: list[int] = []
        lock = threading.Lock()

        def record(index: int, _completion: Any) -> None:
            with lock:
                done.append(index)

        prompts = [f"q{i}" for i in range(10)]
        results = client.complete_many([ChatRequest.user("tiny", p) for p in prompts], record)
    assert [r.text for r in results] == [f"echo: {p}" for p in prompts]
    assert sorted(done) == list(range(10))
    assert 1 < server.max_in_flight <= 3


def test_cache_is_safe_across_threads(tmp_path: Path) -> None:
    with StubChatServer(_echo) as server:
        client = _client(server, tmp_path, max_concurrency=4)
        requests = [ChatRequest.user("tiny", f"q{i % 5}") for i in range(20)]
        first = client.complete_many(requests[:5])
        again = client.complete_many(requests)
    assert [c.text for c in again] == [f"echo: q{i % 5}" for i in range(20)]
    assert all(c.cached for c in again) and not any(c.cached for c in first)
    assert len(ResponseCache(tmp_path / "cache.sqlite")) == 5
