"""``verify``: ProMQA-style review of generated question-answer pairs, two reviewers and an
adjudicator (the paper's Table 13, as ``taskqa procedural verify`` models it).

Items are generated records of ``taskqa procedural generate`` (or the generated half of
``taskqa procedural import-released``), up to ``--per-category`` per question type. Each item
is reviewed by exactly two reviewers. A reviewer accepts or rejects the question (a rejection
needs a reason), and, for an accepted question, accepts, edits or rejects each generated
answer and may write answers of their own. In ProMQA's terms an edit is a rejected generated
answer plus a human-written one (``comment``); the reason is the studio's own and is exported
in ``reviews.json`` only, since the judgments format has no place for it.

Whether an item goes to the adjudicator is decided by the same call ``procedural verify``
makes (``verification.adjudicate`` without a decision): when the reviewers disagree on the
question or on a generated answer, or wrote answers, an adjudicator (a rater created as such,
``--adjudicators``) sees the shuffled pool of generated and written answers, sources hidden,
and decides what is open; only when the reviewers disagree on the question may they add
answers. The export ``judgments.json`` is exactly the verification file ``procedural verify``
reads, holding the items that are complete; ``verified.json`` is what ``verify`` makes of it.
There are no catch trials: ProMQA's verification has none, and its control is the second
reviewer and the adjudicator.
"""

from __future__ import annotations

import json
import random
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taskqa.jsonio import dumps, dumps_indented, load_json
from taskqa.problems import InvalidInputError, Problem
from taskqa.procedural.release import verify_all
from taskqa.procedural.verification import (
    HUMAN,
    AnnotatorJudgment,
    adjudicate,
    agreement,
    answer_pool,
)
from taskqa.studio.db import Item, items, meta
from taskqa.studio.kinds.base import ADJUDICATE, ANSWER, CreateOptions, ItemSpec, Level, Plan
from taskqa.studio.security import MAX_FIELD_CHARS, FormError, choice_field, text_field

REVIEWERS = 2  # the judgments format holds exactly two annotators
MAX_GENERATED = 10  # generated answers per question (ProMQA shows up to 5)
MAX_WRITTEN = 10  # answers a reviewer or the adjudicator may write
MAX_ANSWER_CHARS = 500  # the longest written answer in ProMQA's sample is 251 characters
MAX_REASON_CHARS = 500
VERDICTS = ("accept", "reject")
ANSWER_VERDICTS = ("accept", "edit", "reject")
VIDEO_NAMES = ("{}.mp4", "{}_360p.mp4")  # CaptainCook4D's recordings, if a media folder has them


