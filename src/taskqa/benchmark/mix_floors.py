"""The least (and most) share of a category the mix keeps: the fewest questions moved to get there.

Raking (mix.py) aims every axis at EgoTaskQA's shares at once, and where the world cannot supply
them it settles on a compromise that can leave a category below what a benchmark needs to
report on it: on issue 33's default build the change questions, mostly yes/no, lost their
place in the yes/no third to state questions and ended at 19.7% against the issue's floor of
20%, although the supply holds enough for 22%. The floors (and the ceiling on action questions)
are issue 33's bounds on the normal test split, half a point inside them, since sampling after
the mix moves a share by a few tenths.

Given the raked quotas ``r``, a linear program finds quotas ``q`` with the same total, each
between 0 and its supply, the yes/no share no higher than raking left it, every floor met (or
the category's whole supply kept, where that is less) and every ceiling kept, moving as few
questions as possible: minimise ``sum |q - r|``. Where no such quotas exist the raked ones stand
and the report names the short categories, as before.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.optimize import linprog  # type: ignore[import-untyped]

from taskqa.questions.tags import TAG_SEPARATOR

Cell = tuple[str, str]  # (reasoning type, "binary" or "open"), as mix.py

# issue 33's bounds on the normal test shares, half a point inside (module docstring)
DEFAULT_FLOORS: dict[str, dict[str, float]] = {
    "type": {"explanatory": 0.155, "counterfactual": 0.125, "predictive": 0.105},
    "scope": {"world": 0.105, "intent": 0.105, "multi-agent": 0.105},
    "semantic": {"state": 0.205, "change": 0.205, "object": 0.105},
}
DEFAULT_CEILINGS: dict[str, dict[str, float]] = {"semantic": {"action": 0.445}}


def cell_tags(cell: Cell) -> frozenset[str]:
    """The categories a (reasoning type, answer kind) cell counts in, as ``axis/category``."""
    kind, answer = cell
    return frozenset([*(f"tag/{part}" for part in kind.split(TAG_SEPARATOR)), f"answer/{answer}"])


def in_category(cell: Cell, axis: str, category: str) -> bool:
    """Whether ``cell`` counts in ``category`` of ``axis`` (type, scope, semantic, answer)."""
    return (f"answer/{category}" if axis == "answer" else f"tag/{category}") in cell_tags(cell)


def meet_floors(
    quota: Mapping[Cell, float],
    supply: Mapping[Cell, int],
    floors: Mapping[str, Mapping[str, float]],
    ceilings: Mapping[str, Mapping[str, float]],
) -> dict[Cell, float]:
    """The quotas nearest ``quota`` (in questions moved) that meet ``floors`` and ``ceilings``
    with the same total and yes/no share (module docstring); ``quota`` itself where none do."""
    cells = sorted(quota)
    total = sum(quota.values())
    if not cells or total <= 0:
        return dict(quota)
    n = len(cells)
    raked = np.array([quota[c] for c in cells])
    have = np.array([float(supply[c]) for c in cells])
    rows: list[np.ndarray] = []
    bounds: list[float] = []

    def at_most(member: np.ndarray, limit: float) -> None:
        rows.append(np.concatenate([member, np.zeros(n)]))
        bounds.append(limit)

    for axis, shares in floors.items():
        for category, share in shares.items():
            member = np.array([float(in_category(c, axis, category)) for c in cells])
            at_most(-member, -min(share * total, float(member @ have)))
    for axis, shares in ceilings.items():
        for category, share in shares.items():
            at_most(np.array([float(in_category(c, axis, category)) for c in cells]), share * total)
    binary = np.array([float(c[1] == "binary") for c in cells])
    at_most(binary, max(float(binary @ raked), 0.0) + 1e-6)
    # |q - r| <= d:  q - d <= r  and  -q - d <= -r
    eye = np.eye(n)
    moved = np.vstack([np.hstack([eye, -eye]), np.hstack([-eye, -eye])])
    a_ub = np.vstack([np.array(rows), moved])
    b_ub = np.concatenate([np.array(bounds), raked, -raked])
    result = linprog(
        np.concatenate([np.zeros(n), np.ones(n)]),
        A_ub=a_ub,
        b_ub=b_ub,
        A_eq=np.concatenate([np.ones(n), np.zeros(n)])[None, :],
        b_eq=[total],
        bounds=[(0.0, float(h)) for h in have] + [(0.0, None)] * n,
        method="highs",
    )
    if result.status != 0:
        return dict(quota)
    return {c: float(v) for c, v in zip(cells, result.x[:n], strict=True)}
