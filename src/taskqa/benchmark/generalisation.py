"""Generalisation split families (AGQA's compositional splits, Kubric's held-out assets).

Beside ``normal`` and ``indirect`` (splits.py), a build deals the same balanced questions three
more ways, each a family with train, val and test; every family is built from the whole balanced
set, so a question is in one split of each family:

- **novel-composition**: pairs of concepts — a verb with an object ("cut" x cucumber), an
  attribute with an object (openness x drawer), a template with a task — are held out, chosen in
  seeded order until the questions holding one reach ``HELD_OUT_SHARE`` of the set; those
  questions are split 1 : 1 between val and test, the rest is train. A pair is held out only
  where each of its two concepts stays in train on its own, so test asks known concepts in a
  combination train never shows (AGQA's "novel compositions").
- **more-steps**: train and val hold the programs of at most ``k`` reasoning steps (nodes), test
  the longer ones; ``k`` is the step count that leaves the larger smaller side, and the family is
  skipped when neither side can keep a quarter (AGQA's "more compositional steps").
- **held-out-objects**: objects (categories and colours alike: the blue mug is another object
  than the red mug) that some recordings lack are held out in seeded order until the recordings
  holding one reach ``HELD_OUT_SHARE`` of the questions; those recordings are split between val
  and test, whole, 1 : 1 by questions, so train never sees a held-out object at all (Kubric's
  held-out assets).

Balancing's guarantee is that a question text is 50/50 yes/no wherever its pairs go together.
The first two families deal each yes/no pair as one unit; the third deals whole recordings, and
a pair whose halves fall in different splits is dropped from the family (both halves; counted
in the family's ``info``), so no text is seen with one answer in train and the other in test.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from taskqa.benchmark.balance import rank
from taskqa.benchmark.splits import Split
from taskqa.model import Recording
from taskqa.questions.realize import parse_action_text
from taskqa.questions.tags import reasoning_type

SEP = " * "  # joins the two concepts of a pair; no verb, object, attribute or task has it
HELD_OUT_SHARE = 0.4  # of the questions in val + test; train keeps the rest (3 : 1 : 1 as normal)
LEAST_SIDE = 0.25  # more-steps: each side keeps at least this share, or the family is skipped
_ARGUMENT = re.compile(r"^(hoi|obj|attribute)@'?(.*?)'?$")

Records = Mapping[int, Mapping[str, Any]]


@dataclass
class Family:
    """One family's dealing: question row -> split, and what was held out and dropped."""

    assignment: dict[int, Split] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


def concepts(record: Mapping[str, Any]) -> set[str]:
    """The concept pairs a question combines: ``verb x object`` and ``attribute x object``
    (joined with ``SEP``), read off its program (shown actions, objects and attributes). Only
    what the text shows counts, so both halves of a yes/no pair (one text) combine the same
    pairs; a template with the recording's task would differ between them and part pairs."""
    found: set[str] = set()
    for node in record.get("program_graph", []):
        objects: list[str] = []
        attributes: list[str] = []
        for argument in node.get("arguments", []):
            match = _ARGUMENT.match(str(argument))
            if match is None or match.group(2).startswith("<"):
                continue
            key, value = match.groups()
            if key == "hoi":
                action = parse_action_text(value)
                found |= {f"{action.verb}{SEP}{o}" for o in action.objects()}
            elif key == "obj":
                objects.append(value)
            else:
                attributes.append(value)
        found |= {f"{a}{SEP}{o}" for a in attributes for o in objects}
    return found


def novel_composition(records: Records, partners: Mapping[int, int], seed: int) -> Family:
    units = _units(records, partners)
    holds = {unit: set().union(*(concepts(records[r]) for r in unit)) for unit in units}
    users: dict[str, list[tuple[int, ...]]] = defaultdict(list)
    single: Counter[str] = Counter()  # units using each concept on its own
    for unit, pairs in holds.items():
        for pair in pairs:
            users[pair].append(unit)
        single.update({part for pair in pairs for part in pair.split(SEP)})
    wanted = HELD_OUT_SHARE * len(records)
    held: set[str] = set()
    out: set[tuple[int, ...]] = set()
    size = 0
    lost: Counter[str] = Counter()  # single-concept uses that holding a pair out takes from train
    for pair in sorted(users, key=lambda p: (rank(seed, p), p)):
        if size >= wanted:
            break
        new = [u for u in users[pair] if u not in out]
        added = sum(len(u) for u in new)
        if not new or size + added > wanted * 1.1:
            continue
        # every concept the moved questions use must stay in train on its own (not only the
        # pair's two): else test would ask a concept train never shows
        taken: Counter[str] = Counter()
        for unit in new:
            taken.update(_parts(holds[unit]))
        if any(single[part] - lost[part] - taken[part] <= 0 for part in taken):
            continue
        held.add(pair)
        lost.update(taken)
        out.update(new)
        size += added
    family = Family(info={"held_out_pairs": len(held), "examples": sorted(held)[:12]})
    _deal(family, records, [u for u in units if u in out], seed, ("val", "test"))
    _deal(family, records, [u for u in units if u not in out], seed, ("train",))
    return family