class VerifyKind:
    name = "verify"
    title = "Check the question and its answers"
    template = "verify.html"
    default_per_item = REVIEWERS
    level: Level = "nominal"

    def plan(self, source: Path, options: CreateOptions) -> Plan:
        if options.per_item not in (None, REVIEWERS):
            given = options.per_item
            message = f"has exactly {REVIEWERS} reviewers per item (got --per-item {given})"
            raise InvalidInputError([Problem("verify", "", message)])
        records = load_json(source)
        if not isinstance(records, list):
            raise InvalidInputError(
                [Problem(source.name, "", "expected a list of generated records "
                         "(`taskqa procedural generate`)")]
            )  # fmt: skip
        media_root = options.media.resolve() if options.media else None
        by_type: dict[str, list[ItemSpec]] = {}
        unparsed = 0
        seen: set[str] = set()
        for index, record in enumerate(records):
            question, answers = _generated_pair(record, source.name, index)
            if question is None:
                unparsed += 1  # the model's reply had no usable pair: nothing to verify
                continue
            question_id = str(record["question_id"])
            if question_id in seen:
                raise InvalidInputError(
                    [Problem.at(source.name, [index, "question_id"], f"{question_id!r} repeats")]
                )
            seen.add(question_id)
            media = _video(media_root, str(record.get("recording_id", "")))
            if options.require_video and media is None:
                continue
            end = _seconds(record.get("end_time"))
            # the record as text: the study file sorts the keys of its payloads, and the
            # verified records keep the generated record's order, as `procedural verify` does
            payload = {
                "question": question,
                "answers": answers,
                "record": json.dumps(record, ensure_ascii=False),
                "index": index,  # exports keep the generated file's order, as verify does
            }
            spec = ItemSpec(key=question_id, category=str(record.get("type", "unknown")),
                            payload=payload, media=media,
                            start_s=0.0 if media and end is not None else None,
                            end_s=end if media else None)  # fmt: skip
            by_type.setdefault(spec.category, []).append(spec)
        rng = random.Random(f"studio:verify:{options.seed}")
        chosen: list[ItemSpec] = []
        for category in sorted(by_type):
            specs = sorted(by_type[category], key=lambda spec: spec.key)
            rng.shuffle(specs)
            chosen += specs[: options.per_category]
        plan_meta = {"generated": str(source.resolve()), "unparsed_records_left_out": unparsed}
        return Plan(chosen, [], media_root, plan_meta, stages=(ANSWER, ADJUDICATE))

    def parse(
        self, form: dict[str, str], item: Item, stage: str, connection: sqlite3.Connection
    ) -> dict[str, Any]:
        if stage == ADJUDICATE:
            return _parse_decision(form, _open_view(connection, item))
        return _parse_review(form, _machine(item))

    def catch_correct(self, response: dict[str, Any], expected: Any) -> bool:
        return False  # verify has no catch trials

    def agreement_value(self, response: dict[str, Any]) -> str | int | None:
        # the question's verdict: what every review gives (answers are judged only when accepted)
        return "accept" if response.get("question") else "reject"

    def context(self, connection: sqlite3.Connection, item: Item, stage: str) -> dict[str, Any]:
        context: dict[str, Any] = {
            "record": _record(item),
            "question": _question(item),
            "machine": _machine(item),
            "limits": {
                "lines": MAX_FIELD_CHARS,
                "answer": MAX_ANSWER_CHARS,
                "reason": MAX_REASON_CHARS,
            },  # fmt: skip
        }
        if stage == ADJUDICATE:
            context["view"] = _open_view(connection, item)
        return context

    def exports(self, connection: sqlite3.Connection, flagged: set[str]) -> dict[str, bytes]:
        seed = int(meta(connection)["options"]["seed"])
        study = items(connection)
        by_item = _responses_by_item(connection)
        entries: list[dict[str, Any]] = []
        reviews: list[dict[str, Any]] = []
        counts = {"items": len(study), "reviewed": 0, "agreed": 0, "adjudication_needed": 0,
                  "adjudicated": 0}  # fmt: skip
        pairs: list[tuple[AnnotatorJudgment, AnnotatorJudgment]] = []
        study.sort(key=lambda item: int(item.payload["index"]))
        for item in study:
            found = by_item.get(item.id, {})
            first = sorted(found.get(ANSWER, []), key=lambda r: r["rater_id"])
            decisions = found.get(ADJUDICATE, [])
            state = "waiting for reviews"
            entry: dict[str, Any] | None = None
            if len(first) == REVIEWERS:
                judges = (_judgment(first[0]["response"]), _judgment(first[1]["response"]))
                pairs.append(judges)
                counts["reviewed"] += 1
                pool, tags = answer_pool(_machine(item), judges, seed, item.key)
                entry = {"question_id": item.key, "judges": [j.as_json() for j in judges],
                         "pool": pool, "pool_tags": tags}  # fmt: skip
                if not _needs_adjudicator(item, judges):
                    counts["agreed"] += 1
                    state = "agreed"
                else:
                    counts["adjudication_needed"] += 1
                    if decisions:
                        counts["adjudicated"] += 1
                        decision = decisions[0]["response"]
                        entry["adjudicator"] = {"question": decision["question"],
                                                "answers": decision["answers"],
                                                "added": decision["added"]}  # fmt: skip
                        state = "adjudicated"
                    else:
                        state = "waiting for the adjudicator"
                        entry = None  # `procedural verify` would list it as open: not yet
            if entry is not None:
                entries.append(entry)
            reviews.append(_review_line(item, state, first, decisions))
        generated = [_record(item) for item in study]
        verified = verify_all(generated, entries, "judgments.json", seed)
        shared = agreement(pairs)
        summary = counts | {
            "complete": len(entries),
            "kept": len(verified.kept),
            "rejected": verified.rejected,
            "annotator_agreement": {"questions": shared.questions, "answers": shared.answers,
                                    "question_count": shared.question_count,
                                    "answer_count": shared.answer_count},
        }  # fmt: skip
        return {
            "judgments.json": (dumps_indented(entries) + "\n").encode("utf-8"),
            "verified.json": (dumps_indented(verified.kept) + "\n").encode("utf-8"),
            "reviews.json": _json(reviews),
            "verification.json": _json(summary),
        }


