"""The nine operators (and ``exist``), one small handler each, registered by name.

A handler receives the clip view, the node's literal arguments and the results of its input
nodes, and returns intervals, one interval or an answer string. When a step cannot be carried
out (``only`` on zero or several intervals, a query whose answer is not a single value) it
raises :class:`Unanswerable`, which the executor turns into "no question here".

Conditions are paths read left to right over one interval: a fact kind (``change``, ``state``,
``relation``) moves from the interval to its facts of that kind; ``key@value`` keeps the items
whose ``key`` has that value; ``key$`` (last) selects the values of ``key``. ``others`` in a
filter swaps in the other person's actions overlapping the input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from taskqa.causal import Link
from taskqa.model import ATTRIBUTE_VALUES, UNKNOWN, Attribute
from taskqa.programs.graph import Argument, Node, Program
from taskqa.programs.records import FACT_KINDS, ClipView, Fact, Interval
from taskqa.programs.scene import SCENE
from taskqa.programs.syntax import parse_program, unquote

Value = tuple[Interval, ...] | Interval | str
Handler = Callable[[ClipView, Sequence[Argument], Sequence[Value]], Value]


class Reads(Enum):
    """What a node reads of the clip, declared beside its handler: what the grounding check
    (``benchmark/grounding.py``) needs on screen for a question that runs it."""

    SELECTS = "selects"  # its outputs are the intervals its conditions pick
    PASSES = "passes"  # its outputs are some of its inputs, picked by count, order or time
    ANCHOR = "anchor"  # reads its anchor (first input); its outputs come from the second
    REMOVED = "removed"  # reads the action it takes away (undo: the route it takes away)
    FOUND = "found"  # reads the action it looks for, where that happens
    SUBJECT = "subject"  # reads what its conditions ask of its subject (first input)
    INPUTS = "inputs"  # reads every interval it is given
    CAUSE = "cause"  # reads its action, and the earlier change it answers with (``cause``)


@dataclass(frozen=True)
class Operator:
    """One registered operator: its handler, what it reads, and what a program ending in it
    answers (None: it gives no answer, so no program ends in it)."""

    handler: Handler
    reads: Reads
    answers: str | None = None  # "value" (an open answer) or "yes/no"


OPERATORS: dict[str, Operator] = {}
HANDLERS: dict[str, Handler] = {}
Observer = Callable[[int, Node, Sequence[Value], Value], None]
# ``other_video``: every action of the other person in the clip (``others`` in a filter keeps
# only those overlapping its input, which misses one done while the person stands idle);
# ``everyone``: both people's actions in the clip, in time order ("did the fridge stop being
# open at any point in the video?" is answered by whoever closed it)
SCOPES = ("video", "all", "future", "other_video", "everyone")


class Unanswerable(Exception):
    """This program has no answer on this clip; the candidate question is dropped."""


def operator(name: str, reads: Reads, answers: str | None = None) -> Callable[[Handler], Handler]:
    """Register ``name``'s handler with what it reads and what a program ending in it answers."""

    def register(handler: Handler) -> Handler:
        OPERATORS[name] = Operator(handler, reads, answers)
        HANDLERS[name] = handler
        return handler

    return register


def run_nodes(program: Program, view: ClipView, observer: Observer | None = None) -> list[Value]:
    """Every node's result in order: the one interpreter loop (the executor, nested references
    and the grounding check all run programs through it). ``observer`` sees each node's index,
    node, inputs and result as it is made. Raises :class:`Unanswerable` where a step cannot be
    carried out."""
    results: list[Value] = []
    for index, node in enumerate(program.nodes):
        inputs = [results[i] for i in node.inputs]
        value = HANDLERS[node.function](view, node.arguments, inputs)
        if observer is not None:
            observer(index, node, inputs, value)
        results.append(value)
    return results


# --- conditions ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    key: str
    value: str | None  # None: select (key$) or descend (a fact kind)
    select: bool = False
    descends: bool = False  # a fact kind: move from the interval to its facts of that kind


