"""ProMQA's released record format: export of verified examples and import of released files.

A released record is the candidate's fields, then ``generation`` (prompt, response, model_id,
template_type, qas), ``adjudication`` (the answer pool, its tags, the annotators' majority as
``init`` and, when needed, the adjudicator's ``judge``), ``verification`` (the generated
question, its answers and both annotators' judgments) and the final ``question``,
``question_approved_by``, ``answers``, ``answer_tags`` and ``answer_approved_by``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from taskqa.problems import InvalidInputError, Problem
from taskqa.procedural.verification import (
    Adjudicated,
    AdjudicatorDecision,
    Agreement,
    AnnotatorJudgment,
    adjudicate,
    adjudication_block,
    agreement,
    answer_pool,
    final_fields,
    judgment_from_json,
)

CANDIDATE_FIELDS = (
    "recording_id",
    "example_id",
    "end_time",
    "activity_name",
    "previous_steps",
    "current_step",
    "type",
    "next_steps",
    "missing_steps",
    "error_description",
    "question_id",
    "is_noisy",
)

Record = dict[str, Any]


@dataclass(frozen=True)
class VerifiedExample:
    """What verification knows about one generated question, in taskqa's terms."""

    generated: Record  # candidate fields plus ``generation``
    judges: tuple[AnnotatorJudgment, AnnotatorJudgment]
    pool: tuple[str, ...]
    tags: tuple[str, ...]
    decision: AdjudicatorDecision | None

    @property
    def question(self) -> str:
        return str(self.generated["generation"]["qas"][0]["question"])

    @property
    def machine_answers(self) -> list[str]:
        return list(self.generated["generation"]["qas"][0]["answers"])

    def adjudicated(self, where: str = "") -> Adjudicated:
        return adjudicate(
            self.machine_answers, self.judges, self.decision, self.pool, self.tags, where
        )


def export_record(example: VerifiedExample, result: Adjudicated) -> Record:
    record = dict(example.generated)
    record["adjudication"] = adjudication_block(result, example.question)
    record["verification"] = {
        "question": example.question,
        "answers": example.machine_answers,
        "judges": [judge.as_json() for judge in example.judges],
    }
    record.update(final_fields(result, example.question))
    return record


def import_record(data: Mapping[str, Any], file: str, index: int) -> VerifiedExample:
    """One released record back into a VerifiedExample; re-exporting it gives the record again."""
    at: list[str | int] = [index]
    missing = [key for key in ("generation", "verification", "adjudication") if key not in data]
    if missing:
        raise InvalidInputError(
            [
                Problem.at(file, [*at, key], "missing; expected a verified ProMQA record")
                for key in missing
            ]
        )
    judges_data = data["verification"].get("judges")
    if not isinstance(judges_data, list) or len(judges_data) != 2:
        raise InvalidInputError(
            [Problem.at(file, [*at, "verification", "judges"], "expected two annotator judgments")]
        )
    first, second = (
        judgment_from_json(j, file, [*at, "verification", "judges", n])
        for n, j in enumerate(judges_data)
    )
    adjudication = data["adjudication"]
    pool = tuple(adjudication["answers"])
    tags = tuple(adjudication["answer_tags"])
    decision = _decision(adjudication, pool)
    generated = {key: data[key] for key in CANDIDATE_FIELDS if key in data}
    generated["generation"] = data["generation"]
    return VerifiedExample(generated, (first, second), pool, tags, decision)


def _decision(adjudication: Mapping[str, Any], pool: Sequence[str]) -> AdjudicatorDecision | None:
    judge = adjudication.get("judge")
    if judge is None:
        return None
    init = adjudication["init"]
    answers = {
        text: bool(value)
        for text, start, value in zip(pool, init["answers"], judge["answers"], strict=True)
        if start is None
    }
    question = judge.get("question") if init.get("question") is None else None
    return AdjudicatorDecision(question, answers, tuple(judge.get("comment", [])))


