"""Exhaustive instantiation of a template on one clip, depth-first with pruning.

Parameters are bound one at a time in the order the program first needs them. As soon as a
node's placeholders are all bound it is executed; if it fails, every assignment extending the
current one fails too, so the branch is cut (CLEVR's generator does the same). A filter whose
placeholders are only partly bound is tried early with the unbound conditions left out: its
conditions only narrow, so if the looser filter keeps nothing, no completion can keep anything
("the cup's state before opening the fridge" dies as soon as the cup is chosen, if opening the
fridge says nothing about the cup). Two parameters of the same type never take the same value.
A caller that wants only some outcomes (question texts: wanted_texts.py) may cut branches
before any node runs as well (``Narrowing``).

A complete binding is *degenerate* when one of its filters could be left out without changing
the answer: "what did the person do to the cup after opening the fridge?" when the next action
after opening the fridge involves the cup anyway. Such questions are rejected, as CLEVR rejects
them, because a model can answer them without the part of the question the filter expresses. A
filter counts only where it chooses among several intervals; one that merely checks that its
single input carries some annotation (a guard) cannot be left out in any useful sense. In the
same spirit a moment is degenerate when the other moment gives the same answer: "the openness of
the fridge before the person gets milk" is no question about before, if getting milk leaves the
fridge as it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from taskqa.model import VIEWPOINT_ATTRIBUTES
from taskqa.programs.executor import evaluate
from taskqa.programs.graph import Argument, Node, Program
from taskqa.programs.operators import (
    SCOPES,
    Value,
    candidates,
    conditions,
    matches,
    nested_value,
)
from taskqa.programs.records import FACT_KINDS, ClipView
from taskqa.programs.syntax import parse_program, quote_value, substitute, token_placeholders
from taskqa.questions.template import ACTION_PARAMS, ParamType, Template

MOMENTS = ("before", "after")
VIEWPOINT_NAMES = frozenset(a.value for a in VIEWPOINT_ATTRIBUTES)


@dataclass(frozen=True)
class SampleSpace:
    """What each parameter type can take on one clip, in a fixed order."""

    actions: tuple[str, ...]
    other_actions: tuple[str, ...]
    future_actions: tuple[str, ...]
    objects: tuple[str, ...]
    attributes: tuple[str, ...]
    values: Mapping[str, tuple[str, ...]]
    object_attributes: Mapping[str, tuple[str, ...]]
    hidden: Mapping[str, tuple[str, str]]  # action text -> (first object hidden, first two hidden)
    verbs: tuple[str, ...] = ()  # verbs done to a thing: both people's shown and the next ones
    tasks: tuple[str, ...] = ()  # task labels of both people's shown and the person's next actions
    # the things the clip shows standing as they were, untouched by its actions, that other
    # actions of the recording use (a fridge nobody opens in the clip): named only by a
    # template whose ``objects`` is ``room``
    untouched: tuple[str, ...] = ()

    def options(
        self,
        kind: ParamType,
        bound: Mapping[str, str],
        attribute: str | None,
        owner: str | None,
        room: bool = False,
    ) -> tuple[str, ...]:
        """What parameter ``kind`` may take; ``owner`` is the object the template asks about;
        ``room``: objects include the ``untouched`` things."""
        if kind is ParamType.OBJECT and room:
            return (*self.objects, *self.untouched)
        if kind is ParamType.VALUE:
            return self.values.get(bound.get(attribute or "", ""), ())
        if kind is ParamType.ATTRIBUTE and owner is not None:
            # "is the fridge raw?" is no question: only the object's own attributes are asked
            return self.object_attributes.get(owner, ())
        return {
            ParamType.ACTION: self.actions,
            ParamType.OTHER_ACTION: self.other_actions,
            ParamType.FUTURE_ACTION: self.future_actions,
            ParamType.ANY_ACTION: _unique((*self.actions, *self.future_actions)),
            ParamType.CLIP_ACTION: _unique(
                (*self.actions, *self.other_actions, *self.future_actions)
            ),
            ParamType.OBJECT: self.objects,
            ParamType.ATTRIBUTE: self.attributes,
            ParamType.MOMENT: MOMENTS,
            ParamType.VERB: self.verbs,
            ParamType.TASK: self.tasks,
        }[kind]


def sample_space(view: ClipView) -> SampleSpace:
    objects = _unique(o for i in view.observed for o in i.value("obj"))
    values: dict[str, list[str]] = {}
    owned: dict[str, list[str]] = {}
    for interval in (*view.observed, *view.future):
        for fact in interval.facts:
            # like the released generator, visibility is never a free {f}: it is asked for by name
            if fact.kind == "state" and fact.fields["attribute"] not in VIEWPOINT_NAMES:
                values.setdefault(fact.fields["attribute"], []).append(fact.fields["value"])
                owned.setdefault(fact.fields["obj"], []).append(fact.fields["attribute"])
    untouched = _untouched(view, set(objects))
    for obj, attributes in untouched.items():
        owned.setdefault(obj, []).extend(attributes)
    return SampleSpace(
        actions=_unique(i.value("hoi")[0] for i in view.observed),
        other_actions=_unique(i.value("hoi")[0] for i in view.others),
        future_actions=_unique(i.value("hoi")[0] for i in view.future),
        objects=objects,
        attributes=tuple(sorted(values)),
        values={a: tuple(sorted(set(v))) for a, v in values.items()},
        object_attributes={o: tuple(sorted(set(a))) for o, a in owned.items()},
        hidden={
            i.value("hoi")[0]: (i.value("action1")[0], i.value("action")[0])
            for i in (*view.observed, *view.future, *view.others)
        },
        verbs=tuple(
            sorted(
                {
                    i.value("verb")[0]
                    for i in (*view.observed, *view.others, *view.future)
                    if i.value("patient")
                }
            )
        ),
        tasks=tuple(
            sorted(
                {t for i in (*view.observed, *view.others, *view.future) for t in i.value("task")}
            )
        ),
        untouched=tuple(sorted(untouched)),
    )


def _untouched(view: ClipView, objects: set[str]) -> dict[str, list[str]]:
    """The things no shown action of the clip involves that stand settled at its last action
    (its ``scene`` facts: records.py adds those other actions of the recording use), with the
    attributes they show; none where the clip shows no action."""
    if not view.observed:
        return {}
    last = max(view.observed, key=lambda i: (i.end, i.start, i.id))
    found: dict[str, list[str]] = {}
    for fact in last.facts:
        obj = fact.fields.get("obj")
        if fact.kind == "scene" and obj not in objects:
            found.setdefault(str(obj), []).append(str(fact.fields["attribute"]))
    return found


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


_OBJECT_REFERENCE = re.compile(r"obj@(<[^>]*>)")
_NESTED = re.compile(r"<([^>]*)>")

# Node results of one clip, keyed by function, unbound arguments, the values of the node's own
# placeholders and the identity of the inputs (themselves memoised results, so identities are
# stable while the memo lives). Templates that share a sub-program share its results.
Memo = dict[tuple[int, tuple[str, ...], tuple[int, ...]], Value | None]
# (function, arguments) -> a small int, so memo keys hash fast; shared by all templates
_NODE_KEYS: dict[tuple[str, tuple[Argument, ...]], int] = {}


@dataclass(frozen=True)
class NodePlan:
    """What running one node needs, worked out once per template."""

    node: Node
    key: int  # the node's identity in the memo: equal for equal (function, arguments)
    own: tuple[str, ...]  # its own placeholders
    variable: tuple[tuple[int, Binder], ...]  # the arguments with placeholders, by position

    def arguments(self, values: Mapping[str, str]) -> tuple[Argument, ...]:
        if not self.variable:
            return self.node.arguments
        arguments = list(self.node.arguments)
        for position, binder in self.variable:
            arguments[position] = _bind(binder, values)
        return tuple(arguments)


@dataclass(frozen=True)
class Instance:
    values: Mapping[str, str]
    answer: str


@dataclass(frozen=True)
class Narrowing:
    """A search cut down to the bindings that may still give one of some wanted outcomes.

    The outcomes are bits of a mask: ``possible`` are those the template may give at all, and
    ``fits(parameter, value)`` those a parameter's value leaves possible (-1: all). A branch
    whose values leave none is cut before any node runs. The caller (generate.py's question
    texts) must only leave out what cannot give a wanted outcome, so the search yields every
    instance it yields without narrowing that can, in the same order.
    """

    possible: int
    fits: Callable[[str, str], int]


class Instantiator:
    """Enumerates a template's complete, answerable parameter assignments on one clip."""

    def __init__(self, template: Template) -> None:
        self.template = template
        self.program: Program = template.parsed
        needs: list[set[str]] = []
        for node in self.program.nodes:
            own = {p for a in node.arguments for t in _tokens(a) for p in token_placeholders(t)}
            needs.append(own.union(*(needs[i] for i in node.inputs)))
        self.needs = needs
        self.own = [
            tuple(
                sorted({p for a in n.arguments for t in _tokens(a) for p in token_placeholders(t)})
            )
            for n in self.program.nodes
        ]
        self.plans = [_plan(node) for node in self.program.nodes]
        self.text_binder = _compile(self.program.text)
        self.order = self._parameter_order()
        self.ready_at = self._readiness()
        self.loose_at = self._loose_filters()
        self.action_params = frozenset(
            n for n, kind in template.params.items() if kind in ACTION_PARAMS
        )
        self.attribute = self._only_param(ParamType.ATTRIBUTE)
        self.object = self._only_param(ParamType.OBJECT)
        self.room = template.objects == "room"
        # an object named by a nested program ("the first object whose status the person changed")
        references = set(_OBJECT_REFERENCE.findall(template.program))
        self.object_reference = references.pop() if len(references) == 1 else None
        # reasoning steps: the program's nodes plus those of the programs nested in its keys
        nested = _NESTED.findall(template.program)
        self.steps = self.program.size + sum(parse_program(text).size for text in nested)
        self.moments = [n for n, kind in template.params.items() if kind is ParamType.MOMENT]
        self.optional_filters = [
            (index, self._downstream(index)) for index in self._selecting_filters()
        ]
        self.presupposition = (
            Instantiator(
                template.model_copy(update={"program": template.presupposes, "presupposes": None})
            )
            if template.presupposes
            else None
        )
        # the depth at which the presupposition's parameters are all bound: it is checked there
        self.presupposed_at = -1
        if self.presupposition is not None:
            needed = set(self.presupposition.program.placeholders())
            self.presupposed_at = next(
                k for k in range(len(self.order) + 1) if needed <= set(self.order[:k])
            )
        self.degenerate = 0  # complete bindings rejected as degenerate, for the summary
        self.repeated = 0  # ... that tell a repeated action apart by a state (_tells_repeats_apart)
        self.unpresupposed = 0  # complete bindings whose presupposition does not hold
        self.fixed_skipped = 0  # attribute values left out as never changing (wellposed.FIXED)
        self.fixed: frozenset[str] = frozenset()

    def _loose_filters(self) -> list[list[NodePlan]]:
        """``loose_at[k]``: filters to try, without their unbound conditions, at depth ``k``."""
        loose_at: list[list[NodePlan]] = [[] for _ in range(len(self.order) + 1)]
        for k in range(1, len(self.order) + 1):
            bound = set(self.order[:k])
            for node, own, need in zip(self.program.nodes, self.own, self.needs, strict=True):
                inputs_ready = all(self.needs[i] <= bound for i in node.inputs)
                partly = self.order[k - 1] in own and not set(own) <= bound
                if node.function == "filter" and inputs_ready and partly and need - bound:
                    loose_at[k].append(_loosened(node, bound))
        return loose_at

    def _selecting_filters(self) -> list[int]:
        """Filters that narrow their input by some condition (not ``others``, not a bare scope)."""
        found = []
        for index, node in enumerate(self.program.nodes):
            tokens = [t for a in node.arguments for t in _tokens(a)]
            narrows = any(t not in SCOPES for t in tokens) and "others" not in tokens
            if node.function == "filter" and narrows and not self._reads_purpose(node):
                found.append(index)
        return found

    def _reads_purpose(self, node: Node) -> bool:
        """Whether ``node`` is the step a why-question's purpose is read from (a template
        answered ``to``, "why did the person open the fridge?" -> "to get the milk"): the later
        steps the action made possible. That the purpose is often the very next step is how
        purposes show on screen, not a word the question could do without, so leaving the filter
        out is no test of it (the degenerate rule, module docstring)."""
        return self.template.answer_form == "to" and self._picks_by_executability(node)

    def _picks_by_executability(self, node: Node) -> bool:
        """Whether ``node`` keeps the steps that would (not) be possible from a counterfactual's
        later steps: a choice even when one step is left ("if they had not got the cup, what
        could they not have done?" where drinking is their one later step is "what did they do
        next"), where a filter naming an action over one step only names it."""
        tokens = [t for a in node.arguments for t in _tokens(a)]
        return any(t.startswith("executable@") for t in tokens) and any(
            self.program.nodes[i].function == "counterfactual" for i in node.inputs
        )

    def _downstream(self, index: int) -> list[int]:
        """The nodes whose result depends on node ``index``, in execution order."""
        affected = {index}
        for later in range(index + 1, len(self.program.nodes)):
            if affected.intersection(self.program.nodes[later].inputs):
                affected.add(later)
        return sorted(affected - {index})

    def _only_param(self, kind: ParamType) -> str | None:
        names = [n for n, k in self.template.params.items() if k is kind]
        return names[0] if len(names) == 1 else None

    def _parameter_order(self) -> list[str]:
        order: list[str] = []
        for need in self.needs:
            for name in sorted(need - set(order), key=self._rank):
                order.append(name)
        return order

    def _readiness(self) -> list[list[int]]:
        """``ready_at[k]``: the nodes that can run once the first ``k`` parameters are bound."""
        ready_at: list[list[int]] = []
        done: set[int] = set()
        for k in range(len(self.order) + 1):
            bound = set(self.order[:k])
            now = [i for i, need in enumerate(self.needs) if i not in done and need <= bound]
            done.update(now)
            ready_at.append(now)
        return ready_at

    def _rank(self, name: str) -> tuple[int, str]:
        # Objects before attributes before values: each narrows what the next may take.
        kind = self.template.params[name]
        return (
            {ParamType.OBJECT: 0, ParamType.ATTRIBUTE: 2, ParamType.VALUE: 3}.get(kind, 1),
            name,
        )

    def instances(
        self,
        view: ClipView,
        space: SampleSpace,
        memo: Memo | None = None,
        fixed: frozenset[str] = frozenset(),
        narrowing: Narrowing | None = None,
    ) -> Iterator[Instance]:
        """Every answerable binding; ``memo`` shares node results between templates of a clip.

        ``fixed`` are attributes the world never changes: they are never an attribute parameter.
        ``narrowing`` leaves out the bindings it says cannot give a wanted outcome.
        """
        self.fixed = fixed
        results: list[Value | None] = [None] * len(self.program.nodes)
        memo = {} if memo is None else memo
        owner = None
        if self.object_reference is not None:
            owner = nested_value(view, self.object_reference)
            if owner is None:
                return  # the reference points to nothing in this clip
        possible = -1 if narrowing is None else narrowing.possible  # -1: every bit set
        if not possible:
            return
        if self._run(self.ready_at[0], view, {}, results, memo) and self._presupposed(
            0, view, {}, memo
        ):
            yield from self._search(view, space, {}, results, 0, memo, owner, narrowing, possible)

    def _search(
        self,
        view: ClipView,
        space: SampleSpace,
        bound: dict[str, str],
        results: list[Value | None],
        depth: int,
        memo: Memo,
        owner: str | None,
        narrowing: Narrowing | None,
        possible: int,
    ) -> Iterator[Instance]:
        if depth == len(self.order):
            final = results[-1]
            if not isinstance(final, str):
                return
            if self._is_degenerate(view, bound, results, memo):
                self.degenerate += 1
            elif self._tells_repeats_apart(view, bound, results):
                self.repeated += 1
            else:
                yield Instance(dict(bound), final)
            return
        name = self.order[depth]
        kind = self.template.params[name]
        taken = {v for n, v in bound.items() if self.template.params[n] is kind}
        if self.object is not None:
            owner = bound.get(self.object)
        for value in space.options(kind, bound, self.attribute, owner, self.room):
            if value in taken:
                continue
            if kind is ParamType.ATTRIBUTE and value in self.fixed:
                self.fixed_skipped += 1
                continue
            left = possible
            if narrowing is not None:
                left &= narrowing.fits(name, value)
                if not left:
                    continue
            bound[name] = value
            trial = list(results)
            if (
                self._run(self.ready_at[depth + 1], view, bound, trial, memo)
                and self._hold(self.loose_at[depth + 1], view, bound, trial, memo)
                and self._presupposed(depth + 1, view, bound, memo)
            ):
                yield from self._search(
                    view, space, bound, trial, depth + 1, memo, owner, narrowing, left
                )
            del bound[name]

    def _presupposed(
        self, depth: int, view: ClipView, bound: Mapping[str, str], memo: Memo
    ) -> bool:
        if depth != self.presupposed_at or self.presupposition is None:
            return True
        if self.presupposition.answer_for(view, bound, memo) == "yes":
            return True
        self.unpresupposed += 1
        return False

    def _hold(
        self,
        plans: list[NodePlan],
        view: ClipView,
        bound: Mapping[str, str],
        results: list[Value | None],
        memo: Memo,
    ) -> bool:
        """Whether every loosened filter still keeps something."""
        return all(_result(plan, view, bound, results, memo) is not None for plan in plans)

    def _run(
        self,
        nodes: list[int],
        view: ClipView,
        bound: Mapping[str, str],
        results: list[Value | None],
        memo: Memo,
    ) -> bool:
        """Execute ``nodes`` (now fully bound); False as soon as one of them fails."""
        plans = self.plans
        for index in nodes:
            result = _result(plans[index], view, bound, results, memo)
            if result is None:
                return False
            results[index] = result
        return True

    def _is_degenerate(
        self,
        view: ClipView,
        bound: Mapping[str, str],
        results: list[Value | None],
        memo: Memo,
    ) -> bool:
        for name in self.moments:
            other = {**bound, name: MOMENTS[1 - MOMENTS.index(bound[name])]}
            if self.answer_for(view, other, memo) == results[-1]:
                return True
        for index, downstream in self.optional_filters:
            node = self.program.nodes[index]
            inputs = [r for r in (results[i] for i in node.inputs) if r is not None]
            arguments = self.plans[index].arguments(bound)
            pool = candidates(view, arguments, inputs)
            if len(pool) < 2 and not self._picks_by_executability(node):
                continue  # a guard: nothing to choose among
            trial = list(results)
            trial[index] = pool
            if self._run(downstream, view, bound, trial, memo) and trial[-1] == results[-1]:
                return True
        return False

    def _tells_repeats_apart(
        self, view: ClipView, bound: Mapping[str, str], results: list[Value | None]
    ) -> bool:
        """Whether a filter on facts picks one of several actions the words name alike: "was
        the soup can opened after the person closed the cupboard?" where they closed it twice
        and the program keeps the close during which the can was still shut. The words refer to
        both, so a viewer cannot tell which one is meant (a strict review from the frames)."""
        for index, node in enumerate(self.program.nodes):
            if node.function != "filter":
                continue
            arguments = self.plans[index].arguments(bound)
            tokens = [t for a in arguments for t in _tokens(a)]
            if not any(t in FACT_KINDS for t in tokens):
                continue
            said = tuple(t for t in tokens if t.partition("@")[0] in _ACTION_WORDS)
            inputs = [r for r in (results[i] for i in node.inputs) if r is not None]
            if said:  # words and facts in one filter: how many actions the words alone name
                pool = candidates(view, arguments, inputs)
                named = [i for i in pool if matches(i, conditions(said, view))]
            elif node.inputs and self._names_action(node.inputs[-1]) and inputs:
                last = inputs[-1]
                named = list(last) if isinstance(last, tuple) else []
            else:
                continue
            kept = results[index]
            count = len(kept) if isinstance(kept, tuple) else 1
            if len(named) > 1 and count < len(named):
                return True
        return False

    def _names_action(self, index: int) -> bool:
        """Whether node ``index`` is a filter that selects actions by their words."""
        node = self.program.nodes[index]
        tokens = [t for a in node.arguments for t in _tokens(a)]
        return node.function == "filter" and any(
            t.partition("@")[0] in _ACTION_WORDS for t in tokens
        )

    def answer_for(self, view: ClipView, values: Mapping[str, str], memo: Memo) -> str | None:
        """The answer of one complete binding, or None."""
        results: list[Value | None] = [None] * len(self.program.nodes)
        if not self._run(list(range(len(self.program.nodes))), view, values, results, memo):
            return None
        final = results[-1]
        return final if isinstance(final, str) else None

    def filled_text(self, values: Mapping[str, str]) -> str:
        """The program's one-line form with ``values`` filled in (what ``Program.fill`` gives)."""
        return _fill(self.text_binder, values)

    def filled_graph(self, values: Mapping[str, str]) -> list[dict[str, Any]]:
        return [
            {
                "function": plan.node.function,
                "inputs": list(plan.node.inputs),
                "arguments": [_as_json(a) for a in plan.arguments(values)],
            }
            for plan in self.plans
        ]


