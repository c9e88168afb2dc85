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

Balancing keeps binary questions as yes/no pairs of one group (``Balanced.partners``); both
dealings keep a pair in one split, so a group that is 50/50 in the balanced set is 50/50 in every
split. Were the two halves dealt apart, a question text seen with "yes" in train would be asked
with "no" in test, and every model that reads the text would be pushed below chance. Pairs are
dealt as one sequence and single questions as another, so each split's size is within one pair
plus one question of its share. Clip- and recording-disjoint splits keep clips or recordings
together instead, which may part a pair.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
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


Unit = tuple[int, ...]  # one question, or a yes/no pair dealt together


def normal_split(
    candidates: Candidates,
    rows: Sequence[int],
    seed: int,
    disjoint: Disjoint = "none",
    partners: Mapping[int, int] | None = None,
) -> dict[int, Split]:
    if disjoint != "none":
        units = candidates.clips if disjoint == "clip" else candidates.recordings
        return _by_unit(rows, units, seed, NORMAL_SHARES)
    assignment: dict[int, Split] = {}
    for sequence in _stratified_units(candidates, rows, seed, partners):
        for position, unit in enumerate(sequence):
            assignment.update(dict.fromkeys(unit, NORMAL_PATTERN[position % 5]))
    return assignment


def indirect_split(
    candidates: Candidates,
    rows: Sequence[int],
    seed: int,
    partners: Mapping[int, int] | None = None,
) -> dict[int, Split]:
    simple = [r for r in rows if _learns_references(candidates, r)]
    hard = [r for r in rows if not _learns_references(candidates, r)]
    pairs, singles = _units(candidates, hard, partners)
    ordered = [
        sorted(pairs, key=lambda unit: rank(seed, candidates.ids[unit[0]])),
        sorted(
            singles, key=lambda unit: (candidates.answers[unit[0]], _rank(candidates, seed, unit))
        ),
    ]
    assignment: dict[int, Split] = {}
    position = 0
    for sequence in ordered:
        for unit in sequence:
            assignment.update(dict.fromkeys(unit, ("val", "test")[position % 2]))
            position += 1
    keep = len(hard) / len(simple) if hard and len(simple) > len(hard) else 1.0
    for sequence in _stratified_units(candidates, simple, seed, partners):
        count = int(len(sequence) * keep)
        step = len(sequence) / count if count else 0.0
        for index in range(count):
            assignment.update(dict.fromkeys(sequence[int(index * step)], "train"))
    return assignment


def _learns_references(candidates: Candidates, row: int) -> bool:
    return candidates.references[row] == "direct" or candidates.templates[row].startswith(
        TEACHING_PREFIX
    )


def _rank(candidates: Candidates, seed: int, unit: Unit) -> int:
    return rank(seed, candidates.ids[unit[0]])


def _units(
    candidates: Candidates, rows: Sequence[int], partners: Mapping[int, int] | None
) -> tuple[list[Unit], list[Unit]]:
    """The yes/no pairs with both halves among ``rows`` (yes first), and the other questions."""
    chosen = set(rows)
    pairs: list[Unit] = []
    singles: list[Unit] = []
    for row in rows:
        partner = partners.get(row) if partners else None
        if partner is None or partner not in chosen:
            singles.append((row,))
        elif candidates.answers[row] == "yes":  # a pair's rank is its yes question's
            pairs.append((row, partner))
    return pairs, singles


def _stratified_units(
    candidates: Candidates, rows: Sequence[int], seed: int, partners: Mapping[int, int] | None
) -> list[list[Unit]]:
    """Pairs by (type, rank), and single questions by (type, answer, rank): two sequences."""
    pairs, singles = _units(candidates, rows, partners)
    return [
        sorted(pairs, key=lambda u: (candidates.types[u[0]], _rank(candidates, seed, u))),
        sorted(
            singles,
            key=lambda u: (
                candidates.types[u[0]],
                candidates.answers[u[0]],
                _rank(candidates, seed, u),
            ),
        ),
    ]


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
