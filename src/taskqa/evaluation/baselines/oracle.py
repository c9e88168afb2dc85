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

from taskqa.benchmark.folder import CLIPS, Benchmark, SplitQuestion
from taskqa.convert import read_recordings
from taskqa.programs import parse_program
from taskqa.programs.clips import ClipRecord
from taskqa.programs.records import ClipView, Fact, Interval
from taskqa.questions.answers import answer, attempted_actions
from taskqa.questions.generate import corpus_domain, speaker_of
from taskqa.questions.views import clip_views
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
    recordings, verb_templates = read_recordings(benchmark.corpus_dir)
    by_id = {r.id: r for r in recordings}
    clips: dict[str, list[ClipRecord]] = {}
    for record in benchmark.clips().values():
        clips.setdefault(record.recording, []).append(record)
    clips_file = str(benchmark.root / CLIPS)
    domain = corpus_domain(benchmark.corpus_dir)
    speaker = speaker_of(recordings, domain)
    predictions: list[str | None] = [None] * len(questions)
    for recording_id, positions in _by_recording(questions).items():
        recording = by_id.get(recording_id)
        if recording is not None:
            views = clip_views(
                recording, clips.get(recording_id, []), verb_templates, clips_file, domain
            )
            outcome_of = {action.id: action.outcome for action in recording.actions}
            if flip > 0.0:
                views = _corrupted(views, recording_id, flip, seed)
            for i in positions:
                view = views.get(questions[i].question.clip)
                if view is not None:
                    program = parse_program(questions[i].question.program)
                    attempted = attempted_actions(view, outcome_of)
                    form = questions[i].question.answer_form
                    predictions[i] = answer(program, view, speaker, attempted, form)
        if on_progress:
            on_progress(len(positions))
    return predictions


def _by_recording(questions: Sequence[SplitQuestion]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for i, item in enumerate(questions):
        groups.setdefault(item.question.recording, []).append(i)
    return groups


def _corrupted(
    views: Mapping[str, ClipView], recording: str, flip: float, seed: int
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
