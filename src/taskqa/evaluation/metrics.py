"""Accuracy per group with bootstrap confidence intervals, and paired comparisons of two models.

Questions about the same clip are not independent (they share one video, one set of
annotations), so the bootstrap resamples **clips** with replacement and keeps all of a drawn
clip's questions: this is the cluster bootstrap, and its intervals are wider, honestly so, than
resampling questions would give. Every group is scored on the same resamples, and so are the two
models of a paired comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from taskqa.evaluation.predictions import CORRECT, INVALID, MISSING, OUTCOMES
from taskqa.evaluation.table import QuestionTable

FloatArray = NDArray[np.float64]
CONFIDENCE = 0.95


@dataclass(frozen=True)
class BootstrapConfig:
    resamples: int = 1000
    seed: int = 0
    confidence: float = CONFIDENCE


@dataclass
class GroupScores:
    """Per group (the table's global numbering): counts, accuracy and its interval."""

    total: FloatArray
    correct: FloatArray
    invalid: FloatArray
    missing: FloatArray
    accuracy: FloatArray
    low: FloatArray
    high: FloatArray


def clip_weights(table: QuestionTable, config: BootstrapConfig) -> NDArray[np.float64]:
    """How often each clip is drawn in each resample: a (resamples, clips) matrix."""
    clips = len(table.clips)
    rng = np.random.default_rng(config.seed)
    draws = rng.integers(0, clips, size=(config.resamples, clips))
    rows = np.arange(config.resamples, dtype=np.int64)[:, None] * clips
    counts = np.bincount((rows + draws).ravel(), minlength=config.resamples * clips)
    weights: FloatArray = counts.reshape(config.resamples, clips).astype(np.float64)
    return weights


def cell_counts(
    table: QuestionTable, outcomes: NDArray[np.int8], scored: NDArray[np.bool_] | None = None
) -> NDArray[np.int64]:
    """Questions per (clip, group, outcome): one pass over the pairs, a (clips, groups, 4) array.

    ``scored`` (one flag per question) leaves the unflagged questions out of every count.
    """
    pairs = table.pair_questions
    codes = table.pair_cells * len(OUTCOMES) + outcomes[pairs]
    if scored is not None:
        codes = codes[scored[pairs]]
    size = len(table.clips) * table.group_count * len(OUTCOMES)
    counts = np.bincount(codes, minlength=size)
    return counts.reshape(len(table.clips), table.group_count, len(OUTCOMES))


def score_groups(
    table: QuestionTable,
    outcomes: NDArray[np.int8],
    weights: FloatArray,
    config: BootstrapConfig,
    scored: NDArray[np.bool_] | None = None,
) -> GroupScores:
    """Scores per group; with ``scored``, over the flagged questions only (a group none of whose
    questions is scored has no accuracy: NaN, not 0)."""
    cells = cell_counts(table, outcomes, scored).astype(np.float64)
    per_clip_total = cells.sum(axis=2)
    per_clip_correct = cells[:, :, CORRECT]
    by_group = cells.sum(axis=0)
    total = per_clip_total.sum(axis=0)
    correct = by_group[:, CORRECT]
    accuracy = np.divide(correct, total, out=np.zeros(table.group_count), where=total > 0)
    if scored is not None:
        accuracy[total == 0] = np.nan
    low, high = interval(weights, per_clip_correct, per_clip_total, config.confidence)
    return GroupScores(
        total, correct, by_group[:, INVALID], by_group[:, MISSING], accuracy, low, high
    )


def resampled_accuracy(weights: FloatArray, correct: FloatArray, total: FloatArray) -> FloatArray:
    """Accuracy of every group in every resample, (resamples, groups); NaN for an empty group."""
    hits, sizes = weights @ correct, weights @ total
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sizes > 0, hits / np.where(sizes > 0, sizes, 1.0), np.nan)