def _json(value: Any) -> bytes:
    return dumps(value, sort_keys=True).encode("utf-8")


def _generated_pair(record: Any, file: str, index: int) -> tuple[str | None, list[str]]:
    """The kept pair ``generation.qas[0]``; (None, []) for a reply that had no parsable pair."""
    if not isinstance(record, dict) or not isinstance(record.get("question_id"), str):
        raise InvalidInputError(
            [Problem.at(file, [index], "expected a generated record with question_id")]
        )
    try:
        pair = record["generation"]["qas"][0]
        question, answers = pair["question"], pair["answers"]
    except (KeyError, IndexError, TypeError):
        raise InvalidInputError(
            [Problem.at(file, [index, "generation", "qas"],
                        "expected [{question, answers}] (a `taskqa procedural generate` record)")]
        ) from None  # fmt: skip
    if question is None:
        return None, []
    where: list[str | int] = [index, "generation", "qas", 0]
    if not isinstance(question, str) or not question.strip():
        raise InvalidInputError([Problem.at(file, [*where, "question"], "expected a string")])
    if (
        not isinstance(answers, list)
        or not answers
        or not all(isinstance(a, str) and a.strip() for a in answers)
    ):
        raise InvalidInputError(
            [Problem.at(file, [*where, "answers"], "expected a list of non-empty strings")]
        )
    if len(answers) > MAX_GENERATED:
        message = f"{len(answers)} answers; the review page shows at most {MAX_GENERATED}"
        raise InvalidInputError([Problem.at(file, [*where, "answers"], message)])
    return question, list(answers)


def _seconds(value: Any) -> float | None:
    """``HH:MM:SS`` (ProMQA's ``end_time``) in seconds."""
    if not isinstance(value, str):
        return None
    try:
        hours, minutes, seconds = (int(part) for part in value.split(":"))
    except ValueError:
        return None
    return float(hours * 3600 + minutes * 60 + seconds)


def _video(root: Path | None, recording: str) -> str | None:
    if root is None or not recording:
        return None
    for pattern in VIDEO_NAMES:
        name = pattern.format(recording)
        if (root / name).is_file():
            return name
    return None


def _record(item: Item) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(item.payload["record"])
    return record


def _question(item: Item) -> str:
    return str(item.payload["question"])


def _machine(item: Item) -> list[str]:
    return [str(answer) for answer in item.payload["answers"]]


def _judgment(response: dict[str, Any]) -> AnnotatorJudgment:
    return AnnotatorJudgment(
        bool(response["question"]), tuple(response["answers"]), tuple(response["comment"])
    )


def _needs_adjudicator(item: Item, judges: tuple[AnnotatorJudgment, AnnotatorJudgment]) -> bool:
    """Exactly `procedural verify`'s test: does adjudication without a decision fail?"""
    machine = _machine(item)
    pool, tags = answer_pool(machine, judges, 0, item.key)  # the order does not matter here
    try:
        adjudicate(machine, judges, None, pool, tags, item.key)
    except InvalidInputError:
        return True
    return False