@dataclass(frozen=True, eq=False)  # compared by identity: one object per argument list, cached
class Path:
    """A node's conditions, read left to right, with what is known about them in advance."""

    steps: tuple[Step, ...]
    # whether walking it reaches a ``change`` descent (no selection returns first): on an action
    # that may not happen, that is unanswerable whatever the other conditions say
    reaches_change: bool
    nested: bool  # some value is a nested program, run per clip
    # ``key@value`` pairs when the path only tests the interval's own fields (the common
    # ``hoi@...`` reference), which a filter can check without walking
    fields_only: tuple[tuple[str, str], ...] | None = None

    @classmethod
    def of(cls, steps: tuple[Step, ...]) -> Path:
        reaches_change = False
        for step in steps:
            if step.select:
                break
            if step.descends and step.key == "change":
                reaches_change = True
                break
        nested = any(s.value is not None and s.value.startswith("<") for s in steps)
        plain = all(s.value is not None for s in steps) and not nested
        fields_only = tuple((s.key, s.value) for s in steps if s.value is not None)
        return cls(steps, reaches_change, nested, fields_only if plain else None)


@lru_cache(maxsize=65536)
def parse_condition(token: str) -> Step:
    # Generation evaluates the same few thousand tokens millions of times.
    if token.endswith("$"):
        return Step(token[:-1], None, select=True)
    if "@" in token:
        key, _, value = token.partition("@")
        return Step(key, unquote(value))
    return Step(token, None, descends=token in FACT_KINDS)


@lru_cache(maxsize=65536)
def _conditions(arguments: tuple[Argument, ...]) -> Path:
    steps: list[Step] = []
    for argument in arguments:
        tokens = argument if isinstance(argument, tuple) else (argument,)
        steps += [parse_condition(t) for t in tokens if t not in SCOPES and t != "others"]
    return Path.of(tuple(steps))


def conditions(arguments: Sequence[Argument], view: ClipView | None = None) -> Path:
    """The condition path of a node; nested programs in values are run on ``view``."""
    path = _conditions(tuple(arguments))
    if view is None or not path.nested:
        return path
    if path not in view.nested:
        try:
            view.nested[path] = Path.of(tuple(_resolved(step, view) for step in path.steps))
        except Unanswerable:
            view.nested[path] = None
    resolved = view.nested[path]
    if resolved is None:
        raise Unanswerable("a nested reference points to nothing")
    return resolved  # type: ignore[no-any-return]


def _resolved(step: Step, view: ClipView) -> Step:
    """``obj@<query(...)>``: the nested program's answer on this clip becomes the value."""
    text = step.value
    if text is None or not (text.startswith("<") and text.endswith(">")):
        return step
    value = nested_value(view, text)
    if value is None:
        raise Unanswerable(f"the reference {text} points to nothing")
    return Step(step.key, value)


def nested_value(view: ClipView, text: str) -> str | None:
    """The answer of the nested program ``<...>`` on this clip, or None if it has none."""
    if text not in view.nested:
        view.nested[text] = _run_nested(_nested_program(text[1:-1]), view)
    return view.nested[text]  # type: ignore[no-any-return]


@lru_cache(maxsize=1024)
def _nested_program(text: str) -> Program:
    return parse_program(text)


def _run_nested(program: Program, view: ClipView) -> str | None:
    try:
        last = run_nodes(program, view)[-1]
    except Unanswerable:
        return None
    return last if isinstance(last, str) else None


def walk(interval: Interval, path: Path) -> list[str] | list[Fact] | list[Interval]:
    """Follow a condition path on one interval; returns facts, intervals or selected values.

    The path starts at the interval; a fact kind moves to the interval's facts of that kind
    (only while the conditions so far hold); ``key@value`` keeps the items that have it; ``key$``
    ends the walk with the values of ``key``. An empty selection stays empty, so the walk stops
    as soon as nothing is left.
    """
    if path.reaches_change and interval.fields.get("executable") == ("unknown",):
        raise Unanswerable("whether this action happens is unknown")
    facts: list[Fact] | None = None  # None: still at the interval itself
    # Facts with an unknown value that the conditions so far may select (an unknown value may
    # be the one asked for). They count once the conditions name an attribute: a question about
    # the orange's shape has no answer if its shape before the cut is unknown. Questions over
    # every attribute ("which object changed?") leave them out, as the released generator
    # does: most are an unknown side of an attribute that did not change (docs/questions.md).
    partial: list[Fact] = []
    named = False  # an ``attribute@...`` condition has been applied to the facts
    for step in path.steps:
        key = step.key
        if step.select:
            if facts is None:
                return sorted(set(interval.fields.get(key, ())))
            if partial and named:
                raise Unanswerable("a selected fact has an unknown value")
            return sorted({v for f in facts if (v := f.fields.get(key)) is not None})
        if step.descends:
            facts = [f for f in interval.facts if f.kind == key]
            if interval.partial:
                partial = [f for f in interval.partial if f.kind == key]
        elif step.value is None:
            return []  # a bare word that is no fact kind matches nothing
        elif facts is None:
            if step.value not in interval.fields.get(key, ()):
                return []
            continue
        else:
            facts = [f for f in facts if f.fields.get(key) == step.value]
            if partial:
                partial = [f for f in partial if f.fields.get(key) in (step.value, UNKNOWN)]
                named = named or key == "attribute"
        if not facts and not partial:
            return []
    if partial and named and not facts:
        raise Unanswerable("only a fact with an unknown value may match")
    return [interval] if facts is None else facts


