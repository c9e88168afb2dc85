"""Best alignment of a partial order of queries to video segments, and the NSG verification rule.

Problem. ``logits[q, t]`` scores query ``q`` on segment ``t``. An alignment gives every query its
own segment such that ``u -> v`` in the graph implies ``segment(u) < segment(v)``; sorting the
queries by segment then gives a topological order, so this is the same search as EgoTV's NSG,
which runs a monotone DP once per topological order and keeps the best. Its score is the mean of
``log sigmoid(logit)`` along the alignment; the verification probability is the sigmoid of the
mean *raw* logit along the best alignment, and "entailed" means probability >= 0.5.

Exact algorithm without enumerating orders. Scan segments left to right. After segment ``t``
the queries already placed form a downset (order ideal) ``D`` of the partial order, because a
query can only be placed after all its predecessors. So the state is ``D`` alone:

    best_D[t] = max(best_D[t-1], max over maximal q of D of best_{D-q}[t-1] + L[q, t-1])

where ``best_D[t]`` is the best total over alignments of ``D`` into segments ``0..t-1``. For one
``D`` the inner term is a vector over ``t`` computed with numpy from the already finished
``best_{D-q}``, and the outer max is a running maximum (``np.maximum.accumulate``). Cost:
O(#downsets * width * S) instead of O(#linear extensions * N * S). A 10-query antichain has
3,628,800 linear extensions but only 1,024 downsets.

Unreachable cells are ``-inf``, not EgoTV's ``-100``: a stand-in that large log-sigmoids can
undercut would change the answer.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Edges = Sequence[tuple[int, int]]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Alignment:
    """``segments[q]`` is the segment given to query ``q``; empty when no alignment exists."""

    segments: tuple[int, ...]
    score: float  # mean log-sigmoid along the alignment; -inf when infeasible
    probability: float  # sigmoid of the mean raw logit along it; 0 when infeasible

    @property
    def entailed(self) -> bool:
        return self.probability >= 0.5

    @property
    def feasible(self) -> bool:
        return bool(self.segments)

    @property
    def order(self) -> tuple[int, ...]:
        """The queries sorted by their segment: the topological order the alignment follows."""
        return tuple(sorted(range(len(self.segments)), key=lambda q: self.segments[q]))


def log_sigmoid(values: FloatArray) -> FloatArray:
    result: FloatArray = -np.logaddexp(0.0, -values)
    return result


def sigmoid(value: float) -> float:
    if value >= 0:
        return 1.0 / (1.0 + math.exp(-value))
    exponential = math.exp(value)
    return exponential / (1.0 + exponential)


def predecessor_masks(count: int, edges: Edges) -> list[int]:
    """Bit ``u`` of ``masks[v]`` is set when ``u -> v``; rejects bad indices and cycles."""
    masks = [0] * count
    for source, target in edges:
        if not (0 <= source < count and 0 <= target < count) or source == target:
            raise ValueError(f"edge {source}->{target} is not between two of {count} queries")
        masks[target] |= 1 << source
    if _topological_downsets(masks)[-1] != (1 << count) - 1:
        raise ValueError("the ordering edges form a cycle")
    return masks


def _topological_downsets(predecessors: Sequence[int]) -> list[int]:
    """Every downset as a bitmask, by increasing size (each after all its subsets)."""
    seen = {0}
    level = [0]
    ordered = [0]
    while level:
        following: list[int] = []
        for mask in level:
            for query, needs in enumerate(predecessors):
                bit = 1 << query
                if not mask & bit and needs & mask == needs:
                    grown = mask | bit
                    if grown not in seen:
                        seen.add(grown)
                        following.append(grown)
        following.sort()
        ordered.extend(following)
        level = following
    return ordered


def downsets(count: int, edges: Edges) -> list[int]:
    return _topological_downsets(predecessor_masks(count, edges))


def count_linear_extensions(count: int, edges: Edges) -> int:
    """Number of topological orders, by the same downset recursion (no enumeration)."""
    predecessors = predecessor_masks(count, edges)
    ways: dict[int, int] = {0: 1}
    for mask in _topological_downsets(predecessors)[1:]:
        ways[mask] = sum(
            ways[mask ^ (1 << q)]
            for q in _bits(mask)
            if not any(predecessors[other] >> q & 1 for other in _bits(mask))
        )
    return ways[(1 << count) - 1]


def _bits(mask: int) -> Iterator[int]:
    query = 0
    while mask:
        if mask & 1:
            yield query
        mask >>= 1
        query += 1


def _checked_logits(logits: NDArray[np.floating] | Sequence[Sequence[float]]) -> FloatArray:
    array = np.asarray(logits, dtype=np.float64)
    if array.ndim != 2 or array.shape[0] == 0:
        raise ValueError(f"logits must be a (queries x segments) matrix, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("logits must be finite")
    return array


def _finish(logits: FloatArray, segments: Sequence[int], total: float) -> Alignment:
    count = logits.shape[0]
    mean_logit = float(np.mean(logits[np.arange(count), np.asarray(segments)]))
    return Alignment(tuple(int(s) for s in segments), total / count, sigmoid(mean_logit))


def _infeasible() -> Alignment:
    return Alignment((), -math.inf, 0.0)


def best_alignment(
    logits: NDArray[np.floating] | Sequence[Sequence[float]], edges: Edges
) -> Alignment:
    """The exact best alignment by the downset DP (see the module docstring)."""
    scores = _checked_logits(logits)
    count, length = scores.shape
    predecessors = predecessor_masks(count, edges)
    if count > length:
        return _infeasible()
    successors = [0] * count
    for target, needs in enumerate(predecessors):
        for source in _bits(needs):
            successors[source] |= 1 << target
    gains = log_sigmoid(scores)
    best: dict[int, FloatArray] = {0: np.zeros(length + 1)}
    taken: dict[int, NDArray[np.int64]] = {}
    for mask in _topological_downsets(predecessors)[1:]:
        candidate = np.full(length + 1, -np.inf)
        chosen = np.full(length + 1, -1, dtype=np.int64)
        for query in _bits(mask):
            if successors[query] & mask:
                continue  # not maximal in the downset: it cannot be the last one placed
            placed = np.full(length + 1, -np.inf)
            placed[1:] = best[mask ^ (1 << query)][:-1] + gains[query]
            better = placed > candidate
            candidate[better] = placed[better]
            chosen[better] = query
        running = np.maximum.accumulate(candidate)
        best[mask] = running
        # -1 where the best up to t skips segment t-1, else the query placed there.
        taken[mask] = np.where((candidate == running) & np.isfinite(candidate), chosen, -1)
    full = (1 << count) - 1
    segments = [0] * count
    mask, position = full, length
    while mask:
        query = int(taken[mask][position])
        if query >= 0:
            segments[query] = position - 1
            mask ^= 1 << query
        position -= 1
    return _finish(scores, segments, float(best[full][length]))


def topological_orders(count: int, edges: Edges) -> Iterator[tuple[int, ...]]:
    """Every topological order by backtracking, as NSG enumerates them (smallest index first)."""
    predecessors = predecessor_masks(count, edges)
    order: list[int] = []

    def extend(placed: int) -> Iterator[tuple[int, ...]]:
        if len(order) == count:
            yield tuple(order)
            return
        for query in range(count):
            needs = predecessors[query]
            if not placed >> query & 1 and needs & placed == needs:
                order.append(query)
                yield from extend(placed | 1 << query)
                order.pop()

    yield from extend(0)


def align_in_order(gains: FloatArray, order: Sequence[int]) -> tuple[list[int], float]:
    """NSG's monotone DP for one order: segments strictly increasing along ``order``."""
    count = len(order)
    length = gains.shape[1]
    # value[i][t]: best total for order[i:] using segments t.. ; vectorised as a suffix max.
    value = np.full((count + 1, length + 1), -np.inf)
    value[count, :] = 0.0
    take = np.full((count, length), -np.inf)
    for i in range(count - 1, -1, -1):
        take[i] = gains[order[i]] + value[i + 1, 1:]
        value[i, :length] = np.maximum.accumulate(take[i][::-1])[::-1]
    segments: list[int] = []
    position = 0
    for i in range(count):
        # the first segment from `position` on whose "take" reaches the optimum
        hits = np.flatnonzero(take[i, position:] == value[i, position])
        position += int(hits[0])
        segments.append(position)
        position += 1
    return segments, float(value[0, 0])