def more_steps(records: Records, partners: Mapping[int, int], seed: int) -> Family:
    steps = {row: int(record.get("steps", 0)) for row, record in records.items()}
    total = len(records)
    best: tuple[int, int] | None = None
    for k in sorted(set(steps.values()))[:-1]:
        low = sum(1 for s in steps.values() if s <= k)
        if best is None or min(low, total - low) > best[0]:
            best = (min(low, total - low), k)
    if best is None or best[0] < LEAST_SIDE * total:
        return Family(info={"skipped": "no step count leaves a quarter of the questions each side"})
    k = best[1]
    units = _units(records, partners)
    family = Family(info={"k": k})
    short = [u for u in units if max(steps[r] for r in u) <= k]
    long = [u for u in units if max(steps[r] for r in u) > k]
    _deal(family, records, short, seed, ("train", "train", "val", "train"))
    _deal(family, records, long, seed, ("test",))
    return family


def held_out_objects(
    records: Records, partners: Mapping[int, int], recordings: Mapping[str, Recording], seed: int
) -> Family:
    used = {rid: _objects(recording) for rid, recording in recordings.items()}
    questions: Counter[str] = Counter(str(r["recording"]) for r in records.values())
    everywhere = set.intersection(*(used[rid] for rid in questions)) if questions else set()
    varying = sorted(set().union(*(used[rid] for rid in questions)) - everywhere)
    wanted = HELD_OUT_SHARE * len(records)
    held: list[str] = []
    out: set[str] = set()
    for thing in sorted(varying, key=lambda o: (rank(seed, o), o)):
        if sum(questions[r] for r in out) >= wanted:
            break
        more = {rid for rid in questions if thing in used[rid]} - out
        if sum(questions[r] for r in out | more) > wanted * 1.1:
            continue
        held.append(thing)
        out |= more
    family = Family(info={"held_out_objects": sorted(held)})
    ordered = sorted(out, key=lambda rid: (rank(seed, rid), rid))
    # each recording, in seeded order, to the side holding fewer questions so far: the halves
    # differ by less than one recording's questions (alternating recordings left the default
    # build's test 556 questions smaller than its val, issue 33)
    halves: dict[str, Split] = {}
    held_questions: dict[Split, int] = {"val": 0, "test": 0}
    for rid in ordered:
        side: Split = "test" if held_questions["test"] < held_questions["val"] else "val"
        halves[rid] = side
        held_questions[side] += questions[rid]
    for row, record in records.items():
        family.assignment[row] = halves.get(str(record["recording"]), "train")
    parted = [
        row
        for row, partner in partners.items()
        if row in family.assignment
        and partner in family.assignment
        and family.assignment[row] != family.assignment[partner]
    ]
    for row in parted:
        del family.assignment[row]
    family.info["pairs_parted"] = len(parted) // 2
    return family


def _parts(pairs: Iterable[str]) -> set[str]:
    return {part for pair in pairs for part in pair.split(SEP)}


def _objects(recording: Recording) -> set[str]:
    """Every object a recording's actions name or change (distractors it never touches are
    not listed by the annotations, so they do not count)."""
    found: set[str] = set()
    for action in recording.actions:
        slots = action.slots
        for names in (slots.patient, slots.source, slots.destination, slots.instrument):
            found.update(n for n in names if n != "hand")
        found.update(t.entity for t in action.transitions if not t.is_agent)
    return found


def _units(records: Records, partners: Mapping[int, int]) -> list[tuple[int, ...]]:
    """Yes/no pairs (yes first) and single questions, in row order."""
    units: list[tuple[int, ...]] = []
    for row in sorted(records):
        partner = partners.get(row)
        if partner is None or partner not in records:
            units.append((row,))
        elif records[row]["answer"] == "yes":
            units.append((row, partner))
    return units


def _deal(
    family: Family,
    records: Records,
    units: Sequence[tuple[int, ...]],
    seed: int,
    pattern: Sequence[Split],
) -> None:
    """Deal ``units`` out in the repeating ``pattern``, ordered by reasoning type, answer and
    seeded rank, so every stratum gets the pattern's ratio to within one unit."""

    def order(unit: tuple[int, ...]) -> tuple[str, str, int]:
        record = records[unit[0]]
        kind = reasoning_type(record, "semantic")
        answer = "" if len(unit) > 1 else str(record["answer"])
        return (kind, answer, rank(seed, str(record["id"])))

    for position, unit in enumerate(sorted(units, key=order)):
        family.assignment.update(dict.fromkeys(unit, pattern[position % len(pattern)]))