def _result(
    plan: NodePlan,
    view: ClipView,
    bound: Mapping[str, str],
    results: list[Value | None],
    memo: Memo,
) -> Value | None:
    """A node's result, from the memo when the same node ran on the same inputs and values."""
    # post-order: a node's inputs need a subset of its placeholders, so they ran first
    inputs = [results[i] for i in plan.node.inputs]
    key = (plan.key, tuple([bound[name] for name in plan.own]), tuple([id(i) for i in inputs]))
    if key not in memo:
        memo[key] = evaluate(plan.node, plan.arguments(bound), inputs, view)  # type: ignore[arg-type]
    return memo[key]


def _loosened(node: Node, bound: set[str]) -> NodePlan:
    """The filter without the conditions that name a parameter not yet in ``bound``."""

    def known(token: str) -> bool:
        return set(token_placeholders(token)) <= bound

    arguments: list[Argument] = []
    for argument in node.arguments:
        if isinstance(argument, tuple):
            kept = tuple(t for t in argument if known(t))
            if kept:
                arguments.append(kept)
        elif known(argument):
            arguments.append(argument)
    return _plan(Node(function=node.function, inputs=node.inputs, arguments=tuple(arguments)))


def _plan(node: Node) -> NodePlan:
    binders = [_binder(a) for a in node.arguments]
    own = sorted({p for a in node.arguments for t in _tokens(a) for p in token_placeholders(t)})
    return NodePlan(
        node=node,
        key=_NODE_KEYS.setdefault((node.function, node.arguments), len(_NODE_KEYS)),
        own=tuple(own),
        variable=tuple(
            (position, binder)
            for position, (argument, binder) in enumerate(zip(node.arguments, binders, strict=True))
            if any(token_placeholders(t) for t in _tokens(argument))
        ),
    )