def _reviews(connection: sqlite3.Connection, item_id: int) -> list[tuple[int, dict[str, Any]]]:
    rows = connection.execute(
        "SELECT rater_id, response FROM responses WHERE item_id = ? AND stage = ? "
        "ORDER BY rater_id",
        (item_id, ANSWER),
    ).fetchall()
    return [(int(rater), dict(json.loads(data))) for rater, data in rows]


def adjudication_status(connection: sqlite3.Connection, item_id: int) -> str:
    """The adjudicator's item: ``wait`` for both reviews, then ``ready`` if they leave
    something open, else ``skip``."""
    reviews = _reviews(connection, item_id)
    if len(reviews) < REVIEWERS:
        return "wait"
    key, payload = connection.execute(
        "SELECT key, payload FROM items WHERE id = ?", (item_id,)
    ).fetchone()
    item = Item(item_id, key, "", False, None, None, None, None, json.loads(payload))
    judges = (_judgment(reviews[0][1]), _judgment(reviews[1][1]))
    return "ready" if _needs_adjudicator(item, judges) else "skip"


@dataclass(frozen=True)
class OpenView:
    """What the adjudicator sees: the pool in the study's seeded order, sources hidden."""

    pool: list[str]
    tags: list[str]
    settled: list[bool | None]  # per pool answer: both reviewers' verdict, None when open
    question_settled: bool | None  # both reviewers' verdict on the question, None when split
    reasons: list[str]  # the reviewers' reasons for what they rejected

    @property
    def question_open(self) -> bool:
        return self.question_settled is None

    @property
    def may_add(self) -> bool:
        # Table 13: only when the reviewers disagree on the question, since the one who
        # rejected it never had the chance to write answers
        return self.question_open


def _open_view(connection: sqlite3.Connection, item: Item) -> OpenView:
    reviews = [response for _, response in _reviews(connection, item.id)]
    if len(reviews) < REVIEWERS:
        raise FormError(f"item {item.id} waits for the other reviewers", 409)
    judges = (_judgment(reviews[0]), _judgment(reviews[1]))
    machine = _machine(item)
    seed = int(meta(connection)["options"]["seed"])
    pool, tags = answer_pool(machine, judges, seed, item.key)
    settled_question = _vote(judges[0].question, judges[1].question)
    settled: list[bool | None] = []
    for text, tag in zip(pool, tags, strict=True):
        if tag == HUMAN:
            settled.append(None)  # written answers are always the adjudicator's to decide
            continue
        at = machine.index(text)
        settled.append(_vote(*(j.answers[at] if at < len(j.answers) else None for j in judges)))
    reasons = [str(r["reason"]) for r in reviews if r.get("reason")]
    return OpenView(pool, tags, settled, settled_question, reasons)


def _vote(a: bool | None, b: bool | None) -> bool | None:
    """As ``verification._vote``: both yes, both no, or open."""
    return a if a is not None and a == b else None


def _lines(form: dict[str, str], name: str) -> list[str]:
    """Answers written one per line, each stripped; blank lines dropped, repeats refused."""
    text = text_field(form, name, MAX_FIELD_CHARS, required=False)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > MAX_WRITTEN:
        raise FormError(f"field {name!r}: at most {MAX_WRITTEN} answers, one per line")
    for line in lines:
        if len(line) > MAX_ANSWER_CHARS:
            raise FormError(f"field {name!r}: an answer is longer than {MAX_ANSWER_CHARS} "
                            "characters")  # fmt: skip
    if len(set(lines)) != len(lines):
        raise FormError(f"field {name!r}: the same answer is written twice")
    return lines


