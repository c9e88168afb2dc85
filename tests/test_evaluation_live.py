"""The chat adapter against a real OpenAI-compatible server on loopback (llama.cpp + SmolLM2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import test_evaluation_fixture
from taskqa.benchmark.folder import Benchmark
from taskqa.evaluation.adapters.run import ChatSettings, run_chat
from taskqa.evaluation.evaluate import evaluate, results_json

benchmark_dir = test_evaluation_fixture.benchmark_dir  # the shared session fixture


def _server():  # type: ignore[no-untyped-def]
    from taskqa.llm.local import LocalModelUnavailable, LocalServer

    try:
        return LocalServer(parallel=2, context_tokens=2048).__enter__()
    except (LocalModelUnavailable, ImportError) as reason:
        pytest.skip(f"no local model server: {reason}")


def test_chat_adapter_against_a_live_local_server(benchmark_dir: Path, tmp_path: Path) -> None:
    server = _server()
    try:
        bench = Benchmark(benchmark_dir)
        questions = bench.questions("normal", "test")[:6]
        out = tmp_path / "smollm2.jsonl"
        settings = ChatSettings(
            base_url=server.base_url, model="smollm2-135m-instruct", frames=0, prompt="blind",
            concurrency=2, max_tokens=8, cache=tmp_path / "cache.sqlite",
        )  # fmt: skip
        counts = run_chat(bench, "normal/test", questions, settings, out)
    finally:
        server.__exit__(None, None, None)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["question_id"] for line in lines] == [q.id for q in questions]
    assert all(isinstance(line["raw"], str) for line in lines)
    assert sum(counts.values()) == 6
    # six questions on purpose: a live model is slow
    evaluation = evaluate(bench, "normal/test", [out], with_most_likely=False, allow_partial=True)
    results = results_json(evaluation)
    overall = results["models"][0]["breakdowns"]["overall"]["all"]
    assert overall["correct"] + overall["wrong"] + overall["invalid"] == 6
    # --allow-partial scores the file on the six it answers; the rest is its coverage
    assert overall["missing"] == 0 and results["models"][0]["partial"]
    assert (
        results["models"][0]["coverage"]["missing_ids"]
        == len(bench.questions("normal", "test")) - 6
    )
    # the rerun is served from the cache: same replies without a server
    again = run_chat(bench, "normal/test", questions,
                     ChatSettings(**{**settings.__dict__, "base_url": "http://127.0.0.1:9/v1"}), out)  # fmt: skip
    assert again == counts
