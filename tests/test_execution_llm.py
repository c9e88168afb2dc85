"""Model requests on an executor: batches go to worker processes, the SQLite cache stays on the
driver, and no request is paid twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from taskqa.execution import Execution
from taskqa.llm import ChatRequest, LLMClient, LLMError, ResponseCache
from taskqa.llm.testing import StubChatServer
from taskqa.procedural.judge import judge_records
from taskqa.procedural.recipes import RecipeGraph

GRAPH = RecipeGraph(
    3, "Toast", {0: "START", 1: "Slice-Slice bread", 2: "Toast-Toast it", 3: "END"},
    ((0, 1), (1, 2), (2, 3)),
)  # fmt: skip


def _echo(body: dict[str, Any]) -> str:
    return f"answer to {body['messages'][0]['content']}"


def _requests(count: int) -> list[ChatRequest]:
    return [ChatRequest.user("stub", f"question {i}", seed=0) for i in range(count)]


def test_batches_on_worker_processes_fill_the_drivers_cache(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with StubChatServer(_echo) as server:
        client = LLMClient(server.base_url, cache=cache, max_concurrency=3)
        cached = client.complete_many(_requests(4))  # paid before: answered by the driver
        assert len(server.requests) == 4
        seen: list[int] = []
        with Execution(workers=2).open() as executor:
            client.executor = executor
            completions = client.complete_many(_requests(20), lambda i, _c: seen.append(i))
            assert len(server.requests) == 20  # the 16 the cache could not answer
            assert [c.text for c in completions] == [f"answer to question {i}" for i in range(20)]
            assert [c.cached for c in completions] == [True] * 4 + [False] * 16
            assert seen == list(range(20)) and len(cache) == 20
            again = client.complete_many(_requests(20))
        assert len(server.requests) == 20 and all(c.cached for c in again)
    assert [c.text for c in cached] == [c.text for c in completions[:4]]


def test_a_server_error_on_a_worker_is_the_same_error_on_the_driver(tmp_path: Path) -> None:
    with StubChatServer(lambda _body: (400, "bad request")) as server:
        client = LLMClient(server.base_url, max_concurrency=2)
        with Execution(workers=2).open() as executor:
            client.executor = executor
            with pytest.raises(LLMError, match="HTTP 400"):
                client.complete_many(_requests(4))


def test_judging_on_workers_matches_threads_and_reuses_every_cached_attempt(
    tmp_path: Path,
) -> None:
    # an unreadable verdict on the first attempt of odd questions: those need a second request
    def verdict(body: dict[str, Any]) -> str:
        odd = "odd" in body["messages"][0]["content"] and body.get("seed") == 0
        return "I cannot tell." if odd else "[Rationale] fine\n[Judge] 2"

    records = [
        {
            "activity_name": "Toast",
            "question_id": f"q{i}",
            "type": "next",
            "previous_steps": [],
            "current_step": {"step_id": 1, "description": "Slice-Slice bread"},
            "question": f"What next after step {i} ({'odd' if i % 2 else 'even'})?",
            "answers": ["Toast it."],
            "prediction": {"model_id": "p", "response": "Toast it."},
        }  # fmt: skip
        for i in range(6)
    ]
    graphs = {"Toast": GRAPH}
    with StubChatServer(verdict) as server:
        threads = judge_records(records, graphs, LLMClient(server.base_url), "stub")
        paid = len(server.requests)
        assert paid == 9  # 6 first attempts and 3 re-asks
        client = LLMClient(server.base_url, cache=ResponseCache(tmp_path / "c.sqlite"))
        with Execution(workers=2).open() as executor:
            client.executor = executor
            spread = judge_records(records, graphs, client, "stub")
            assert len(server.requests) == 2 * paid
            assert judge_records(records, graphs, client, "stub") == spread
        assert len(server.requests) == 2 * paid  # the rerun was answered from the cache
    assert spread == threads
    assert [r["evaluation"]["judge"] for r in spread] == [2] * 6