def _parse_review(form: dict[str, str], machine: list[str]) -> dict[str, Any]:
    verdict = choice_field(form, "question", VERDICTS)
    reason = text_field(form, "reason", MAX_REASON_CHARS, required=False)
    if verdict == "reject":
        if not reason:
            raise FormError("say why the question is rejected (field 'reason')")
        # as in ProMQA: a rejected question's answers are not judged
        return {"question": False, "answers": [], "comment": [], "reason": reason}
    answers: list[bool] = []
    edits: list[str] = []
    for index, original in enumerate(machine):
        choice = choice_field(form, f"answer-{index}", ANSWER_VERDICTS)
        if choice == "edit":
            edited = text_field(form, f"edit-{index}", MAX_ANSWER_CHARS)
            if edited == original.strip():
                raise FormError(f"answer {index + 1} is unchanged: accept it, or change it")
            edits.append(edited)
        answers.append(choice == "accept")
        if choice == "reject" and not reason:
            raise FormError(f"say why answer {index + 1} is rejected (field 'reason')")
    comment = edits + [line for line in _lines(form, "written") if line not in edits]
    if any(text in machine for text in comment):
        raise FormError("a written answer repeats a generated one: accept that one instead")
    return {"question": True, "answers": answers, "comment": comment, "reason": reason or None}


def _parse_decision(form: dict[str, str], view: OpenView) -> dict[str, Any]:
    question: bool | None = None
    if view.question_open:
        question = choice_field(form, "question", VERDICTS) == "accept"
    rejected = question is False or view.question_settled is False
    decided: dict[str, bool] = {}
    for index, (text, settled) in enumerate(zip(view.pool, view.settled, strict=True)):
        if settled is not None:
            continue
        choice = form.get(f"pool-{index}", "")
        if choice in VERDICTS:
            decided[text] = choice == "accept"
        elif rejected:
            decided[text] = False  # the question is not released: its answers go with it
        else:
            raise FormError(f"field 'pool-{index}': accept or reject answer {index + 1}")
    added = _lines(form, "added")
    if added and not view.may_add:
        raise FormError("answers may be added only when the reviewers disagree on the question")
    if added and rejected:
        raise FormError("a rejected question gets no answers")
    if any(text in view.pool for text in added):
        raise FormError("an added answer repeats one of the pool: accept that one instead")
    return {"question": question, "answers": decided, "added": added}


def _responses_by_item(
    connection: sqlite3.Connection,
) -> dict[int, dict[str, list[dict[str, Any]]]]:
    rows = connection.execute(
        "SELECT r.item_id, r.stage, r.rater_id, raters.name, r.response, r.seconds "
        "FROM responses r JOIN raters ON raters.id = r.rater_id ORDER BY r.id"
    )
    found: dict[int, dict[str, list[dict[str, Any]]]] = {}
    for item_id, stage, rater_id, name, data, seconds in rows:
        found.setdefault(item_id, {}).setdefault(stage, []).append(
            {
                "rater_id": rater_id,
                "rater": name,
                "response": json.loads(data),
                "seconds": seconds,
            }  # fmt: skip
        )
    return found


def _review_line(
    item: Item, state: str, first: list[dict[str, Any]], decisions: list[dict[str, Any]]
) -> dict[str, Any]:
    """One item of ``reviews.json``: everything the reviewers and adjudicator said."""
    line: dict[str, Any] = {
        "question_id": item.key,
        "type": item.category,
        "question": _question(item),
        "generated_answers": _machine(item),
        "state": state,
        "reviews": [
            {
                "rater": r["rater"],
                "seconds": r["seconds"],
                "question": "accept" if r["response"]["question"] else "reject",
                "answers": r["response"]["answers"],
                "written": r["response"]["comment"],
                "reason": r["response"].get("reason"),
            }
            for r in first
        ],  # fmt: skip
    }
    if decisions:
        decision = decisions[0]
        line["adjudication"] = {"rater": decision["rater"], "seconds": decision["seconds"],
                                **decision["response"]}  # fmt: skip
    return line
