"""What a question's program reads of its clip: the things and people that must be on screen
for a viewer to answer it (the first half of the grounding check, ``benchmark/grounding.py``).

The program is run through the one interpreter loop (``programs.operators.run_nodes``) with an
observer; what each node reads comes from its operator's declaration (``Reads``), so a new
operator says what it reads where it is registered. Of each action read the check needs the
objects its conditions name (``obj@...``), the object a query answers (``obj$``), and, where
the action is found or answered by its words (``hoi@...``, ``hoi$``), the action itself: every
object it involves and, for the other person's action, that person. A nested reference
(``obj@<query(...)>``) reads what its own program reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from taskqa.programs import parse_program
from taskqa.programs.graph import Node
from taskqa.programs.operators import (
    OPERATORS,
    UNDO,
    Reads,
    Unanswerable,
    Value,
    candidates,
    cause_of,
    conditions,
    made_before,
    matches,
    run_nodes,
)
from taskqa.programs.operators import Path as Conditions
from taskqa.programs.records import FACT_KINDS, ME, OTHER, ClipView, Interval
from taskqa.programs.syntax import quote_value

# fields and fact fields that name a thing or person
ENTITY_KEYS = ("obj", "source", "destination", "instrument", "subject", "object")
FIELD_KEYS = frozenset(
    {"hoi", "action", "action1", "verb", "obj", "source", "destination", "instrument", "task"}
)


@dataclass(frozen=True)
class Need:
    """One thing that must be on screen: ``entity`` (an object, or a person's id when
    ``person``) during action ``action`` (None: at any moment of the clip)."""

    entity: str
    action: str | None
    person: bool = False
    undrawn: bool = False  # the action itself, which the renderer does not act out
    twin: str | None = None  # an object of the recording a viewer may take for ``entity``


@dataclass
class _Reader:
    """What a program run reads, collected node by node (see ``evidence``)."""

    view: ClipView
    agents: Mapping[str, str]  # action id -> the person doing it
    needs: list[Need] = field(default_factory=list)
    undrawn: frozenset[str] = frozenset()  # verbs the renderer does not act out

    def read(
        self, interval: Interval, paths: Sequence[Conditions], answer: str | None = None
    ) -> None:
        future = interval.future
        where = None if future else interval.id
        words = any(_tests_fields(path) for path in paths)
        named: list[str] = []
        for path in paths:
            named += [s.value for s in path.steps if s.key in ENTITY_KEYS and s.value is not None]
        if answer is not None:
            named.append(answer)
        # a change read from the action's facts is seen only as the action is, its things (and
        # the other person) on screen: eating, which the renderer does not act out, leaves an
        # egg whole on screen though its log says "cut" (blind viewers answered "no" to "was
        # the egg cut at some point?")
        changes = any(_reads_change(path) for path in paths)
        if (words or changes) and not future:
            for verb in set(interval.value("verb")) & self.undrawn:
                self.add(Need(verb, where, undrawn=True))
            named += list(interval.value("obj"))
            if interval.other:
                self.add(Need(self.agents[interval.id], where, person=True))
        for name in named:
            if name == ME:
                continue
            if name == OTHER:
                if not future:
                    self.add(Need(self._other(interval), where, person=True))
                continue
            self.add(Need(name, where))

    def _other(self, interval: Interval) -> str:
        if interval.other:
            return self.agents[interval.id]
        others = sorted(set(self.agents.values()) - {self.view.clip.agent})
        return others[0] if others else self.view.clip.agent

    def add(self, need: Need) -> None:
        if need not in self.needs:
            self.needs.append(need)


def _reads_change(path: Conditions) -> bool:
    """Whether a condition path reads an action's change facts (``filter(change, ...)``)."""
    return any(step.descends and step.key == "change" for step in path.steps)


def _tests_fields(path: Conditions) -> bool:
    """Whether a condition path looks at the action itself (its words, verb, objects, task)
    rather than only at its facts: then the action must be recognisable on screen. A path
    with no steps (every action of a scope) reads nothing by itself."""
    for step in path.steps:
        if step.descends and step.key in FACT_KINDS:
            return False
        if step.key in FIELD_KEYS:
            return True
    return False


def evidence(
    program_text: str,
    view: ClipView,
    agents: Mapping[str, str],
    undrawn: frozenset[str] = frozenset(),
) -> list[Need] | None:
    """What must be on screen for a question with this program on this clip, in reading order;
    None when the program has no answer here (it cannot be checked). ``undrawn``: verbs the
    renderer does not act out; an action read by its words with one of them is a need no
    view meets."""
    program = parse_program(program_text)
    reader = _Reader(view, agents, undrawn=undrawn)
    provenance: list[dict[str, tuple[Conditions, ...]]] = []

    def follow(index: int, node: Node, inputs: Sequence[Value], value: Value) -> None:
        came = [provenance[i] for i in node.inputs]
        provenance.append(_follow(reader, node.function, node.arguments, inputs, came, value))

    try:
        run_nodes(program, view, follow)
    except Unanswerable:
        return None
    return reader.needs


