"""What a viewer sees of the things an action does not touch: the ``scene`` facts of an interval.

An action's own facts (``state``, ``change``) cover the things it involves, and there its schema
pins most answers: the fridge is open before anyone takes milk from it. The rest of the room is
what varies from episode to episode without the words saying so: a fridge left open by an
earlier step or by the other person, a cup that started dirty, a stove left on. A ``scene`` fact
says that an object of the clip, untouched by the action, had ``attribute = value`` for the whole
of it: ``Fact("scene", {obj, attribute, value})``.

The values are replayed from the recording: the object's ``initial_state``, then the ``after``
snapshot of every action (either person's) that involved it and ended before the interval
starts. An object some action involves while the interval runs is changing on screen, so it
gets no scene fact then; nor does one whose value nobody annotated (a replay that has not seen
the object, or an ``unknown`` value: kept apart as partial facts, as for ``state`` facts).
Visibility attributes are never scene facts (they follow where people look), nor are the
attributes a frame does not show on a thing nobody is handling: how hot it is (drawn as a faint
red tint and a few small puffs of steam, which a thing across the room does not show) and
whether a mixture is still mixing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from taskqa.model import VIEWPOINT_ATTRIBUTES, ActionSegment, Attribute, Recording

SCENE = "scene"
UNSEEN = frozenset({Attribute.TEMPERATURE.value, Attribute.MIXTURE.value})


@dataclass(frozen=True)
class SceneStates:
    """Per interval id, the untouched objects' attribute values that hold throughout it."""

    by_interval: Mapping[str, Mapping[str, Mapping[str, str]]]

    def of(self, interval_id: str) -> Mapping[str, Mapping[str, str]]:
        return self.by_interval.get(interval_id, {})


def scene_states(
    recording: Recording,
    intervals: Sequence[ActionSegment],
    objects: Iterable[str],
    clip_end: float | None = None,
) -> SceneStates:
    """The scene of each of ``intervals``: ``objects`` it does not involve, as they stood.

    ``objects`` are the things a question about the clip may name (the objects of the clip's
    shown actions, and those other actions of the recording use, for the templates that ask
    of fixtures the clip leaves untouched); an object outside the recording's initial state and
    every earlier action is left out, since nothing says how it stood. The last interval's
    scene must also hold until ``clip_end`` (the clip's last frame), so that it is how the clip
    leaves each thing: "at the end of the video, was the fridge open?" is not answered by a
    fridge the other person shuts after the person's last action but before the clip ends.
    """
    wanted = sorted(set(objects))
    touching: dict[str, list[ActionSegment]] = {name: [] for name in wanted}
    for action in recording.actions:
        for transition in action.transitions:
            if not transition.is_agent and transition.entity in touching:
                touching[transition.entity].append(action)
    for actions in touching.values():
        actions.sort(key=lambda a: (a.end, a.start, a.id))
    result: dict[str, dict[str, dict[str, str]]] = {}
    last = max(intervals, key=lambda a: (a.end, a.start, a.id)) if intervals else None
    for interval in intervals:
        involved = {t.entity for t in interval.transitions}
        until = interval.end
        if interval is last and clip_end is not None:
            until = max(until, clip_end)
        scene: dict[str, dict[str, str]] = {}
        for name in wanted:
            if name in involved:
                continue
            values = _values_during(recording, name, touching[name], interval.start, until)
            if values:
                scene[name] = values
        result[interval.id] = scene
    return SceneStates(result)


def _values_during(
    recording: Recording, name: str, actions: list[ActionSegment], start: float, end: float
) -> dict[str, str]:
    """``name``'s attribute values from ``start`` to ``end``; empty when it changes meanwhile."""
    initial = recording.initial_state.get(name)
    values = {a.value: v for a, v in initial.attributes.items()} if initial is not None else {}
    for action in actions:
        if action.end <= start:
            transition = action.transition(name)
            if transition is not None:
                for attribute, value in transition.after.attributes.items():
                    values[attribute.value] = value
        elif action.start < end:
            return {}  # someone acts on it while the interval runs: no settled value
    left_out = UNSEEN | {a.value for a in VIEWPOINT_ATTRIBUTES}
    return {a: v for a, v in sorted(values.items()) if a not in left_out}
