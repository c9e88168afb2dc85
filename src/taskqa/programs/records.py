"""What programs run on: a clip seen as time-ordered intervals with fields and facts.

An interval is one action. Its **fields** are single words or phrases a question can name:

| field | value |
|---|---|
| ``action`` | the action with its first two objects hidden: ``get something from something`` |
| ``action1`` | the action with its first object hidden: ``get something from fridge`` |
| ``hoi`` | the full action: ``get orange from fridge`` |
| ``verb``, ``obj``, ``task`` | the verb, every object involved, the task labels |
| ``patient`` | the thing the action is done to (``open drawer``: ``drawer``); none for ``pour`` |
| ``source``, ``destination``, ``instrument`` | the other slots (``get milk from fridge``: fridge) |
| ``agent`` | ``me`` for the clip's person, ``the other person`` otherwise |
| ``aware`` | ``yes`` if the other person was aware of this action, else ``no`` |
| ``executable`` | ``yes``, ``no`` or ``unknown``; changed only by ``counterfactual`` |

Its **facts** are records of four kinds: ``change`` (obj, attribute, before, after),
``state`` (obj, attribute, value, type = before/after), ``relation`` (subject, relation,
object, type, kind) and, on the person's shown actions, ``scene`` (obj, attribute, value): how an
object of the clip that the action does not touch stood throughout it (``programs/scene.py``).
Visibility is a state but never a change: it follows where people look, not what they do. A
fact with an ``unknown`` value (a state nobody could annotate, a change with an unknown side) is
kept apart in the interval's ``partial`` facts: no question is built on it, and a condition that
names its attribute and could select it leaves the program without an answer
(``operators.walk``), since leaving it out would answer "no" where a viewer may see the change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from taskqa.causal import CausalStructure
from taskqa.model import UNKNOWN, VIEWPOINT_ATTRIBUTES, ActionSegment, Recording
from taskqa.programs.clips import Clip
from taskqa.programs.scene import SCENE, scene_states
from taskqa.sources.lemma_actions import format_action

ME, OTHER = "me", "the other person"
FACT_KINDS = ("change", "state", "relation", SCENE)


@dataclass(frozen=True)
class Fact:
    kind: str
    fields: Mapping[str, str]


@dataclass(frozen=True)
class Interval:
    id: str
    start: float
    end: float
    fields: Mapping[str, tuple[str, ...]]
    facts: tuple[Fact, ...]
    future: bool = False
    other: bool = False
    # facts with an ``unknown`` value: never a question's subject, but they may be what a
    # condition on their attribute selects, and then the walk has no answer
    partial: tuple[Fact, ...] = ()

    def value(self, name: str) -> tuple[str, ...]:
        return self.fields.get(name, ())

    def with_executability(self, verdict: str) -> Interval:
        """The interval as a counterfactual sees it: a step that does not happen changes nothing."""
        if verdict != "no":
            facts, partial = self.facts, self.partial
        else:
            facts = tuple(f for f in self.facts if f.kind != "change")
            partial = tuple(f for f in self.partial if f.kind != "change")
        fields = {**self.fields, "executable": (verdict,)}
        return replace(self, fields=fields, facts=facts, partial=partial)

    def finding(self, obj: str, attribute: str, value: str) -> Interval:
        """The interval had it found ``obj``'s ``attribute`` at ``value`` (a counterfactual's
        "would the fridge have been open or closed when ..."): its before-state of it rewritten."""

        def found(fact: Fact) -> Fact:
            f = fact.fields
            said = (f.get("obj"), f.get("attribute"), f.get("type"))
            if fact.kind == "state" and said == (obj, attribute, "before"):
                return Fact(fact.kind, {**f, "value": value})
            return fact

        return replace(self, facts=tuple(found(f) for f in self.facts))


@dataclass(frozen=True)
class ClipView:
    """A clip's intervals plus the recording's causal structure."""

    clip: Clip
    observed: tuple[Interval, ...]
    future: tuple[Interval, ...]
    others: tuple[Interval, ...]
    structure: CausalStructure
    by_id: Mapping[str, Interval] = field(default_factory=dict)
    # what nested programs (``obj@<query(...)>``) and the paths holding them come to on this
    # clip; they depend on the clip alone, so they are worked out once
    nested: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def video(self) -> tuple[Interval, ...]:
        return self.observed

    @property
    def everything(self) -> tuple[Interval, ...]:
        return self.observed + self.future


def plain_action(action: ActionSegment, templates: Mapping[str, str] | None = None) -> str:
    """``Get [orange] from [fridge] using [hand]`` → ``get orange from fridge``."""
    text = format_action(action.verb, action.slots, templates)
    text = text.replace(" using [hand]", "").replace("[", "").replace("]", "")
    return text[:1].lower() + text[1:]


def hidden_action(
    action: ActionSegment, templates: Mapping[str, str] | None = None, count: int = 2
) -> str:
    """The action with the objects of its first ``count`` filled slots said as ``something``."""
    slots = action.slots.model_copy()
    hidden = 0
    for name in ("patient", "source", "destination", "instrument"):
        if getattr(slots, name) and hidden < count:
            setattr(slots, name, ["something"])
            hidden += 1
    return plain_action(action.model_copy(update={"slots": slots}), templates)


def build_view(
    recording: Recording,
    clip: Clip,
    structure: CausalStructure,
    templates: Mapping[str, str] | None = None,
) -> ClipView:
    by_id = {a.id: a for a in recording.actions}

    def intervals(ids: tuple[str, ...], *, future: bool, other: bool) -> tuple[Interval, ...]:
        return tuple(
            _interval(by_id[i], clip.agent, templates, future=future, other=other) for i in ids
        )

    observed = intervals(clip.observed, future=False, other=False)
    shown = [by_id[i] for i in clip.observed]
    # the things of the clip's actions, and those any action of the recording uses: a fridge
    # nobody opens in the clip still shows how it stood ("why was the fridge closed at the end
    # of the video?" -> "it was already closed when the video began"); templates name the
    # latter only where they say so (``Template.objects`` ``room``)
    things = {o for a in shown for o in a.slots.objects()}
    things |= {o for a in recording.actions for o in a.slots.objects()}
    scene = scene_states(recording, shown, things, clip.prediction_start)
    observed = tuple(_with_scene(i, scene.of(i.id)) for i in observed)
    future = intervals(clip.future, future=True, other=False)
    others = intervals(clip.others, future=False, other=True)
    index = {i.id: i for i in (*observed, *future, *others)}
    return ClipView(clip, observed, future, others, structure, index)


def _interval(
    action: ActionSegment,
    person: str,
    templates: Mapping[str, str] | None,
    *,
    future: bool,
    other: bool,
) -> Interval:
    fields = {
        "action": (hidden_action(action, templates),),
        "action1": (hidden_action(action, templates, count=1),),
        "hoi": (plain_action(action, templates),),
        "verb": (action.verb,),
        "obj": tuple(action.slots.objects()),
        # what a viewer says was opened, cut or washed: the thing acted on, as the action is
        # shown, not whatever its effects touched ("eat egg" halves the egg but cuts nothing)
        "patient": tuple(action.slots.patient),
        # the other slots, so a question can ask of the fridge a thing was taken from ("did
        # the person need to open the fridge to get the milk?"), never of the milk
        "source": tuple(action.slots.source),
        "destination": tuple(action.slots.destination),
        "instrument": tuple(action.slots.instrument),
        "task": tuple(action.tasks),
        "agent": (ME if action.agent == person else OTHER,),
        "aware": ("yes" if _other_aware(action) else "no",),
        "executable": ("yes",),
    }
    facts = _facts(action, person)
    known = tuple(f for f in facts if UNKNOWN not in f.fields.values())
    partial = tuple(f for f in facts if UNKNOWN in f.fields.values())
    return Interval(action.id, action.start, action.end, fields, known, future, other, partial)


def _with_scene(interval: Interval, scene: Mapping[str, Mapping[str, str]]) -> Interval:
    """The interval with a ``scene`` fact per attribute of each untouched object it shows."""
    facts = [
        Fact(SCENE, {"obj": name, "attribute": attribute, "value": value})
        for name, values in scene.items()
        for attribute, value in values.items()
    ]
    if not facts:
        return interval
    known = tuple(f for f in facts if f.fields["value"] != UNKNOWN)
    partial = tuple(f for f in facts if f.fields["value"] == UNKNOWN)
    return replace(interval, facts=interval.facts + known, partial=interval.partial + partial)


def _other_aware(action: ActionSegment) -> bool:
    return any(
        r.relation == "aware-of-other-action" and r.object == action.agent
        for t in action.transitions
        if t.is_agent and t.entity != action.agent
        for r in (*t.before.relations, *t.after.relations)
    )


def _facts(action: ActionSegment, person: str) -> tuple[Fact, ...]:
    facts: list[Fact] = []
    agents = {t.entity for t in action.transitions if t.is_agent}

    def who(name: str) -> str:
        # Questions speak of "me" and "the other person", never of annotation ids such as P1.
        if name not in agents:
            return name
        return ME if name == person else OTHER

    for transition in action.transitions:
        name = who(transition.entity)
        for moment, snapshot in (("before", transition.before), ("after", transition.after)):
            for attribute, value in snapshot.attributes.items():
                facts.append(
                    Fact(
                        "state",
                        {
                            "obj": name,
                            "attribute": attribute.value,
                            "value": value,
                            "type": moment,
                        },
                    )
                )
            for relation in snapshot.relations:
                facts.append(
                    Fact(
                        "relation",
                        {
                            "subject": who(relation.subject),
                            "relation": relation.relation,
                            "object": who(relation.object or ""),
                            "type": moment,
                            "kind": relation.kind.value,
                        },
                    )
                )
        if transition.is_agent:
            continue
        for attribute in transition.changed_attributes():
            if attribute in VIEWPOINT_ATTRIBUTES:
                continue  # turning one's head is no change to the object (see causal docs)
            before = transition.before.attributes.get(attribute)
            after = transition.after.attributes.get(attribute)
            if before and after:
                facts.append(
                    Fact(
                        "change",
                        {
                            "obj": name,
                            "attribute": attribute.value,
                            "before": before,
                            "after": after,
                        },
                    )
                )
    return tuple(facts)
