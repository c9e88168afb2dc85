"""Timing of the exact downset-DP verifier against NSG-style enumeration of topological orders.

Run: ``.venv/bin/python benchmarks/bench_verify.py``. Prints, for the target case (10 queries,
at least 100,000 linear extensions, 300 segments), the exact verifier's time; then, on smaller
graphs where enumeration finishes, both times, the speed-up and a check that the scores agree.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

import numpy as np

from taskqa.verify.align import (
    Alignment,
    best_alignment,
    brute_force_alignment,
    count_linear_extensions,
    downsets,
)

Edges = list[tuple[int, int]]


def timed(function: Callable[[], Alignment], repeats: int) -> tuple[float, Alignment]:
    best = float("inf")
    result = function()
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def pairs(count: int) -> Edges:
    """count/2 independent two-step chains: count! / 2^(count/2) linear extensions."""
    return [(2 * i, 2 * i + 1) for i in range(count // 2)]


def main() -> None:
    rng = np.random.default_rng(0)
    print("target: 10 queries x 300 segments")
    for name, edges in [("5 parallel 2-chains", pairs(10)), ("antichain", [])]:
        logits = rng.normal(size=(10, 300))
        seconds, _ = timed(partial(best_alignment, logits, edges), repeats=5)
        extensions = count_linear_extensions(10, edges)
        print(
            f"  {name:20s} linear extensions {extensions:>9,}  downsets "
            f"{len(downsets(10, edges)):>5}  exact {seconds * 1000:8.1f} ms"
        )
    print("speed-up over enumeration (exact vs enumerate-every-order), 60 segments")
    print(f"  {'graph':24s} {'orders':>8s} {'exact ms':>9s} {'enum ms':>10s} {'speed-up':>9s}")
    cases: list[tuple[str, int, Edges]] = [
        ("antichain 4", 4, []),
        ("antichain 5", 5, []),
        ("antichain 6", 6, []),
        ("antichain 7", 7, []),
        ("3 parallel 2-chains", 6, pairs(6)),
        ("4 parallel 2-chains", 8, pairs(8)),
        ("EgoTV 3-step and/then", 3, [(0, 2), (1, 2)]),
    ]
    for name, count, edges in cases:
        logits = rng.normal(size=(count, 60))
        exact_s, exact = timed(partial(best_alignment, logits, edges), repeats=3)
        enum_s, enumerated = timed(partial(brute_force_alignment, logits, edges), repeats=1)
        assert abs(exact.score - enumerated.score) < 1e-9, name
        orders = count_linear_extensions(count, edges)
        print(
            f"  {name:24s} {orders:>8,} {exact_s * 1000:9.2f} {enum_s * 1000:10.1f} "
            f"{enum_s / exact_s:8.1f}x"
        )


if __name__ == "__main__":
    main()