# fields naming an action by its words (``hoi``; with objects hidden, ``action1``, ``action``)
_ACTION_WORDS = frozenset({"hoi", "action", "action1"})


def _tokens(argument: Argument) -> tuple[str, ...]:
    return argument if isinstance(argument, tuple) else (argument,)


# A compiled token alternates literal text and placeholder names: ("filter(hoi@", "a", ", video)").
Compiled = tuple[str, ...]
Binder = Compiled | tuple[Compiled, ...]
_MARK = "\x00"


def _compile(token: str) -> Compiled:
    return tuple(substitute(token, lambda name: f"{_MARK}{name}{_MARK}").split(_MARK))


def _binder(argument: Argument) -> Binder:
    if isinstance(argument, tuple):
        return tuple(_compile(t) for t in argument)
    return _compile(argument)


def _fill(pieces: Compiled, values: Mapping[str, str]) -> str:
    count = len(pieces)
    if count == 1:
        return pieces[0]
    if count == 3:  # one placeholder, the common case
        return pieces[0] + _quoted(values[pieces[1]]) + pieces[2]
    return "".join(
        piece if index % 2 == 0 else _quoted(values[piece]) for index, piece in enumerate(pieces)
    )


def _bind(binder: Binder, values: Mapping[str, str]) -> Argument:
    if binder and isinstance(binder[0], tuple):
        return tuple(_fill(pieces, values) for pieces in binder)  # type: ignore[arg-type]
    return _fill(binder, values)  # type: ignore[arg-type]


def _as_json(argument: Argument) -> str | list[str]:
    return list(argument) if isinstance(argument, tuple) else argument


@lru_cache(maxsize=65536)
def _quoted(value: str) -> str:
    return quote_value(value)