def import_records(data: Any, file: str) -> list[VerifiedExample]:
    if not isinstance(data, list):
        raise InvalidInputError([Problem(file, "", "expected a list of ProMQA records")])
    return [import_record(item, file, index) for index, item in enumerate(data)]


def judgments_json(example: VerifiedExample) -> dict[str, Any]:
    """The verification-file entry that `verify` turns back into the released record."""
    entry: dict[str, Any] = {
        "question_id": example.generated["question_id"],
        "judges": [judge.as_json() for judge in example.judges],
        "pool": list(example.pool),
        "pool_tags": list(example.tags),
    }
    if example.decision is not None:
        entry["adjudicator"] = {
            "question": example.decision.question,
            "answers": dict(example.decision.answers),
            "added": list(example.decision.added),
        }
    return entry


@dataclass
class VerifyResult:
    kept: list[Record]
    rejected: int
    unverified: int
    open_items: list[Record]
    agreement: Agreement


def verify_all(
    generated: Sequence[Mapping[str, Any]],
    judgments: Sequence[Mapping[str, Any]],
    file: str,
    seed: int,
) -> VerifyResult:
    """Adjudicate every generated record that has judgments; list what the adjudicator owes."""
    by_id = {str(entry.get("question_id")): (i, entry) for i, entry in enumerate(judgments)}
    kept: list[Record] = []
    open_items: list[Record] = []
    pairs: list[tuple[AnnotatorJudgment, AnnotatorJudgment]] = []
    rejected = unverified = 0
    for record in generated:
        found = by_id.get(str(record["question_id"]))
        if found is None:
            unverified += 1
            continue
        index, entry = found
        example = _example(dict(record), entry, file, index, seed)
        pairs.append(example.judges)
        where = f"{file}[{index}] ({record['question_id']})"
        try:
            result = example.adjudicated(where)
        except InvalidInputError:
            if example.decision is not None:
                raise
            open_items.append(_open_item(example))
            continue
        if result.question_final and (any(result.answers_final) or result.added):
            kept.append(export_record(example, result))
        else:
            rejected += 1
    return VerifyResult(kept, rejected, unverified, open_items, agreement(pairs))


def _example(
    record: Record, entry: Mapping[str, Any], file: str, index: int, seed: int
) -> VerifiedExample:
    judges_data = entry.get("judges")
    if not isinstance(judges_data, list) or len(judges_data) != 2:
        raise InvalidInputError(
            [Problem.at(file, [index, "judges"], "expected a list of two annotator judgments")]
        )
    first, second = (
        judgment_from_json(j, file, [index, "judges", n]) for n, j in enumerate(judges_data)
    )
    machine = list(record["generation"]["qas"][0]["answers"])
    if "pool" in entry:
        pool, tags = list(entry["pool"]), list(entry.get("pool_tags", []))
        if len(pool) != len(tags):
            message = "expected pool_tags to have one tag per pool answer"
            raise InvalidInputError([Problem.at(file, [index, "pool_tags"], message)])
    else:
        pool, tags = answer_pool(machine, (first, second), seed, str(record["question_id"]))
    decision = None
    raw = entry.get("adjudicator")
    if isinstance(raw, dict):
        decision = AdjudicatorDecision(
            raw.get("question"), dict(raw.get("answers", {})), tuple(raw.get("added", []))
        )
    return VerifiedExample(record, (first, second), tuple(pool), tuple(tags), decision)


def _open_item(example: VerifiedExample) -> Record:
    """What the adjudicator must decide, with the sources of the answers hidden."""
    first, second = example.judges
    machine = example.machine_answers
    open_answers = []
    for text, tag in zip(example.pool, example.tags, strict=True):
        if tag != "machine":
            open_answers.append(text)
            continue
        index = machine.index(text)
        votes = [j.answers[index] if index < len(j.answers) else None for j in (first, second)]
        if not (votes[0] is votes[1] and votes[0] is not None):
            open_answers.append(text)
    return {
        "question_id": example.generated["question_id"],
        "question": example.question,
        "question_open": first.question != second.question,
        "answers": list(example.pool),
        "open_answers": open_answers,
        "may_add_answers": first.question != second.question,
    }