def _follow(
    reader: _Reader,
    function: str,
    arguments: Sequence[Any],
    inputs: Sequence[Value],
    came: Sequence[dict[str, tuple[Conditions, ...]]],
    value: Value,
) -> dict[str, tuple[Conditions, ...]]:
    """The conditions each interval of ``value`` was selected by; notes what the node reads."""
    view = reader.view
    for step in conditions(arguments).steps:  # a nested reference reads what its program reads
        if step.value is not None and step.value.startswith("<") and step.value.endswith(">"):
            for need in evidence(step.value[1:-1], view, reader.agents, reader.undrawn) or ():
                reader.add(need)
    merged: dict[str, tuple[Conditions, ...]] = {}
    for origin in came:
        for key, paths in origin.items():
            merged[key] = merged.get(key, ()) + paths
    declared = OPERATORS[function]  # what the operator reads, declared beside its handler
    reads = declared.reads
    if reads is Reads.SELECTS:
        path = conditions(arguments, view)
        return {i.id: (*merged.get(i.id, ()), path) for i in _as_intervals(value)}
    if reads is Reads.PASSES:
        return {i.id: merged.get(i.id, ()) for i in _as_intervals(value)}
    if reads is Reads.ANCHOR:
        anchor = inputs[0]
        if isinstance(anchor, Interval):
            reader.read(anchor, came[0].get(anchor.id, ()))
        pool = came[1] if len(came) > 1 else {}
        return {i.id: pool.get(i.id, ()) for i in _as_intervals(value)}
    if reads is Reads.REMOVED and arguments[:1] == (UNDO,):
        # "would the person have been able to get the milk, ignoring anything anyone did to the
        # fridge before then?": the taking,
        # each opening the question takes away where it happens, or the fridge from the start
        asked = inputs[-1] if inputs else None
        if isinstance(asked, Interval):
            undone = made_before(view, arguments[1:], asked)
            _read_route(reader, arguments[1:], asked, came[-1].get(asked.id, ()), undone)
        return {}
    if reads is Reads.REMOVED:
        path = conditions(arguments, view)
        for removed in candidates(view, arguments, inputs):
            if matches(removed, path):
                reader.read(removed, (*merged.get(removed.id, ()), path))
        return {}
    if reads is Reads.FOUND:
        # "did the person open the fridge?": a yes reads the action where it happens; a no
        # reads the action the question names where it does happen (done by the other person,
        # or the person's next, unseen action, whose objects must then be on screen at some
        # moment of the clip), so the question is about things the viewer sees
        path = conditions(arguments, view)
        searched = candidates(view, arguments, inputs)
        found = [i for i in searched if matches(i, path)] or [
            i for i in (*view.observed, *view.others, *view.future) if matches(i, path)
        ]
        for interval in found:
            reader.read(interval, (*merged.get(interval.id, ()), path))
            if interval.future:
                for name in interval.value("obj"):
                    reader.add(Need(name, None))
        return {}
    if reads is Reads.SUBJECT:
        subject = inputs[0]
        if isinstance(subject, Interval):
            path = conditions(arguments, view)
            answer = _answered_entity(path, value) if declared.answers == "value" else None
            reader.read(subject, (*came[0].get(subject.id, ()), path), answer)
        return {}
    if reads is Reads.CAUSE:
        # "why was the fridge open when the person got the milk?": the taking, and the opening
        # the answer names (by the person or the other person), where it happens; an answer of
        # "open from the start" reads the thing during the taking and the person's first action
        # (a review from the frames found a TV first seen lit as it was switched off)
        anchor = inputs[0]
        if isinstance(anchor, Interval):
            last = cause_of(view, arguments, anchor)
            made = [] if last is None else [last]
            _read_route(reader, arguments, anchor, came[0].get(anchor.id, ()), made)
        return {}
    if reads is Reads.INPUTS:
        for index, item in enumerate(inputs):
            if isinstance(item, Interval):
                reader.read(item, came[index].get(item.id, ()))
        return {}
    return {}


def _read_route(
    reader: _Reader,
    arguments: Sequence[Any],
    anchor: Interval,
    selected_by: tuple[Conditions, ...],
    made: Sequence[Interval],
) -> None:
    """What a question about how a thing came to be as an action found it reads (``cause``,
    ``counterfactual(undo, ...)``): the action; each change that made it so, by its words,
    where it happens (the viewer must see the fridge opened); or, where none did, the thing
    during the person's first action, seen so from the start (a review from the frames found a
    TV first seen lit as it was switched off)."""
    view = reader.view
    path = conditions(arguments, view)
    reader.read(anchor, (*selected_by, path))
    for change in made:
        said = tuple(f"hoi@{quote_value(h)}" for h in change.value("hoi")[:1])
        reader.read(change, (conditions(said, view),))
    if not made and view.video:
        first = min(view.video, key=lambda i: (i.start, i.end))
        for step in path.steps:
            if step.key == "obj" and step.value is not None:
                reader.add(Need(step.value, first.id))


def _as_intervals(value: Value) -> tuple[Interval, ...]:
    if isinstance(value, Interval):
        return (value,)
    return value if isinstance(value, tuple) else ()


def _answered_entity(path: Conditions, value: Value) -> str | None:
    """The thing a query answers, when it selects a fact's object (``change, obj$``)."""
    if not isinstance(value, str) or not path.steps:
        return None
    last = path.steps[-1]
    inside = any(step.descends for step in path.steps)
    return value if last.select and last.key in ENTITY_KEYS and inside else None


Unmet = tuple[Need, tuple[float, ...]]  # a need no shipped view meets, and its moments
