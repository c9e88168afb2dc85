"""The oracle: each question's program run on the benchmark's own annotations.

With clean annotations it must answer every question exactly as generation did (a check that
generation, the benchmark folder and evaluation agree). ``flip > 0`` makes it a *noisy* oracle:
a perception model that misreads each state, relation and change fact with probability ``flip``
(a misread value is another value of the same attribute, or another relation or object, seen in
the same recording), which shows how accuracy falls as perception gets worse. Where a corrupted
program has no answer at all the oracle abstains (``null``, scored as invalid).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial

from taskqa.benchmark.folder import CLIPS, Benchmark, SplitQuestion
from taskqa.programs.records import ClipView, Fact, Interval
from taskqa.questions.world import Asked, CorpusWorld
from taskqa.simulation.config import derive_seed

# Which field of a fact a misreading replaces.
CORRUPTED_FIELD = {"state": "value", "relation": "object", "change": "after"}


def oracle_predictions(
    benchmark: Benchmark,
    questions: Sequence[SplitQuestion],
    flip: float = 0.0,
    seed: int = 0,
    on_progress: Callable[[int], None] | None = None,
) -> list[str | None]:
    world = CorpusWorld.open(benchmark.corpus_dir)
    changed = None
    if flip > 0.0:
        changed = partial(_corrupted, flip=flip, seed=seed)
    predictions: list[str | None] = [None] * len(questions)
    clips_file = str(benchmark.root / CLIPS)
    for asked in world.ask(questions, benchmark.clips(), clips_file, changed, on_progress):
        if isinstance(asked, Asked):
            predictions[asked.position] = asked.answer()
    return predictions


def _corrupted(
    recording: str, views: Mapping[str, ClipView], flip: float, seed: int
) -> dict[str, ClipView]:
    return {
        clip: corrupt_view(view, flip, random.Random(derive_seed(seed, recording, clip)))
        for clip, view in views.items()
    }


def corrupt_view(view: ClipView, flip: float, rng: random.Random) -> ClipView:
    """The clip as a perception model with fact error rate ``flip`` would annotate it."""
    intervals = (*view.observed, *view.future, *view.others)
    choices = _alternatives(f for interval in intervals for f in interval.facts)

    def corrupt(interval: Interval) -> Interval:
        facts = tuple(_misread(f, flip, choices, rng) for f in interval.facts)
        return replace(interval, facts=facts)

    observed = tuple(corrupt(i) for i in view.observed)
    future = tuple(corrupt(i) for i in view.future)
    others = tuple(corrupt(i) for i in view.others)
    index = {i.id: i for i in (*observed, *future, *others)}
    # a fresh ``nested`` cache: answers of nested programs on the clean view no longer hold
    return replace(view, observed=observed, future=future, others=others, by_id=index, nested={})


def _key(fact: Fact) -> tuple[str, str]:
    return (fact.kind, fact.fields.get("attribute", fact.fields.get("relation", "")))


def _alternatives(facts: Iterable[Fact]) -> dict[tuple[str, str], list[str]]:
    """For each (kind, attribute or relation), the values the clip shows, in a fixed order."""
    seen: dict[tuple[str, str], set[str]] = {}
    for fact in facts:
        field_name = CORRUPTED_FIELD.get(fact.kind)
        if field_name is not None:
            value = fact.fields.get(field_name)
            if value is not None:
                seen.setdefault(_key(fact), set()).add(value)
                if fact.kind == "change":
                    seen[_key(fact)].add(fact.fields.get("before", value))
    return {key: sorted(values) for key, values in seen.items()}


def _misread(
    fact: Fact, flip: float, choices: Mapping[tuple[str, str], list[str]], rng: random.Random
) -> Fact:
    field_name = CORRUPTED_FIELD.get(fact.kind)
    # one draw per fact whatever happens, so the noise on one fact never shifts another's
    draw, pick = rng.random(), rng.random()
    if field_name is None or draw >= flip:
        return fact
    current = fact.fields.get(field_name)
    others = [v for v in choices.get(_key(fact), []) if v != current]
    if not others:
        return fact
    return Fact(fact.kind, {**fact.fields, field_name: others[int(pick * len(others))]})
