"""QA-generation prompts, parsing of three-pair replies, seeded choice, and the generate command
against a stub OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from taskqa.llm import LLMClient
from taskqa.llm.testing import StubChatServer
from taskqa.procedural.cli import app
from taskqa.procedural.generation import (
    QAPair,
    choose_pairs,
    fill,
    generate,
    generation_prompt,
    parse_qa_pairs,
)
from taskqa.procedural.recipes import RecipeGraph

GRAPH = RecipeGraph(
    3,
    "Toast",
    {0: "START", 1: "Slice-Slice bread", 2: "Toast-Toast it {well}", 3: "END"},
    ((0, 1), (1, 2), (2, 3)),
)
BASE: dict[str, Any] = {
    "recording_id": "3_1",
    "end_time": "00:01:00",
    "activity_name": "Toast",
    "previous_steps": [{"step_id": 1, "description": "Slice-Slice bread",
                        "errors": [{"tag": "Technique Error", "description": "torn"}]}],
    "current_step": {"step_id": 2, "description": "Toast-Toast it for {10} s"},
    "is_noisy": True,
}  # fmt: skip
NEXT = BASE | {"type": "next", "next_steps": [], "question_id": "3_1_2_next", "example_id": "3_1_2"}
TIMING = BASE | {
    "type": "timing", "error_description": "too short", "question_id": "3_1_2_timing",
    "example_id": "3_1_2",
}  # fmt: skip
REPLY = """Here you go:
* **Am I done?**
    * Yes, that was the last step.
* What now?
  * Nothing, enjoy.
  * You could plate it.
1. Is there more to do?
    - No.
* A question without an answer
"""


def test_prompt_parts_per_type() -> None:
    prompt = generation_prompt(NEXT, GRAPH)
    assert prompt.startswith("# Instruction\n") and prompt.endswith("# Response")
    assert "- Slice-Slice bread\n" in prompt and "- Toast-Toast it for {10} s" in prompt
    assert "final step of the recipe" in prompt
    assert "torn" not in prompt  # the history's errors stay hidden from the generator
    timing = generation_prompt(TIMING, GRAPH)
    assert "timing mistake: too short" in timing
    assert "- Toast-Toast it {well}" in timing  # the recipe's text of the step


def test_fill_leaves_unknown_braces_and_inserted_text_alone() -> None:
    assert fill("{a} {b} {unknown}", {"a": "{b}", "b": "x"}) == "{b} x {unknown}"


def test_parse_three_pairs_leniently() -> None:
    assert parse_qa_pairs(REPLY) == [
        QAPair("Am I done?", ("Yes, that was the last step.",)),
        QAPair("What now?", ("Nothing, enjoy.", "You could plate it.")),
        QAPair("Is there more to do?", ("No.",)),
    ]
    assert parse_qa_pairs("no list at all") == []
    tabs = "- Q1?\n\t- A1\n- Q2?\n\t- A2"
    assert [p.question for p in parse_qa_pairs(tabs)] == ["Q1?", "Q2?"]


def test_seeded_choice() -> None:
    pairs = parse_qa_pairs(REPLY)
    assert choose_pairs(pairs, 1, "q") == choose_pairs(pairs, 1, "q")
    orders = {tuple(p.question for p in choose_pairs(pairs, seed, "q")) for seed in range(20)}
    assert len(orders) > 1
    assert sorted(choose_pairs(pairs, 1, "q"), key=pairs.index) == pairs


def test_generate_stores_prompt_response_and_choice(tmp_path: Path) -> None:
    with StubChatServer(lambda _body: REPLY) as server:
        client = LLMClient(server.base_url)
        records = generate([NEXT, TIMING], {"Toast": GRAPH}, client, "stub-model", seed=4)
    assert server.requests[0]["temperature"] == 0.7 and server.requests[0]["seed"] == 4
    first = records[0]
    assert {k: first[k] for k in NEXT} == NEXT
    generation = first["generation"]
    assert generation["prompt"] == generation_prompt(NEXT, GRAPH)
    assert generation["response"] == REPLY
    assert generation["model_id"] == "stub-model"
    assert generation["template_type"] == "step-target"
    assert len(generation["qas"]) == 3
    assert generation["qas"] == [
        p.as_json() for p in choose_pairs(parse_qa_pairs(REPLY), 4, "3_1_2_next")
    ]


def test_unparsable_reply_is_kept_with_an_empty_pair() -> None:
    with StubChatServer(lambda _body: "I cannot help with that.") as server:
        records = generate([NEXT], {"Toast": GRAPH}, LLMClient(server.base_url), "m", seed=0)
    assert records[0]["generation"]["qas"] == [{"question": None, "answers": [None]}]


def test_generate_command_is_reproducible(tmp_path: Path) -> None:
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps([NEXT, TIMING]))
    graphs = tmp_path / "graphs.json"
    graphs.write_text(json.dumps({"3": GRAPH.as_json()}))
    outputs = []
    with StubChatServer(lambda _body: REPLY) as server:
        for run in range(2):
            out = tmp_path / f"generated{run}.json"
            result = CliRunner().invoke(app, [
                "generate", "--samples", str(samples), "--graphs", str(graphs), "--out", str(out),
                "--base-url", server.base_url, "--model", "stub", "--seed", "7",
                "--cache", str(tmp_path / "cache.sqlite"),
            ])  # fmt: skip
            assert result.exit_code == 0, result.output
            outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert len(server.requests) == 2  # the second run came from the cache
    assert "2 generated (2 with a parsable pair)" in result.output


def test_generate_command_reports_an_unreachable_server(tmp_path: Path) -> None:
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps([NEXT]))
    graphs = tmp_path / "graphs.json"
    graphs.write_text(json.dumps({"3": GRAPH.as_json()}))
    with StubChatServer(lambda _body: (400, "bad request")) as server:
        result = CliRunner().invoke(app, [
            "generate", "--samples", str(samples), "--graphs", str(graphs),
            "--out", str(tmp_path / "g.json"), "--base-url", server.base_url, "--model", "m",
        ])  # fmt: skip
    assert result.exit_code == 1 and "HTTP 400" in result.output
