"""Train/val/test splits of a balanced question set (EgoTaskQA section 3.3).

- **normal**: 3 : 1 : 1, stratified by reasoning type and answer. The questions are ordered by
  (type, answer, seeded rank) and dealt out in the repeating pattern train, val, train, test,
  train, so the whole set and every stratum get the ratio to within one question. EgoTaskQA's
  released split lets one clip give questions to both train and test; ``disjoint="clip"`` or
  ``"recording"`` deals out whole clips or recordings instead (greedily, to the split furthest
  below its share), at the cost of a looser stratification.
- **indirect**: train holds the questions without indirect references plus the teaching
  questions that ask for a reference in one step ("what is the first action"); val and test
  split the other indirect-reference questions 1 : 1, stratified by answer. When train is
  larger than val and test together it is cut to that size, evenly over its strata, which gives
  the paper's 2 : 1 : 1.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Literal

from taskqa.benchmark.balance import rank
from taskqa.benchmark.candidates import Candidates

Split = Literal["train", "val", "test"]
SPLITS: tuple[Split, ...] = ("train", "val", "test")
# train spread out, so any run of consecutive questions (a stratum) is within one of 3 : 1 : 1
NORMAL_PATTERN: tuple[Split, ...] = ("train", "val", "train", "test", "train")
NORMAL_SHARES = {"train": 0.6, "val": 0.2, "test": 0.2}
Disjoint = Literal["none", "clip", "recording"]
TEACHING_PREFIX = "indirect/"  # the templates that ask for a reference itself


def normal_split(
    candidates: Candidates, rows: Sequence[int], seed: int, disjoint: Disjoint = "none"
) -> dict[int, Split]:
    if disjoint != "none":
        units = candidates.clips if disjoint == "clip" else candidates.recordings
        return _by_unit(rows, units, seed, NORMAL_SHARES)
    ordered = _stratified(candidates, rows, seed)
    return {row: NORMAL_PATTERN[position % 5] for position, row in enumerate(ordered)}


def indirect_split(candidates: Candidates, rows: Sequence[int], seed: int) -> dict[int, Split]:
    simple = [r for r in rows if _learns_references(candidates, r)]
    hard = [r for r in rows if not _learns_references(candidates, r)]
    ordered = sorted(hard, key=lambda r: (candidates.answers[r], rank(seed, candidates.ids[r])))
    assignment: dict[int, Split] = {
        row: ("val", "test")[position % 2] for position, row in enumerate(ordered)
    }
    train = _stratified(candidates, simple, seed)
    if hard and len(train) > len(hard):
        step = len(train) / len(hard)
        train = [train[int(index * step)] for index in range(len(hard))]
    assignment.update(dict.fromkeys(train, "train"))
    return assignment


def _learns_references(candidates: Candidates, row: int) -> bool:
    return candidates.references[row] == "direct" or candidates.templates[row].startswith(
        TEACHING_PREFIX
    )


def _stratified(candidates: Candidates, rows: Sequence[int], seed: int) -> list[int]:
    return sorted(
        rows,
        key=lambda r: (candidates.types[r], candidates.answers[r], rank(seed, candidates.ids[r])),
    )


def _by_unit(
    rows: Sequence[int], units: Sequence[str], seed: int, shares: dict[str, float]
) -> dict[int, Split]:
    members: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        members[units[row]].append(row)
    sizes = {split: 0 for split in SPLITS}
    assignment: dict[int, Split] = {}
    placed = 0
    for unit in sorted(members, key=lambda u: rank(seed, u)):
        placed += len(members[unit])
        # the split furthest below its share of what has been placed so far (ties: train first)
        split = max(SPLITS, key=lambda s: (shares[s] * placed - sizes[s], -SPLITS.index(s)))
        sizes[split] += len(members[unit])
        assignment.update(dict.fromkeys(members[unit], split))
    return assignment