def matches(interval: Interval, path: Path) -> bool:
    return bool(walk(interval, path)) if path.steps else True


# --- argument helpers ------------------------------------------------------------------------
def _scope(view: ClipView, arguments: Sequence[Argument]) -> tuple[Interval, ...] | None:
    name = _scope_name(tuple(arguments))
    if name is None:
        return None
    return {
        "video": view.video,
        "all": view.everything,
        "future": view.future,
        "other_video": view.others,
        "everyone": tuple(sorted(view.video + view.others, key=lambda i: (i.start, i.end, i.id))),
    }[name]


@lru_cache(maxsize=65536)
def _scope_name(arguments: tuple[Argument, ...]) -> str | None:
    names = [a for a in arguments if isinstance(a, str) and a in SCOPES]
    return names[-1] if names else None


def _intervals(value: Value) -> tuple[Interval, ...]:
    if isinstance(value, Interval):
        return (value,)
    if isinstance(value, tuple):
        return value
    raise Unanswerable("expected intervals")


def _single(value: Value) -> Interval:
    if isinstance(value, Interval):
        return value
    raise Unanswerable("expected one interval")


def _literal(arguments: Sequence[Argument], allowed: tuple[str, ...]) -> str:
    for argument in arguments:
        if isinstance(argument, str) and argument in allowed:
            return argument
    raise Unanswerable(f"expected one of {allowed}")


def candidates(
    view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]
) -> tuple[Interval, ...]:
    """The intervals a selecting node starts from: its input, else its scope, else the video."""
    scope = _scope(view, arguments)
    if inputs:
        return _intervals(inputs[-1])
    return scope if scope is not None else view.video


@lru_cache(maxsize=65536)
def _names_others(arguments: tuple[Argument, ...]) -> bool:
    return any(a == "others" or (isinstance(a, tuple) and "others" in a) for a in arguments)


# --- the nine operators ----------------------------------------------------------------------
@operator("filter", Reads.SELECTS)
def _filter(view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]) -> Value:
    pool = candidates(view, arguments, inputs)
    if _names_others(tuple(arguments)):
        pool = tuple(
            o for o in view.others if any(o.start < i.end and i.start < o.end for i in pool)
        )
    path = conditions(arguments, view)
    if path.fields_only is not None and len(path.fields_only) == 1:
        key, value = path.fields_only[0]
        kept = tuple([i for i in pool if value in i.fields.get(key, ())])
    else:
        kept = tuple([i for i in pool if matches(i, path)])
    if not kept:
        raise Unanswerable("nothing matches")
    return kept


@operator("only", Reads.PASSES)
def _only(view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]) -> Value:
    pool = _intervals(inputs[0]) if inputs else view.video
    if len(pool) != 1:
        raise Unanswerable(f"{len(pool)} intervals where one was needed")
    return pool[0]


