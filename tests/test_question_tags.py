"""The question record's tags, defined once in ``taskqa.questions.tags``: a raw record (as the
build reads it) and a ``Question`` (as evaluation reads it) get the same reasoning type,
categories and breakdown groups."""

from __future__ import annotations

from typing import Any

from taskqa.benchmark.candidates import balancing_key
from taskqa.questions.records import Question
from taskqa.questions.tags import (
    BREAKDOWNS,
    answer_kind,
    category_tags,
    reasoning_tags,
    reasoning_type,
)

# a query whose answer is yes: the structural and the answer reading of open/binary differ
RECORD: dict[str, Any] = {
    "id": "q1",
    "recording": "r1",
    "clip": "r1|P1|0|48",
    "agent": "P1",
    "template": "counterfactual/world/able-to",
    "question": "Would the person still be able to open the fridge?",
    "program": "p",
    "program_graph": [],
    "answer": "yes",
    "answer_kind": "binary",
    "types": ["counterfactual", "descriptive"],
    "scopes": ["world"],
    "semantic": "action",
    "structural": "query",
    "reference": "indirect",
    "steps": 3,
    "params": {},
}


def test_the_reasoning_type_and_its_shorter_keys() -> None:
    assert reasoning_type(RECORD) == "counterfactual$descriptive$world$action$query$indirect"
    assert balancing_key(RECORD) == "counterfactual$descriptive$world$action$query"
    assert balancing_key(RECORD, with_reference=True) == reasoning_type(RECORD)
    assert reasoning_type(RECORD, "semantic") == "counterfactual$descriptive$world$action"
    assert category_tags(RECORD) == [
        "type/counterfactual",
        "type/descriptive",
        "scope/world",
        "semantic/action",
        "structural/query",
        "reference/indirect",
        "answer/binary",
    ]
    assert [answer_kind(a) for a in ("yes", "no", "Yes", "the fridge")] == [
        "binary",
        "binary",
        "open",
        "open",
    ]


def test_a_question_is_tagged_as_its_record() -> None:
    question = Question.model_validate(RECORD)
    assert question.reasoning_type == reasoning_type(RECORD)
    groups = {name: list(labeller(question)) for name, _, labeller in BREAKDOWNS}
    assert groups["official_tags"] == reasoning_tags(RECORD) == question.reasoning_type.split("$")
    assert groups["type"] == ["counterfactual", "descriptive"] and groups["scope"] == ["world"]
    assert groups["semantic"] == ["action"] and groups["reference"] == ["indirect"]
    assert groups["open_binary_structural"] == ["all", "open"]
    assert groups["open_binary_answer"] == ["all", "binary"]
    assert groups["evidence"] == ["not audited"]
