"""Verification, adjudication (the paper's Table 13) and the released ProMQA record format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from data_support import real_data
from taskqa.problems import InvalidInputError
from taskqa.procedural.cli import app
from taskqa.procedural.release import export_record, import_records, verify_all
from taskqa.procedural.verification import (
    AdjudicatorDecision,
    AnnotatorJudgment,
    adjudicate,
    agreement,
    final_fields,
)

REAL = real_data("promqa/examples_sample.json")  # a sample only ../shared/data has
SAMPLE = REAL.root / "promqa" / "examples_sample.json"
realdata = REAL.mark

MACHINE = ["m1", "m2"]
YES_YES = AnnotatorJudgment(True, (True, True))


def _run(first: AnnotatorJudgment, second: AnnotatorJudgment,
         decision: AdjudicatorDecision | None = None, pool: list[str] | None = None):  # type: ignore[no-untyped-def]  # fmt: skip
    humans = [w for j in (first, second) for w in j.written]
    pool = pool or [*MACHINE, *humans]
    tags = ["machine" if p in MACHINE else "human" for p in pool]
    return adjudicate(MACHINE, (first, second), decision, pool, tags, "case")


def test_case_1_agreement_needs_no_adjudicator() -> None:
    with pytest.raises(InvalidInputError, match="open judgments but no adjudicator decision"):
        _run(YES_YES, AnnotatorJudgment(True, (True, False)), None)
    result = _run(YES_YES, AnnotatorJudgment(True, (True, True)))
    assert not result.needs_adjudicator and result.answers_final == (True, True)
    both_no = _run(AnnotatorJudgment(True, (False, True)), AnnotatorJudgment(True, (False, True)))
    assert both_no.answers_final == (False, True) and not both_no.needs_adjudicator


def test_case_2_adjudicator_decides_disputed_answers_only() -> None:
    decision = AdjudicatorDecision(answers={"m2": True, "m1": False})  # m1 is not open
    result = _run(YES_YES, AnnotatorJudgment(True, (True, False)), decision)
    assert result.judge_answers == (True, True)  # the majority on m1 stands
    assert result.answers_final == (True, True)


def test_case_3_human_answers_go_to_the_adjudicator() -> None:
    first = AnnotatorJudgment(True, (True, False), ("h1",))
    second = AnnotatorJudgment(True, (True, False), ("h2",))
    result = _run(first, second, AdjudicatorDecision(answers={"h1": True, "h2": False}))
    assert result.init_answers == (True, False, None, None)
    assert result.answers_final == (True, False, True, False)
    fields = final_fields(result, "q?")
    assert fields["answers"] == ["m1", "h1"]
    assert fields["answer_tags"] == ["machine", "annotator"]
    assert fields["answer_approved_by"] == ["annotator", "adjudicator"]


def test_case_4_question_conflict_lets_the_adjudicator_add_answers() -> None:
    first = AnnotatorJudgment(True, (False, False))
    second = AnnotatorJudgment(False, ())
    decision = AdjudicatorDecision(True, {"m1": False, "m2": False}, ("a new answer",))
    result = _run(first, second, decision)
    fields = final_fields(result, "q?")
    assert fields["question_approved_by"] == "adjudicator"
    assert fields["answers"] == ["a new answer"]
    assert fields["answer_tags"] == ["adjudicator"]
    with pytest.raises(InvalidInputError, match="may add answers only"):
        _run(YES_YES, YES_YES, AdjudicatorDecision(added=("extra",)))


def test_agreement_statistics() -> None:
    pairs = [
        (AnnotatorJudgment(True, (True, False)), AnnotatorJudgment(True, (True, True))),
        (AnnotatorJudgment(True, (True,)), AnnotatorJudgment(False, (None,))),
    ]
    stats = agreement(pairs)
    assert stats.questions == 0.5 and stats.answers == 0.5
    assert (stats.question_count, stats.answer_count) == (2, 2)


@realdata
def test_released_records_round_trip() -> None:
    released = json.loads(SAMPLE.read_text())
    for original, example in zip(released, import_records(released, SAMPLE.name), strict=True):
        exported = export_record(example, example.adjudicated())
        assert exported == original, original["question_id"]
        assert list(exported) == list(original)


@realdata
def test_import_then_verify_reproduces_the_release(tmp_path: Path) -> None:
    runner = CliRunner()
    generated, judgments = tmp_path / "generated.json", tmp_path / "judgments.json"
    run = runner.invoke(app, ["import-released", "--released", str(SAMPLE),
                              "--generated-out", str(generated), "--judgments-out", str(judgments)])  # fmt: skip
    assert run.exit_code == 0, run.output
    out = tmp_path / "verified.json"
    run = runner.invoke(app, ["verify", "--generated", str(generated), "--judgments",
                              str(judgments), "--out", str(out)])  # fmt: skip
    assert run.exit_code == 0, run.output
    assert "25 verified, 0 rejected" in run.output
    assert json.loads(out.read_text()) == json.loads(SAMPLE.read_text())


@realdata
def test_verify_lists_what_the_adjudicator_owes(tmp_path: Path) -> None:
    released = json.loads(SAMPLE.read_text())
    examples = import_records(released, SAMPLE.name)
    generated = [example.generated for example in examples]
    judgments = [{"question_id": e.generated["question_id"],
                  "judges": [j.as_json() for j in e.judges]} for e in examples]  # fmt: skip
    result = verify_all(generated, judgments, "judgments.json", seed=1)
    needing = {item["question_id"] for item in result.open_items}
    assert needing == {r["question_id"] for r in released if "judge" in r["adjudication"]}
    assert len(result.kept) == 25 - len(needing)
    assert result.agreement.question_count == 25
    assert 0.5 < (result.agreement.questions or 0) <= 1.0


def test_bad_judgment_names_the_record_path() -> None:
    generated = [
        {"question_id": "q1", "generation": {"qas": [{"question": "?", "answers": ["a"]}]}}
    ]
    judgments = [{"question_id": "q1", "judges": [{"question": "yes"}, {"question": True}]}]
    with pytest.raises(InvalidInputError) as caught:
        verify_all(generated, judgments, "judgments.json", seed=0)
    assert str(caught.value.problems[0]) == (
        "judgments.json[0].judges[0].question: expected true or false (got 'yes')"
    )
