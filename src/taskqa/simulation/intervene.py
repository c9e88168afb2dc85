"""One intervention on a simulated episode: the second recording of a minimal pair.

An episode's trace (``corpus.run_episode``) is changed in one place and replayed from its
initial world under the domain's schemas; where any later action can then no longer be done, the
intervention is refused (a person would not act on a world that does not allow it), so every
second recording is as consistent as the first. The kinds:

- ``skip``: one action does not happen (its time is left idle);
- ``fail``: one action that can fail is tried and fails (nothing changes);
- ``reorder``: two consecutive actions of one person swap places in time;
- ``initial-state``: one object starts in another state (the jar starts open).

Not among them: the other person looking away. The annotations would change (they would not be
aware of the action), but the renderer turns a person's head only to their own actions, so both
videos would be the same and the pair's answers could not both be true to what is shown.

The second recording is annotated from the same random state as the first, with the same zones
faced at every action (``Annotator`` ``faces``), so it differs from the first only by what the
intervention changes. Its duration is the first's, so both are cut into the same clip windows.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from taskqa.model import Attribute, Outcome, Recording
from taskqa.simulation.annotate import Faces
from taskqa.simulation.corpus import EpisodeRun
from taskqa.simulation.episode import ActionRecord, EpisodeTrace, object_view
from taskqa.simulation.world import ActionNotPossible, WorldState

KINDS = ("skip", "fail", "reorder", "initial-state")
# attributes an object may start the other way round in: each has two plain values a viewer
# tells apart at a glance
FLIPS: dict[Attribute, tuple[str, str]] = {
    Attribute.OPENNESS: ("open", "closed"),
    Attribute.CLEANLINESS: ("clean", "dirty"),
    Attribute.POWEREDNESS: ("on", "off"),
}


@dataclass(frozen=True)
class Intervention:
    kind: str
    detail: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.detail}

    def suffix(self) -> str:
        """A short, stable name for the second recording's id."""
        parts = [self.kind, *(self.detail[k] for k in sorted(self.detail) if k != "text")]
        return "~".join(p.replace(" ", "_") for p in parts)


@dataclass(frozen=True)
class Variant:
    intervention: Intervention
    recording: Recording


def replay(
    run: EpisodeRun, records: Sequence[ActionRecord], start: dict[str, dict[Attribute, str]]
) -> EpisodeTrace | None:
    """The trace of ``records`` done in turn from ``start``, every before/after view worked
    out again; None when one of them can no longer be done."""
    trace = run.trace
    agents = [a.id for a in trace.plan.agents]
    state = WorldState(run.domain, trace.plan.room, agents, start=start, places=trace.plan.places)
    initial = {name: object_view(state, name) for name in state.attributes}
    done: list[ActionRecord] = []
    for record in records:
        schema = run.domain.schemas[record.action.verb]
        objects = record.action.slots.objects()
        if any(o not in state.attributes for o in objects):
            return None
        before = {o: object_view(state, o) for o in objects}
        try:
            state.apply(schema, record.action.slots, record.agent, record.outcome)
        except ActionNotPossible:
            return None
        after = {o: object_view(state, o) for o in objects}
        done.append(replace(record, before=before, after=after))
    plan = replace(trace.plan, start=start)
    return EpisodeTrace(plan, done, trace.steps, trace.initial_zones, initial, trace.interruptions)


def variants(run: EpisodeRun, per_kind: int = 2, seed: int = 0) -> Iterator[Variant]:
    """Up to ``per_kind`` second recordings of each kind, the candidates tried in a seeded
    order; each is the first recording (``run.recording()``) changed in one place."""
    first = run.annotator()
    faces = first.faces()
    duration = first.recording(run.name).duration
    rng = random.Random(f"{seed}:{run.name}")
    for kind in KINDS:
        options = list(_candidates(run, kind, faces))
        rng.shuffle(options)
        for intervention, trace, seen in options[:per_kind]:
            name = f"{run.name}~{intervention.suffix()}"
            recording = run.recording(trace or run.trace, seen, name)
            recording.duration = max(recording.duration, duration)
            recording.metadata["minimal_pair_of"] = run.name
            recording.metadata["intervention"] = intervention.suffix()
            yield Variant(intervention, recording)


Candidate = tuple[Intervention, EpisodeTrace | None, Faces]


def _start(run: EpisodeRun) -> dict[str, dict[Attribute, str]]:
    return {name: dict(view.attributes) for name, view in run.trace.initial.items()}


def _candidates(run: EpisodeRun, kind: str, faces: Faces) -> Iterator[Candidate]:
    actions = run.trace.actions
    start = _start(run)
    if kind == "skip":
        for index, record in enumerate(actions):
            if record.outcome is Outcome.DONE:
                trace = replay(run, [*actions[:index], *actions[index + 1 :]], start)
                if trace is not None:
                    yield _about("skip", record), trace, faces
    elif kind == "fail":
        for index, record in enumerate(actions):
            schema = run.domain.schemas[record.action.verb]
            if schema.can_fail and record.outcome is Outcome.DONE:
                tried = replace(record, outcome=Outcome.FAILED)
                trace = replay(run, [*actions[:index], tried, *actions[index + 1 :]], start)
                if trace is not None:
                    yield _about("fail", record), trace, faces
    elif kind == "reorder":
        yield from _reorders(run, start, faces)
    elif kind == "initial-state":
        used = {o for record in actions for o in record.action.slots.objects()}
        for name in sorted(used & set(start)):
            for attribute, values in FLIPS.items():
                value = start[name].get(attribute)
                if value not in values:
                    continue
                other = values[1 - values.index(value)]
                flipped = {**start, name: {**start[name], attribute: other}}
                trace = replay(run, actions, flipped)
                if trace is not None:
                    detail = {"object": name, "attribute": attribute.value, "value": other}
                    yield Intervention("initial-state", detail), trace, faces


def _about(kind: str, record: ActionRecord) -> Intervention:
    text = " ".join([record.action.verb, *record.action.slots.objects()])
    return Intervention(kind, {"agent": record.agent, "frame": str(record.start), "text": text})


def _reorders(
    run: EpisodeRun, start: dict[str, dict[Attribute, str]], faces: Faces
) -> Iterator[Candidate]:
    actions = run.trace.actions
    for index, first in enumerate(actions):
        later = [i for i in range(index + 1, len(actions)) if actions[i].agent == first.agent]
        if not later:
            continue
        second = actions[later[0]]
        if (first.action, first.outcome) == (second.action, second.outcome):
            continue
        length_first, length_second = first.end - first.start, second.end - second.start
        moved_second = replace(second, start=first.start, end=first.start + length_second)
        gap = second.start - first.end
        moved_first = replace(
            first, start=moved_second.end + gap, end=moved_second.end + gap + length_first
        )
        order = [r for r in actions if r is not first and r is not second]
        order += [moved_second, moved_first]
        order.sort(key=lambda r: (r.start, r.agent))
        trace = replay(run, order, start)
        if trace is None:
            continue
        # each slot keeps the zones its person faced at that moment
        seen = dict(faces)
        seen[(first.agent, moved_first.start)] = faces.get((first.agent, second.start), frozenset())
        seen[(first.agent, moved_second.start)] = faces.get((first.agent, first.start), frozenset())
        text_first = " ".join([first.action.verb, *first.action.slots.objects()])
        text_second = " ".join([second.action.verb, *second.action.slots.objects()])
        detail = {
            "agent": first.agent,
            "frame": str(first.start),
            "text": f"{text_second} before {text_first}",
        }
        yield Intervention("reorder", detail), trace, seen