def interval(
    weights: FloatArray, correct: FloatArray, total: FloatArray, confidence: float
) -> tuple[FloatArray, FloatArray]:
    """Percentile interval of the resampled accuracies, per group."""
    resampled = resampled_accuracy(weights, correct, total)
    tail = (1.0 - confidence) / 2.0
    empty = np.all(np.isnan(resampled), axis=0)
    filled = np.where(np.isnan(resampled), 0.0, resampled)
    # nanquantile is slow on wide matrices; groups are either always or sometimes empty, and a
    # sometimes-empty group's empty draws say nothing about its accuracy, so they are dropped.
    partial = np.any(np.isnan(resampled), axis=0) & ~empty
    low = np.quantile(filled, tail, axis=0)
    high = np.quantile(filled, 1.0 - tail, axis=0)
    for column in np.flatnonzero(partial):
        low[column], high[column] = np.nanquantile(resampled[:, column], [tail, 1.0 - tail])
    low[empty] = np.nan
    high[empty] = np.nan
    return low, high


@dataclass(frozen=True)
class Comparison:
    first: str
    second: str
    questions: int
    accuracy_first: float
    accuracy_second: float
    difference: float  # first - second
    difference_low: float
    difference_high: float
    only_first_correct: int
    only_second_correct: int
    mcnemar_p: float
    bootstrap_p: float


def compare(
    names: tuple[str, str],
    table: QuestionTable,
    first: NDArray[np.int8],
    second: NDArray[np.int8],
    weights: FloatArray,
    config: BootstrapConfig,
    scored: NDArray[np.bool_] | None = None,
) -> Comparison:
    """Two models on the same questions: McNemar's exact test and a paired clip bootstrap.

    ``scored`` restricts both to the flagged questions (those both models were scored on)."""
    keep = np.ones(table.size, dtype=bool) if scored is None else scored
    a, b = (first == CORRECT) & keep, (second == CORRECT) & keep
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(~a & b))
    count = int(keep.sum())
    per_clip_a = np.bincount(table.clip_codes, weights=a, minlength=len(table.clips))
    per_clip_b = np.bincount(table.clip_codes, weights=b, minlength=len(table.clips))
    per_clip = np.bincount(table.clip_codes, weights=keep, minlength=len(table.clips))
    sizes = weights @ per_clip
    differences = (weights @ (per_clip_a - per_clip_b)) / np.where(sizes > 0, sizes, 1.0)
    tail = (1.0 - config.confidence) / 2.0
    low, high = np.quantile(differences, [tail, 1.0 - tail])
    return Comparison(
        first=names[0],
        second=names[1],
        questions=count,
        accuracy_first=float(a.sum() / count) if count else 0.0,
        accuracy_second=float(b.sum() / count) if count else 0.0,
        difference=float((a.sum() - b.sum()) / count) if count else 0.0,
        difference_low=float(low),
        difference_high=float(high),
        only_first_correct=only_a,
        only_second_correct=only_b,
        mcnemar_p=mcnemar_exact(only_a, only_b),
        bootstrap_p=paired_bootstrap_p(differences),
    )


def mcnemar_exact(only_first: int, only_second: int) -> float:
    """Two-sided exact McNemar p-value: a binomial test of the discordant pairs at 1/2."""
    n = only_first + only_second
    if n == 0:
        return 1.0
    k = min(only_first, only_second)
    # P(X <= k) for X ~ Bin(n, 1/2), summed in log space so that large n cannot underflow.
    terms = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2.0)
        for i in range(k + 1)
    ]
    peak = max(terms)
    tail = math.exp(peak) * sum(math.exp(t - peak) for t in terms)
    return min(1.0, 2.0 * tail)


def paired_bootstrap_p(differences: FloatArray) -> float:
    """Two-sided: twice the share of resamples on the far side of zero (at most 1)."""
    if differences.size == 0:
        return 1.0
    below = float(np.mean(differences <= 0.0))
    above = float(np.mean(differences >= 0.0))
    return min(1.0, 2.0 * min(below, above))