@operator("localize", Reads.ANCHOR)
def _localize(view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]) -> Value:
    relation = _literal(arguments, ("before", "until", "after", "while", "is"))
    anchor = _single(inputs[0])
    if relation == "is":
        return (anchor,)
    default = view.video + view.others if relation == "while" else view.video
    pool = _intervals(inputs[1]) if len(inputs) > 1 else (_scope(view, arguments) or default)
    if relation == "before":
        found = tuple(i for i in pool if i.end <= anchor.start)
    elif relation == "until":
        # before, and the anchor itself: never empty, so "did the person open the fridge
        # before taking the milk?" can be "no" where taking the milk comes first
        found = tuple(i for i in pool if i.end <= anchor.start or i.id == anchor.id)
    elif relation == "after":
        found = tuple(i for i in pool if i.start >= anchor.end)
    else:
        found = tuple(
            i for i in pool if i.id != anchor.id and i.start < anchor.end and anchor.start < i.end
        )
    if not anchor.future:
        # around a shown action, "before" and "after" stay inside the video; around a future
        # one ("will they open the fridge before they get the milk?") they reach the future
        found = tuple(i for i in found if not i.future)
    if not found:
        raise Unanswerable(f"nothing {relation} the anchor")
    return found


@operator("iterate_until", Reads.PASSES)
def _iterate_until(view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]) -> Value:
    direction = _literal(arguments, ("forward", "backward"))
    pool = sorted(candidates(view, arguments, inputs), key=lambda i: (i.start, i.end))
    if not pool:
        raise Unanswerable("no intervals")
    return pool[0] if direction == "forward" else pool[-1]


@operator("query", Reads.SUBJECT, answers="value")
def _query(view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]) -> Value:
    found = walk(_single(inputs[0]), conditions(arguments, view))
    values = {v for v in found if isinstance(v, str)}
    if len(values) != 1 or len(found) == 0:
        raise Unanswerable(f"{len(values)} values where one was needed")
    return values.pop()


@operator("verify", Reads.SUBJECT, answers="yes/no")
def _verify(view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]) -> Value:
    return "yes" if walk(_single(inputs[0]), conditions(arguments, view)) else "no"


@operator("pred", Reads.PASSES)
def _pred(view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]) -> Value:
    pool = _intervals(inputs[0]) if inputs else view.future
    found = tuple(i for i in pool if i.future) if inputs else pool
    if not found:
        raise Unanswerable("no future actions")
    return found


@operator("counterfactual", Reads.REMOVED)
def _counterfactual(
    view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]
) -> Value:
    if arguments and arguments[0] == ADD:
        return _added(view, arguments[1:], inputs)
    if arguments and arguments[0] == UNDO:
        return _undone(view, arguments[1:], inputs)
    pool = candidates(view, arguments, inputs)
    path = conditions(arguments, view)
    removed = [i for i in pool if matches(i, path)]
    if len(removed) != 1:
        raise Unanswerable("the counterfactual must remove exactly one action")
    verdict = view.structure.counterfactual([removed[0].id])
    # the later steps replayed are the person's (shown and next), or, where the removed action
    # is found among the other person's (``other_video``), theirs: "why did the other person
    # open the fridge?" is answered by what they went on to do
    whose = view.others if _scope_name(tuple(arguments)) == "other_video" else view.everything
    later = tuple(
        i.with_executability(str(verdict.get(i.id, "yes")))
        for i in whose
        if i.start >= removed[0].end
    )
    if not later:
        raise Unanswerable("nothing happens after the removed action")
    return later


ADD = "add"
UNDO = "undo"


def _added(view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]) -> Value:
    """``counterfactual(add, [added conditions], [target conditions], scope)``: the target (one
    action of the input) and everything after it, had the person also done the added action (one
    of the recording's own actions, done again) right before the target."""
    if len(arguments) < 2:
        raise Unanswerable("adding needs the added action and the action it comes before")
    added_path = conditions(arguments[:1], view)
    target_path = conditions(arguments[1:], view)
    target = [i for i in candidates(view, arguments[1:], inputs) if matches(i, target_path)]
    added = [i for i in view.everything if matches(i, added_path)]
    if len(target) != 1 or not added:
        raise Unanswerable("adding needs one target action and an action to add")
    if added[0].value("hoi") == target[0].value("hoi"):
        raise Unanswerable("adding the target action itself")
    verdict = view.structure.with_added(added[0].id, target[0].id)
    if verdict is None:
        raise Unanswerable("the added action could not have been done then, or no schemas")
    return tuple(
        i.with_executability(str(verdict[i.id])) for i in view.everything if i.id in verdict
    )