def brute_force_alignment(
    logits: NDArray[np.floating] | Sequence[Sequence[float]], edges: Edges
) -> Alignment:
    """The reference: enumerate every topological order, DP each, keep the first maximum."""
    scores = _checked_logits(logits)
    count, length = scores.shape
    orders = topological_orders(count, edges)  # validates the edges even when infeasible
    if count > length:
        return _infeasible()
    gains = log_sigmoid(scores)
    best_total = -math.inf
    best_segments: list[int] = []
    for order in orders:
        in_order, total = align_in_order(gains, order)
        if total > best_total:
            best_total = total
            best_segments = [0] * count
            for query, segment in zip(order, in_order, strict=True):
                best_segments[query] = segment
    return _finish(scores, best_segments, best_total)


def alignment_total(
    logits: NDArray[np.floating] | Sequence[Sequence[float]], segments: Sequence[int]
) -> float:
    """Sum of log-sigmoids along an alignment (for checking an alignment's value)."""
    scores = _checked_logits(logits)
    picked = scores[np.arange(scores.shape[0]), np.asarray(segments)]
    return float(np.sum(log_sigmoid(picked)))


def is_valid_alignment(segments: Sequence[int], length: int, edges: Edges) -> bool:
    return (
        len(set(segments)) == len(segments)
        and all(0 <= s < length for s in segments)
        and all(segments[a] < segments[b] for a, b in edges)
    )
