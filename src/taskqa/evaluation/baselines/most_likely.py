"""The prior baseline (``taskqa baseline most-likely``, and ``evaluate``'s most-likely column).

It is the build's most-likely diagnostic (``taskqa.benchmark.diagnostics.MostLikely``), applied
to a split's questions, so that the build report and the evaluation give one number: for each
question, the most frequent training answer of its reasoning type (the ``$``-joined tags of
``taskqa.questions.tags``), with the fallback and tie rule described there.
"""

from __future__ import annotations

from collections.abc import Sequence

from taskqa.benchmark.diagnostics import most_likely
from taskqa.benchmark.folder import SplitQuestion


def most_likely_predictions(
    train: Sequence[SplitQuestion], questions: Sequence[SplitQuestion]
) -> list[str]:
    """The prior of ``train`` answering ``questions``; refused for an empty training split,
    which has no answers to learn (the build's diagnostics answer nothing there instead)."""
    if not train:
        raise ValueError("the training split is empty; the prior needs training answers")
    return most_likely([vars(q.question) for q in train], [vars(q.question) for q in questions])