def _undone(view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]) -> Value:
    """``counterfactual(undo, obj@o, attribute@f, value@v, <action>)``: the action, had nobody
    made ``o``'s ``f`` ``v`` in the clip before it. "Would the person have been able to get the
    milk from the fridge, ignoring anything anyone did to the fridge in the video before then?":
    every change either person made
    that left the fridge open before the taking is removed (none where it was open from the
    first frame), and the replay of the domain's schemas says whether the taking could still be
    done. Which holds is what the starting states and the other person decide, not the words:
    the paper's removal of an action, asked of the route to a precondition."""
    anchor = _single(inputs[-1]) if inputs else None
    if anchor is None:
        raise Unanswerable("undoing needs the action it asks about")
    made = made_before(view, arguments, anchor)
    verdict = view.structure.counterfactual([i.id for i in made]) if made else {}
    undone = anchor.with_executability(str(verdict.get(anchor.id, "yes")))
    if not made:
        return undone
    # with every change to the value gone, a two-valued attribute stays at its other value:
    # the thing was not so at some moment before a removed change, and nothing makes it so again
    path = conditions(arguments, view)
    named = {s.key: s.value for s in path.steps if s.value is not None}
    values = ATTRIBUTE_VALUES.get(Attribute(named["attribute"]), ())
    if len(values) != 2:
        raise Unanswerable("undoing a change of an attribute with more than two values")
    other = values[1] if named["value"] == values[0] else values[0]
    return undone.finding(named["obj"], named["attribute"], other)


@operator("depend", Reads.INPUTS, answers="yes/no")
def _depend(view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]) -> Value:
    cause, effect = _single(inputs[0]), _single(inputs[1])
    if cause.id == effect.id:
        raise Unanswerable("an action against itself")
    link = view.structure.link(cause.id, effect.id)
    if link is Link.RELATED:
        raise Unanswerable("related links cannot be told apart from causes")
    return "yes" if link is Link.DEPENDENT else "no"


# --- beyond EgoTaskQA's nine ------------------------------------------------------------------
@operator("exist", Reads.FOUND, answers="yes/no")
def _exist(view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]) -> Value:
    """Whether any interval of the input (else the scope, else the video) meets the conditions:
    CLEVR's and AGQA's ``exist``. ``filter`` cannot say "no" (it finds nothing and the question
    has no answer), so "did the person open the fridge?" needs its own operator."""
    pool = candidates(view, arguments, inputs)
    if not pool:
        # "did the other person open the fridge?" where the other person does nothing in the
        # clip (or there is none): a "no" would answer a question about no one
        raise Unanswerable("no actions to look in")
    path = conditions(arguments, view)
    return "yes" if any(matches(i, path) for i in pool) else "no"


@operator("cause", Reads.CAUSE, answers="value")
def _cause(view: ClipView, arguments: Sequence[Argument], inputs: Sequence[Value]) -> Value:
    """``cause(obj@o, attribute@f, value@v, <action>)``: who left ``o``'s ``f`` as the action
    found it: the agent of the last change of it that ended before the action began (either
    person), or ``start`` where no change of it happens in the clip before the action. "Why was
    the fridge open when the person got the milk?" has answers a viewer tells apart (they opened
    it, the other person did, it was open from the first frame), and which one holds is what the
    world's starting states and the other person decide, not the words. With ``type@after`` and
    the clip's last action it asks the same of the state the clip ends in ("why was the drawer
    open at the end of the video?", ``_changes_until_end``)."""
    last = cause_of(view, arguments, _single(inputs[0]))
    if last is None:
        return "start"
    agent = last.value("agent")
    if len(agent) != 1:
        raise Unanswerable("a change by no one person")
    return agent[0]


AS_LEFT = "after"  # ``cause(..., type@after, ...)``: the state the clip leaves, not the one found


def cause_of(view: ClipView, arguments: Sequence[Argument], anchor: Interval) -> Interval | None:
    """The change ``cause`` answers with: the last one of the named object's attribute, by
    either person, that ended before ``anchor`` began and left the state ``anchor`` found; None
    where the clip shows no change of it before ``anchor``."""
    found, earlier = _changes_before(view, arguments, anchor)
    if not earlier:
        return None
    last = max(earlier, key=lambda i: (i.end, i.start))
    if _afters(view, arguments, last) != {found}:
        raise Unanswerable("the last change left another state than the action found")
    return last


