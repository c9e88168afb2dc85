"""The exact downset DP against the order-enumerating reference and an exhaustive search."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskqa.verify.align import (
    align_in_order,
    alignment_total,
    best_alignment,
    brute_force_alignment,
    count_linear_extensions,
    downsets,
    is_valid_alignment,
    log_sigmoid,
    topological_orders,
)

Edges = list[tuple[int, int]]


@st.composite
def problems(
    draw: st.DrawFn, max_queries: int = 6, max_segments: int = 9
) -> tuple[np.ndarray, Edges]:
    count = draw(st.integers(1, max_queries))
    length = draw(st.integers(1, max_segments))
    permutation = draw(st.permutations(range(count)))
    pairs = [(a, b) for a in range(count) for b in range(a + 1, count)]
    chosen = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    edges = [
        (permutation[a], permutation[b]) for (a, b), keep in zip(pairs, chosen, strict=True) if keep
    ]
    # Small integers make ties common; floats exercise the general case.
    values = st.one_of(st.integers(-3, 3).map(float), st.floats(-12, 12, allow_nan=False))
    logits = draw(st.lists(values, min_size=count * length, max_size=count * length))
    return np.array(logits).reshape(count, length), edges


def exhaustive_total(logits: np.ndarray, edges: Edges) -> float:
    count, length = logits.shape
    gains = log_sigmoid(logits)
    best = -math.inf
    for segments in itertools.permutations(range(length), count):
        if all(segments[a] < segments[b] for a, b in edges):
            best = max(best, float(sum(gains[q, s] for q, s in enumerate(segments))))
    return best


@settings(max_examples=300, deadline=None)
@given(problems())
def test_exact_dp_equals_enumerating_every_order(problem: tuple[np.ndarray, Edges]) -> None:
    logits, edges = problem
    exact = best_alignment(logits, edges)
    reference = brute_force_alignment(logits, edges)
    count, length = logits.shape
    if count > length:
        assert not exact.feasible and not reference.feasible and exact.probability == 0.0
        return
    assert exact.score == pytest.approx(reference.score, abs=1e-9)
    assert is_valid_alignment(exact.segments, length, edges)
    assert is_valid_alignment(reference.segments, length, edges)
    # The chosen alignment's own value is the optimum (ties may pick a different alignment).
    assert alignment_total(logits, exact.segments) / count == pytest.approx(exact.score, abs=1e-9)
    assert alignment_total(logits, reference.segments) / count == pytest.approx(
        exact.score, abs=1e-9
    )


@settings(max_examples=150, deadline=None)
@given(problems(max_queries=4, max_segments=6))
def test_both_equal_exhaustive_search_over_injective_assignments(
    problem: tuple[np.ndarray, Edges],
) -> None:
    logits, edges = problem
    if logits.shape[0] > logits.shape[1]:
        return
    expected = exhaustive_total(logits, edges) / logits.shape[0]
    assert best_alignment(logits, edges).score == pytest.approx(expected, abs=1e-9)
    assert brute_force_alignment(logits, edges).score == pytest.approx(expected, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(problems(max_queries=7, max_segments=8))
def test_downset_counting_equals_enumeration(problem: tuple[np.ndarray, Edges]) -> None:
    logits, edges = problem
    count = logits.shape[0]
    assert count_linear_extensions(count, edges) == sum(1 for _ in topological_orders(count, edges))


def test_probability_is_sigmoid_of_mean_raw_logit_on_the_best_alignment() -> None:
    # chain 0 -> 1; the best alignment is (0, 2): log-sigmoids -0.018 and -0.0025
    logits = np.array([[4.0, -1.0, -6.0], [-5.0, 2.0, 6.0]])
    result = best_alignment(logits, [(0, 1)])
    assert result.segments == (0, 2)
    assert result.probability == pytest.approx(1 / (1 + math.exp(-5.0)))
    assert result.entailed
    assert result.order == (0, 1)


def test_order_constraint_changes_the_answer() -> None:
    # Query 1 fits segment 0 and query 0 fits segment 1, but 0 must come first.
    logits = np.array([[-8.0, 8.0], [8.0, -8.0]])
    free = best_alignment(logits, [])
    ordered = best_alignment(logits, [(0, 1)])
    assert free.segments == (1, 0) and free.entailed
    assert ordered.segments == (0, 1) and not ordered.entailed


def test_nsg_single_order_dp_matches_hand_computation() -> None:
    gains = log_sigmoid(np.array([[1.0, 3.0, 0.0, 0.0], [0.0, 0.0, 2.0, 5.0]]))
    segments, total = align_in_order(gains, [0, 1])
    assert segments == [1, 3]
    assert total == pytest.approx(float(gains[0, 1] + gains[1, 3]))


def test_ten_query_antichain_has_1024_downsets_and_10_factorial_orders() -> None:
    assert len(downsets(10, [])) == 1024
    assert count_linear_extensions(10, []) == math.factorial(10)
    assert count_linear_extensions(10, [(2 * i, 2 * i + 1) for i in range(5)]) == 113_400


def test_large_problem_is_exact_on_a_planted_alignment() -> None:
    rng = np.random.default_rng(3)
    logits = rng.normal(-4.0, 1.0, size=(10, 300))
    planted = sorted(rng.choice(300, size=10, replace=False).tolist())
    for query, segment in enumerate(planted):
        logits[query, segment] = 9.0
    result = best_alignment(logits, [(i, i + 1) for i in range(9)])
    assert list(result.segments) == planted and result.entailed


@pytest.mark.parametrize(
    ("edges", "message"),
    [([(0, 0)], "not between"), ([(0, 5)], "not between"), ([(0, 1), (1, 0)], "cycle")],
)
def test_bad_graphs_are_rejected(edges: Edges, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        best_alignment(np.zeros((2, 3)), edges)


def test_bad_logits_are_rejected() -> None:
    with pytest.raises(ValueError, match="matrix"):
        best_alignment(np.zeros(3), [])
    with pytest.raises(ValueError, match="finite"):
        best_alignment(np.array([[math.nan]]), [])
