"""How much a simulated corpus varies where the question text cannot see it.

Counts, over a corpus, how often each object starts away from its domain default, how often
each distractor is present, which object each task role took, how many steps were already done
at the start, how many actions failed or were partial, how many times the other person dealt with
a thing one left (interruptions) and how often a thing started somewhere else than its default.
``benchmarks/bench_simulate.py`` prints it; the figures in docs/simulated-world.md come from it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from taskqa.model import Outcome, Recording
from taskqa.simulation.domain import PLACE, Domain


def variation_summary(recordings: Iterable[Recording], domain: Domain) -> dict[str, Any]:
    """The figures of docs/simulated-world.md's table, as a JSON-ready dict."""
    recordings = list(recordings)
    actions = [a for r in recordings for a in r.actions]
    outcomes = Counter(a.outcome.value for a in actions)
    by_verb = Counter(f"{a.verb} {a.outcome.value}" for a in actions if a.outcome != Outcome.DONE)
    return {
        "episodes": len(recordings),
        "actions": len(actions),
        "outcomes": {o.value: outcomes[o.value] for o in Outcome},
        "not_done_by_verb": dict(sorted(by_verb.items())),
        "initial_states": _initial_states(recordings, domain),
        "distractors": _distractors(recordings, domain),
        "roles": _roles(recordings, domain),
        "interruptions": _interruptions(recordings),
        "placements": _placements(recordings, domain),
        "steps_already_done": sum(
            1
            for r in recordings
            for p in r.procedures
            for s in p.steps
            if not s.is_missing and s.start == s.end
        ),
    }


def _initial_states(recordings: list[Recording], domain: Domain) -> dict[str, Any]:
    """Per object attribute listed under ``vary``: the share of episodes starting off default."""
    starts: dict[str, Counter[str]] = defaultdict(Counter)
    for recording in recordings:
        for name, snapshot in recording.initial_state.items():
            spec = domain.spec.objects.get(name)
            if spec is None:
                continue
            for attribute, value in snapshot.attributes.items():
                key = attribute.name.lower()
                if key in spec.vary:
                    starts[f"{name}.{key}"][str(value == spec.attributes[key])] += 1
    shares = {
        key: round(counts["False"] / sum(counts.values()), 3)
        for key, counts in sorted(starts.items())
    }
    varied = [share for share in shares.values() if share > 0]
    return {
        "attributes_that_vary": len(varied),
        "mean_share_off_default": round(sum(varied) / len(varied), 3) if varied else 0.0,
        "share_off_default": shares,
    }


def _distractors(recordings: list[Recording], domain: Domain) -> dict[str, float]:
    presence: dict[str, float] = {}
    for name, spec in sorted(domain.spec.objects.items()):
        if not spec.distractor:
            continue
        in_room = [r for r in recordings if r.environment == spec.room]
        if in_room:
            presence[name] = round(sum(name in r.initial_state for r in in_room) / len(in_room), 3)
    return presence


def _roles(recordings: list[Recording], domain: Domain) -> dict[str, dict[str, int]]:
    """``task.role`` -> how many episodes bound it to each object."""
    chosen: dict[str, Counter[str]] = defaultdict(Counter)
    for recording in recordings:
        for task_name in recording.tasks:
            task = domain.tasks.get(task_name)
            if task is None:
                continue
            used = {o for a in recording.actions if task_name in a.tasks for o in a.slots.objects()}
            for role, options in task.roles.items():
                for obj in sorted(used & set(options)):
                    chosen[f"{task_name}.{role}"][obj] += 1
    return {key: dict(sorted(counts.items())) for key, counts in sorted(chosen.items())}


def _interruptions(recordings: list[Recording]) -> dict[str, Any]:
    """How many interruptions, in how many of the two-person episodes, and by first verb."""
    pairs = [r for r in recordings if len(r.agents) > 1]
    counts = [int(r.metadata.get("interruptions", 0)) for r in pairs]
    by_verb: Counter[str] = Counter()
    for recording in pairs:
        ids = set(str(recording.metadata.get("interruption_actions", "")).split())
        by_verb.update(a.verb for a in recording.actions if a.id in ids)
    return {
        "total": sum(counts),
        "two_person_episodes": len(pairs),
        "episodes_with_one": sum(1 for c in counts if c > 0),
        "actions_by_verb": dict(sorted(by_verb.items())),
    }


def _placements(recordings: list[Recording], domain: Domain) -> dict[str, Any]:
    """Per thing with ``vary: {at: ...}``: the episodes it started at each holder."""
    starts: dict[str, Counter[str]] = defaultdict(Counter)
    off_default = 0
    for recording in recordings:
        for name, snapshot in recording.initial_state.items():
            spec = domain.spec.objects.get(name)
            if spec is None or PLACE not in spec.vary:
                continue
            holders = [r.object for r in snapshot.relations if r.object is not None]
            holder = holders[0] if holders else "nowhere"
            starts[name][holder] += 1
            off_default += holder != spec.at
    return {
        "off_default": off_default,
        "by_object": {name: dict(sorted(c.items())) for name, c in sorted(starts.items())},
    }
