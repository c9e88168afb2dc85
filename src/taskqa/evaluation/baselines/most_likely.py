"""The prior: for each question, the most frequent training answer of its reasoning type.

The reasoning type is the ``$``-joined tag string (types, scopes, semantic, structural,
reference). A type never seen in training falls back to the most frequent training answer of
the same structural tag (query or verify; the answer kind would leak the answer), then to the
most frequent training answer overall. Ties go to the alphabetically first answer, so the
baseline is deterministic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from taskqa.benchmark.folder import SplitQuestion


def _top(counts: Counter[str]) -> str:
    return min(counts.items(), key=lambda item: (-item[1], item[0]))[0]


class MostLikely:
    def __init__(self, train: Iterable[SplitQuestion]) -> None:
        by_type: dict[str, Counter[str]] = {}
        by_structural: dict[str, Counter[str]] = {}
        overall: Counter[str] = Counter()
        for item in train:
            q = item.question
            by_type.setdefault(q.reasoning_type, Counter())[q.answer] += 1
            by_structural.setdefault(q.structural, Counter())[q.answer] += 1
            overall[q.answer] += 1
        if not overall:
            raise ValueError("the training split is empty; the prior needs training answers")
        self.by_type = {key: _top(counts) for key, counts in by_type.items()}
        self.by_structural = {key: _top(counts) for key, counts in by_structural.items()}
        self.overall = _top(overall)

    def predict(self, item: SplitQuestion) -> str:
        q = item.question
        found = self.by_type.get(q.reasoning_type) or self.by_structural.get(q.structural)
        return found or self.overall


def most_likely_predictions(
    train: Sequence[SplitQuestion], questions: Sequence[SplitQuestion]
) -> list[str]:
    prior = MostLikely(train)
    return [prior.predict(q) for q in questions]