def made_before(view: ClipView, arguments: Sequence[Argument], anchor: Interval) -> list[Interval]:
    """Every change, by either person in the clip, that left the named object's attribute at the
    value ``anchor`` found, ending before ``anchor`` began: what ``counterfactual(undo, ...)``
    removes. Empty where the thing was so from the first frame."""
    found, earlier = _changes_before(view, arguments, anchor)
    return [i for i in earlier if found in _afters(view, arguments, i)]


def _changes_before(
    view: ClipView, arguments: Sequence[Argument], anchor: Interval
) -> tuple[str, list[Interval]]:
    """The value the action finds the named object's attribute at (the one ``value@`` names),
    and the clip's changes of that attribute before the action, by either person."""
    if anchor.future:
        raise Unanswerable("the cause of a state at an unseen action")
    path = conditions(arguments, view)
    target = _target(path)
    if any(s.key == "type" and s.value == AS_LEFT for s in path.steps):
        return _changes_until_end(view, path, target, anchor)
    found = walk(anchor, conditions(("state", *target, "type@before"), view))
    values = {f.fields.get("value") for f in found if isinstance(f, Fact)}
    named = {s.value for s in path.steps if s.key == "value"}
    if len(values) != 1 or (named and named != values):
        raise Unanswerable("the action does not find the thing in the one known state named")
    change = conditions(("change", *target), view)
    earlier = [
        i
        for i in (*view.video, *view.others)
        if not i.future and i.id != anchor.id and i.start < anchor.start and walk(i, change)
    ]
    if any(i.end > anchor.start for i in earlier):
        raise Unanswerable("a change of it overlaps the action")
    return str(values.pop()), earlier


def _changes_until_end(
    view: ClipView, path: Path, target: tuple[str, str], anchor: Interval
) -> tuple[str, list[Interval]]:
    """``cause(..., type@after, <the clip's last action>)``: the value the clip leaves the named
    thing at, read from the last action's ``scene`` (the thing untouched by it and settled until
    the clip's last frame, so no one changes it after), and every change of it the clip shows,
    by either person. "Why was the drawer open at the end of the video?": the person opened it,
    or it was open from the first frame, as the episode's starting states decide."""
    found = walk(anchor, conditions((SCENE, *target), view))
    values = {f.fields.get("value") for f in found if isinstance(f, Fact)}
    named = {s.value for s in path.steps if s.key == "value"}
    if len(values) != 1 or (named and named != values):
        raise Unanswerable("the clip does not leave the thing settled in the one state named")
    if any(i.start >= anchor.start for i in view.video if i.id != anchor.id):
        raise Unanswerable("the state of the clip's end is read at its last action")
    change = conditions(("change", *target), view)
    earlier = [i for i in (*view.video, *view.others) if not i.future and walk(i, change)]
    return str(values.pop()), earlier


def _target(path: Path) -> tuple[str, str]:
    target = [f"{s.key}@{s.value}" for s in path.steps if s.key in ("obj", "attribute")]
    if len(target) != 2:
        raise Unanswerable("a route needs one object and one attribute")
    return target[0], target[1]


def _afters(view: ClipView, arguments: Sequence[Argument], change: Interval) -> set[str | None]:
    """The values a change of the named object's attribute left it at."""
    facts = walk(change, conditions(("change", *_target(conditions(arguments, view))), view))
    return {f.fields.get("after") for f in facts if isinstance(f, Fact)}


FUNCTIONS: frozenset[str] = frozenset(OPERATORS)
"""Every operator's name, from the registry: EgoTaskQA's nine, CLEVR's/AGQA's ``exist`` (a
yes/no "did it happen", which ``filter`` cannot answer "no" to) and ``cause`` (who left a thing
as an action found it). Validation accepts others
only when passed ``functions=``."""
ROOTS: tuple[str, ...] = tuple(name for name, op in OPERATORS.items() if op.answers)
"""The operators a program may end in (those that give an answer), in registration order."""
BINARY_ROOTS: tuple[str, ...] = tuple(n for n, op in OPERATORS.items() if op.answers == "yes/no")
