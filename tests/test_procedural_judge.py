"""The judge (prompts, verdict parsing, retries, unjudged), score tables, calibration,
self-preference, frame sampling and the human-performance sample."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from taskqa.llm import LLMClient
from taskqa.llm.testing import StubChatServer
from taskqa.procedural.answering import (
    answer_messages,
    answer_prompt,
    clip_frames,
    human_performance_sample,
    predict,
    sample_frame_indices,
)
from taskqa.procedural.cli import app
from taskqa.procedural.judge import judge_prompt, judge_records, parse_verdict
from taskqa.procedural.recipes import RecipeGraph
from taskqa.procedural.scoring import (
    calibrate,
    pearson,
    score_row,
    score_table,
    self_preference,
)

GRAPH = RecipeGraph(
    3, "Toast", {0: "START", 1: "Slice-Slice bread", 2: "Toast-Toast it", 3: "END"},
    ((0, 1), (1, 2), (2, 3)),
)  # fmt: skip
RECORD: dict[str, Any] = {
    "recording_id": "3_1", "example_id": "3_1_2", "end_time": "00:00:07",
    "activity_name": "Toast", "question_id": "3_1_2_next", "type": "next", "is_noisy": True,
    "previous_steps": [{"step_id": 1, "description": "Slice-Slice bread",
                        "errors": [{"tag": "Technique Error", "description": "torn"}]}],
    "current_step": {"step_id": 2, "description": "Toast-Toast it"},
    "question": "What next?", "answers": ["Nothing, you are done.", "Eat it."],
    "generation": {"model_id": "gen-a"},
    "prediction": {"model_id": "pred-a", "response": "You are done."},
}  # fmt: skip


def test_judge_prompt_contexts() -> None:
    step = judge_prompt(RECORD, GRAPH, "ternary", "step")
    assert "    - [Technique Error] torn" in step  # the judge sees the errors
    assert "2 - the prediction agrees." in step
    assert "[Gold Answer(s)]\n- Nothing, you are done.\n- Eat it.\n" in step
    assert step.endswith("## Feedback ##\n[Rationale]")
    dot = judge_prompt(RECORD, GRAPH, "binary", "dot")
    assert '"1. Slice-Slice bread" -> "2. Toast-Toast it";' in dot and "torn" not in dot
    assert "1 - the prediction agrees." in dot
    plain = judge_prompt(RECORD, GRAPH, "ternary", "default")
    assert "digraph" not in plain and "torn" not in plain


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("Good match.\n[Judge] 2", 2),
        ("[Rationale] partly\n[Judge]: 1", 1),
        ("**[Judge]** **0**", 0),
        ("Judge: 2\n", 2),
        ("[Judge] 7", None),  # out of range
        ("I think it is fine.", None),
        ("[Judge] 2\n...on reflection [Judge] 1", 1),
    ],
)
def test_verdict_parsing(reply: str, verdict: int | None) -> None:
    assert parse_verdict(reply, "ternary")[0] == verdict


def test_rationale_is_kept() -> None:
    assert parse_verdict("[Rationale] close enough\n[Judge] 2", "ternary") == (2, "close enough")


def test_unreadable_verdicts_are_retried_then_unjudged() -> None:
    def reply(body: dict[str, Any]) -> str:
        return "[Judge] 2" if body["seed"] == 11 else "no idea"

    with StubChatServer(reply) as server:
        client = LLMClient(server.base_url)
        judged = judge_records([RECORD], {"Toast": GRAPH}, client, "judge", seed=10, retries=2)
        assert judged[0]["evaluation"]["judge"] == 2
        assert judged[0]["evaluation"]["responses"] == ["no idea", "[Judge] 2"]
        failed = judge_records([RECORD], {"Toast": GRAPH}, client, "judge", seed=20, retries=1)
    evaluation = failed[0]["evaluation"]
    assert evaluation["judge"] is None and evaluation["status"] == "unjudged"
    assert len(evaluation["responses"]) == 2
    assert all(body["temperature"] == 0.0 for body in server.requests)


def _judged(kind: str, noisy: bool, verdict: int | None, **extra: Any) -> dict[str, Any]:
    record = RECORD | {"type": kind, "is_noisy": noisy} | extra
    return record | {"evaluation": {"judge": verdict, "template_type": "ternary-step",
                                    "model_id": extra.get("evaluator", "judge-a")}}  # fmt: skip


def test_scores_overall_clean_noisy_and_per_type() -> None:
    records = [_judged("next", True, 2), _judged("next", False, 1), _judged("timing", False, 0),
               _judged("missing", True, None)]  # fmt: skip
    row = score_row("m", records)
    assert row.overall == pytest.approx(50.0)  # (100 + 50 + 0) / 3; the unjudged one is left out
    assert (row.clean, row.noisy) == (25.0, 100.0)
    assert row.by_type["next"] == 75.0 and row.by_type["missing"] is None
    assert (row.judged, row.unjudged) == (3, 1)
    table = score_table({"m": records})
    assert table.headers[:4] == ["Model", "Overall", "Clean", "Noisy"]
    assert table.rows[0][-2:] == [3, 1]
    binary = [
        _judged("next", True, 1) | {"evaluation": {"judge": 1, "template_type": "binary-dot"}}
    ]
    assert score_row("b", binary).overall == 100.0


def test_calibration_against_human_ratings() -> None:
    records = [_judged("next", True, v, question_id=f"q{i}") for i, v in enumerate([2, 1, 0, 2])]
    human = {("q0", "pred-a"): 2, ("q1", "pred-a"): 2, ("q2", "pred-a"): 0, ("q3", "pred-a"): 1}
    result = calibrate(records, human, "judge-a")
    assert result.pairs == 4 and result.match_accuracy == 0.5
    assert result.pearson == pytest.approx(pearson([2, 1, 0, 2], [2, 2, 0, 1]))
    assert pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert pearson([1, 1], [2, 3]) is None


def test_self_preference_matrices() -> None:
    records = [
        _judged("next", True, 2, generation={"model_id": "g1"}, evaluator="e1"),
        _judged("next", True, 0, generation={"model_id": "g2"}, evaluator="e1"),
        _judged("next", True, 1, generation={"model_id": "g1"}, evaluator="e2"),
    ]
    by_generator, by_evaluator = self_preference(records)
    assert by_generator == {("g1", "pred-a"): 75.0, ("g2", "pred-a"): 0.0}
    assert by_evaluator == {("pred-a", "e1"): 50.0, ("pred-a", "e2"): 50.0}


def test_frame_sampling_keeps_the_last_frame() -> None:
    assert sample_frame_indices(5, 20) == ([0, 1, 2, 3, 4], 1)
    kept, stride = sample_frame_indices(45, 20)
    assert stride == 3 and kept[-1] == 44 and kept[:2] == [2, 5] and len(kept) == 15
    kept, stride = sample_frame_indices(40, 20)
    assert stride == 2 and kept == list(range(1, 40, 2))


def test_clip_frames_and_image_messages(tmp_path: Path) -> None:
    for second in range(1, 13):
        (tmp_path / f"{second}.png").write_bytes(b"\x89PNG-" + bytes([second]))
    frames, stride = clip_frames(tmp_path, "00:00:07", max_frames=3)
    assert [f.stem for f in frames] == ["1", "4", "7"] and stride == 3
    messages = answer_messages("prompt", frames)
    parts = messages[0]["content"]
    assert parts[0] == {"type": "text", "text": "prompt"}
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert answer_messages("p", []) == [{"role": "user", "content": "p"}]
    prompt = answer_prompt(RECORD, GRAPH)
    assert "[Question]\nWhat next?\n[Answer]" in prompt and "digraph recipe" in prompt


def test_predict_with_frames(tmp_path: Path) -> None:
    (tmp_path / "3_1").mkdir()
    for second in range(1, 10):
        (tmp_path / "3_1" / f"{second}.png").write_bytes(b"png")
    with StubChatServer(lambda _b: "Eat it.") as server:
        predicted = predict([RECORD], {"Toast": GRAPH}, LLMClient(server.base_url), "vlm",
                            frames_root=tmp_path, max_frames=4)  # fmt: skip
    prediction = predicted[0]["prediction"]
    assert prediction["response"] == "Eat it." and prediction["frame_ids"] == ["1", "3", "5", "7"]
    assert len(server.requests[0]["messages"][0]["content"]) == 5


def test_human_performance_sample_excludes_the_annotators_own() -> None:
    records = [RECORD | {"question_id": f"q{i}"} for i in range(10)]
    verified = {"q0": ["ann1"], "q1": ["ann1", "ann2"], "q2": ["ann2"]}
    chosen = human_performance_sample(records, verified, "ann1", 5, seed=3)
    ids = [r["question_id"] for r in chosen]
    assert len(ids) == 5 and not {"q0", "q1"} & set(ids)
    assert ids == [
        r["question_id"] for r in human_performance_sample(records, verified, "ann1", 5, seed=3)
    ]


def test_judge_and_report_commands(tmp_path: Path) -> None:
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps([RECORD, RECORD | {"question_id": "q2", "is_noisy": False}]))
    graphs = tmp_path / "graphs.json"
    graphs.write_text(json.dumps({"3": GRAPH.as_json()}))
    judged = tmp_path / "judged.json"
    with StubChatServer(lambda _b: "[Rationale] fine\n[Judge] 1") as server:
        result = CliRunner().invoke(app, [
            "judge", "--predictions", str(predictions), "--graphs", str(graphs),
            "--out", str(judged), "--base-url", server.base_url, "--model", "judge-a",
        ])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "2 judged (0 unjudged)" in result.output
    human = tmp_path / "human.json"
    human.write_text(json.dumps([{"question_id": "q2", "predictor": "pred-a", "rating": 1}]))
    result = CliRunner().invoke(app, ["report", "--judged", f"pred-a={judged}", "--human",
                                      str(human), "--out", str(tmp_path / "report")])  # fmt: skip
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "| pred-a | 50.0 | 50.0 | 50.0 | 50.0 |" in markdown
    assert "| judge-a | ternary-step | 1 |" in markdown
    assert "Mean score by generator and predictor" in markdown
