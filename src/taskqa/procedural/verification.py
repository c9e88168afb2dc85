"""Verification by two annotators and an adjudicator, after Table 13 of the ProMQA paper.

Each annotator judges the generated question and, if they accept it, each generated answer;
they may write answers of their own. The adjudicator sees a shuffled pool of the generated and
human-written answers and decides what the annotators left open:

1. both annotators agree on the question and every generated answer, nobody wrote an answer:
   the majority stands and the adjudicator has nothing to do;
2. as 1 but an answer is disputed: the adjudicator decides that answer;
3. human-written answers exist: the majority stands for generated answers, the adjudicator
   decides each human-written one;
4. the annotators disagree on the question: the adjudicator decides it and the generated
   answers only one annotator judged, and (the only case where this is allowed) may add
   answers, since the annotator who rejected the question never had the chance to.

An answer is final when both annotators approved it, or when it was left open and the
adjudicator approved it. Agreement statistics compare the two annotators pairwise.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from taskqa.problems import InvalidInputError, Problem

MACHINE = "machine"
HUMAN = "human"

Record = dict[str, Any]


@dataclass(frozen=True)
class AnnotatorJudgment:
    question: bool
    answers: tuple[bool | None, ...]  # one per generated answer; None: not judged
    written: tuple[str, ...] = ()  # answers the annotator wrote ("comment" in the release)

    def as_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answers": list(self.answers),
            "comment": list(self.written),
        }


@dataclass(frozen=True)
class AdjudicatorDecision:
    question: bool | None = None
    answers: Mapping[str, bool] = field(default_factory=dict)  # by answer text
    added: tuple[str, ...] = ()


@dataclass(frozen=True)
class Adjudicated:
    pool: tuple[str, ...]
    tags: tuple[str, ...]
    init_question: bool | None
    init_answers: tuple[bool | None, ...]
    judge_question: bool | None
    judge_answers: tuple[bool | None, ...] | None  # None: the adjudicator was not needed
    question_final: bool
    answers_final: tuple[bool, ...]
    added: tuple[str, ...] = ()  # answers the adjudicator wrote (final, tagged "adjudicator")

    @property
    def needs_adjudicator(self) -> bool:
        return self.judge_answers is not None


def _vote(a: bool | None, b: bool | None) -> bool | None:
    """Both said yes: True; both said no: False; anything else is left to the adjudicator."""
    if a is True and b is True:
        return True
    if a is False and b is False:
        return False
    return None


def answer_pool(
    machine: Sequence[str], judges: Sequence[AnnotatorJudgment], seed: int, question_id: str
) -> tuple[list[str], list[str]]:
    """Generated and human-written answers in a seeded shuffled order, with their sources."""
    pool = [(answer, MACHINE) for answer in machine]
    pool += [(answer, HUMAN) for judge in judges for answer in judge.written]
    random.Random(f"{seed}:{question_id}:pool").shuffle(pool)
    return [text for text, _ in pool], [tag for _, tag in pool]


def adjudicate(
    machine: Sequence[str],
    judges: Sequence[AnnotatorJudgment],
    decision: AdjudicatorDecision | None,
    pool: Sequence[str],
    tags: Sequence[str],
    where: str = "",
) -> Adjudicated:
    """Apply the adjudication rule to one question; ``pool`` is the order the adjudicator saw."""
    if len(judges) != 2:
        raise InvalidInputError([Problem(where, "", f"expected 2 annotators, got {len(judges)}")])
    first, second = judges
    init_question = _vote(first.question, second.question)
    init = [
        _vote(_at(first.answers, machine.index(text)), _at(second.answers, machine.index(text)))
        if tag == MACHINE
        else None
        for text, tag in zip(pool, tags, strict=True)
    ]
    added = decision.added if decision is not None else ()
    if added and init_question is not None:
        message = (
            "the adjudicator may add answers only when the annotators disagree on the question"
        )
        raise InvalidInputError([Problem(where, "", message)])
    if init_question is not None and None not in init:
        return Adjudicated(
            tuple(pool), tuple(tags), init_question, tuple(init), None, None,
            init_question, tuple(v is True for v in init),
        )  # fmt: skip
    if decision is None:
        raise InvalidInputError([Problem(where, "", "open judgments but no adjudicator decision")])
    missing = [
        text
        for text, value in zip(pool, init, strict=True)
        if value is None and text not in decision.answers
    ]
    if missing or (init_question is None and decision.question is None):
        undecided = ", ".join(repr(text) for text in missing) or "the question"
        raise InvalidInputError([Problem(where, "", f"the adjudicator did not decide {undecided}")])
    # The majority stands wherever the annotators agreed; the adjudicator fills in the rest.
    judge_question = init_question if init_question is not None else decision.question
    judge_answers = tuple(
        value if value is not None else decision.answers[text]
        for text, value in zip(pool, init, strict=True)
    )
    return Adjudicated(
        tuple(pool), tuple(tags), init_question, tuple(init), judge_question, judge_answers,
        bool(judge_question), tuple(v is True for v in judge_answers), tuple(added),
    )  # fmt: skip


def _at(values: Sequence[bool | None], index: int) -> bool | None:
    return values[index] if index < len(values) else None


def final_fields(result: Adjudicated, question: str) -> dict[str, Any]:
    """The released top-level fields: question, answers, their tags and who approved them."""
    kept = [i for i, ok in enumerate(result.answers_final) if ok]
    added = list(result.added)
    return {
        "question": question,
        "question_approved_by": "annotator" if result.init_question is True else "adjudicator",
        "answers": [result.pool[i] for i in kept] + added,
        "answer_tags": ["machine" if result.tags[i] == MACHINE else "annotator" for i in kept]
        + ["adjudicator" for _ in added],
        "answer_approved_by": [
            "annotator" if result.init_answers[i] is True else "adjudicator" for i in kept
        ]
        + ["adjudicator" for _ in added],
    }


def adjudication_block(result: Adjudicated, question: str) -> dict[str, Any]:
    block: dict[str, Any] = {
        "question": question,
        "answers": list(result.pool),
        "answer_tags": list(result.tags),
        "init": {"question": result.init_question, "answers": list(result.init_answers)},
    }
    if result.judge_answers is not None:
        block["judge"] = {
            "question": result.judge_question,
            "answers": list(result.judge_answers),
            "comment": list(result.added),
        }
    return block


@dataclass(frozen=True)
class Agreement:
    questions: float | None  # share of questions both annotators judged alike
    answers: float | None  # share of generated answers both judged, judged alike
    question_count: int
    answer_count: int


def agreement(judgment_pairs: Sequence[Sequence[AnnotatorJudgment]]) -> Agreement:
    same_questions = same_answers = answer_count = 0
    for first, second in judgment_pairs:
        same_questions += first.question == second.question
        for a, b in zip(first.answers, second.answers, strict=False):
            if a is not None and b is not None:
                answer_count += 1
                same_answers += a == b
    count = len(judgment_pairs)
    return Agreement(
        same_questions / count if count else None,
        same_answers / answer_count if answer_count else None,
        count,
        answer_count,
    )


def judgment_from_json(data: Any, file: str, at: list[str | int]) -> AnnotatorJudgment:
    problems: list[Problem] = []
    if not isinstance(data, dict):
        raise InvalidInputError([Problem.at(file, at, "expected {question, answers, comment}")])
    question = data.get("question")
    if not isinstance(question, bool):
        problems.append(
            Problem.at(file, [*at, "question"], f"expected true or false (got {question!r})")
        )
    answers = data.get("answers", [])
    if not isinstance(answers, list) or not all(a is None or isinstance(a, bool) for a in answers):
        problems.append(Problem.at(file, [*at, "answers"], "expected a list of true/false/null"))
    written = data.get("comment", [])
    if not isinstance(written, list) or not all(isinstance(w, str) for w in written):
        problems.append(Problem.at(file, [*at, "comment"], "expected a list of strings"))
    if problems:
        raise InvalidInputError(problems)
    return AnnotatorJudgment(bool(question), tuple(answers), tuple(written))
