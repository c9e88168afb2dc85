"""Look-alikes: objects of one recording a viewer cannot tell apart on screen (same colour, and
the same category or one ``lookalike`` group). A question that names one of them is about
either, so the grounding check drops it before any mask is drawn (docs/grounding.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from taskqa.benchmark.needs import Need, Unmet
from taskqa.model import Recording
from taskqa.simulation.domain import Domain


def recording_objects(recording: Recording, domain: Domain) -> set[str]:
    """The objects a recording has: those present at its start (``initial_state``; where it
    does not say, every object of its room that is there in every episode) and every object
    its actions name."""
    found = set(recording.initial_state)
    if not found and recording.environment is not None:
        found = {
            name
            for name in domain.objects_in(recording.environment)
            if not domain.spec.objects[name].distractor
        }
    return found | {name for action in recording.actions for name in action.slots.objects()}


def lookalike_groups(domain: Domain) -> tuple[frozenset[str], ...]:
    """The groups of categories a viewer cannot tell apart: the domain's own ``lookalike`` and
    the built-in world's, since the check, like ``taskqa render``, draws every domain with the
    built-in look, whose models those groups describe (a cup and a mug look alike whatever
    file names them)."""
    from taskqa.simulation.domain import load_domain

    own = domain.lookalikes
    return own + tuple(group for group in load_domain().lookalikes if group not in own)


def named_twin(needs: Sequence[Need] | None, twins: Mapping[str, Sequence[str]]) -> Unmet | None:
    """The first object a question names that has a look-alike in its recording (``twins``:
    object -> its look-alikes there), as an unmet need; None when it names none."""
    for need in needs or ():
        if need.person or need.undrawn:
            continue
        found = twins.get(need.entity)
        if found:
            return Need(need.entity, need.action, twin=found[0]), ()
    return None


def recording_twins(recording: Recording, domain: Domain) -> dict[str, list[str]]:
    """Each object of the recording that has a look-alike in it -> those look-alikes."""
    present = recording_objects(recording, domain)
    groups = lookalike_groups(domain)
    found = {name: domain.twins(name, present, groups) for name in sorted(present)}
    return {name: twins for name, twins in found.items() if twins}
