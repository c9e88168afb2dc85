"""A split's questions as numpy columns, with every breakdown as (question, group) pairs.

The breakdowns themselves (which groups a question belongs to) are the question record's tags,
defined in ``taskqa.questions.tags.BREAKDOWNS``.

Scoring a million predictions has to be vectorized, so each breakdown is stored once as two
integer arrays: which question, which group. A multi-label breakdown (a question with two types
counts in both) simply has more pairs than questions; EgoTaskQA's official per-tag metric counts
a question once per tag occurrence, and the pair form does exactly that.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from taskqa.answers import Normalizer, normalize_answer
from taskqa.benchmark.folder import SplitQuestion
from taskqa.questions.records import Question
from taskqa.questions.tags import BREAKDOWNS

IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class Breakdown:
    name: str
    caption: str
    groups: tuple[str, ...]
    offset: int  # where this breakdown's groups start in the table's global group numbering


@dataclass
class QuestionTable:
    """The questions of the split being scored, in file order."""

    ids: list[str]
    index: dict[str, int]
    answers: list[str]
    answer_codes: IntArray  # code of the normalized answer in ``vocabulary``
    vocabulary: dict[str, int]  # normalized closed vocabulary -> code
    clips: list[str]
    clip_codes: IntArray
    pair_questions: IntArray  # one entry per (question, group) membership
    pair_groups: IntArray
    breakdowns: tuple[Breakdown, ...]
    pair_cells: IntArray  # clip * group_count + group, per pair: the (clip, group) cell
    # per question (index -> set): the normalized other forms of its answer
    # (``Question.answer_aliases``, the world's raw form of an answer said in plain words) that
    # are no answer of the vocabulary. Per question, since one raw form ("wash pan using
    # faucet") can stand for two answers ("wash the pan ...", "try to wash the pan ...").
    aliases: dict[int, frozenset[str]] = field(default_factory=dict)

    def with_aliases(self, codes: IntArray, values: Sequence[str | None]) -> IntArray:
        """``codes`` (per question) with a prediction in one of the question's aliases scored
        as its answer; ``values`` are the predictions, per question."""
        for index, forms in self.aliases.items():
            value = values[index]
            wrong = codes[index] != self.answer_codes[index] and value is not None
            if wrong and normalize_answer(str(value)) in forms:
                codes[index] = self.answer_codes[index]
        return codes

    @property
    def size(self) -> int:
        return len(self.ids)

    @property
    def group_count(self) -> int:
        last = self.breakdowns[-1]
        return last.offset + len(last.groups)

    def group_names(self) -> list[tuple[str, str]]:
        return [(b.name, g) for b in self.breakdowns for g in b.groups]


def build_table(
    questions: Sequence[SplitQuestion], answer_vocabulary: Iterable[str]
) -> QuestionTable:
    normalize = Normalizer()
    vocabulary: dict[str, int] = {}
    for answer in sorted(answer_vocabulary):
        vocabulary.setdefault(normalize(answer), len(vocabulary))
    records = [q.question for q in questions]
    answers = [r.answer for r in records]
    for answer in answers:  # the split's own answers are always in the vocabulary
        vocabulary.setdefault(normalize(answer), len(vocabulary))
    aliases: dict[int, frozenset[str]] = {}
    for index, record in enumerate(records):
        # an alias never stands for another answer of the vocabulary
        forms = frozenset(normalize(a) for a in record.answer_aliases) - vocabulary.keys()
        if forms:
            aliases[index] = forms
    clips = sorted({r.clip for r in records})
    clip_code = {clip: i for i, clip in enumerate(clips)}
    breakdowns, pair_questions, pair_groups = _pairs(records)
    clip_codes = np.array([clip_code[r.clip] for r in records], dtype=np.int64)
    groups = breakdowns[-1].offset + len(breakdowns[-1].groups)
    return QuestionTable(
        ids=[r.id for r in records],
        index={r.id: i for i, r in enumerate(records)},
        answers=answers,
        answer_codes=np.array([vocabulary[normalize(a)] for a in answers], dtype=np.int64),
        vocabulary=vocabulary,
        clips=clips,
        clip_codes=clip_codes,
        pair_questions=pair_questions,
        pair_groups=pair_groups,
        breakdowns=breakdowns,
        pair_cells=clip_codes[pair_questions] * groups + pair_groups,
        aliases=aliases,
    )


def _pairs(records: Sequence[Question]) -> tuple[tuple[Breakdown, ...], IntArray, IntArray]:
    breakdowns: list[Breakdown] = []
    questions: list[IntArray] = []
    groups: list[IntArray] = []
    offset = 0
    for name, caption, labeller in BREAKDOWNS:
        labels = [list(labeller(r)) for r in records]
        names = sorted({label for row in labels for label in row}, key=_group_order)
        code = {label: offset + i for i, label in enumerate(names)}
        counts = np.fromiter((len(row) for row in labels), dtype=np.int64, count=len(labels))
        questions.append(np.repeat(np.arange(len(records), dtype=np.int64), counts))
        groups.append(
            np.fromiter(
                (code[label] for row in labels for label in row),
                dtype=np.int64,
                count=int(counts.sum()),
            )
        )
        breakdowns.append(Breakdown(name, caption, tuple(names), offset))
        offset += len(names)
    return tuple(breakdowns), np.concatenate(questions), np.concatenate(groups)


_FIXED_ORDER = {name: i for i, name in enumerate(("open", "binary", "all"))}


def _group_order(name: str) -> tuple[int, str]:
    # Open, Binary, All read left to right as in the paper; everything else alphabetically.
    return (_FIXED_ORDER.get(name, len(_FIXED_ORDER)), name)
