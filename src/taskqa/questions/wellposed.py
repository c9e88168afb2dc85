"""Well-posedness rules: questions whose answer the text and the domain's schemas already give.

Each rule has a name, which is the reason a rejected question is counted under in the
generation summary's ``rejected`` block (see docs/questions.md):

- ``fixed attribute``: an attribute the domain never changes (openability, edibility, ...) is
  never a parameter: asked as a change it is always "no", asked as a state it is the object's
  kind. Checked in the search (``Instantiator``), so it counts cut branches.
- ``answer from action schema``: the question names an action and asks a state or change of one
  of its objects that the action's schema pins: "what was the openness of the fridge after the
  person opened it" (the effect), "what did the cleanliness of the pan change from when the
  person washed it" (the precondition), "which status of the fridge changed when ..." (the only
  attribute the schema writes), "did the fridge change when the person got milk from it" (the
  schema writes nothing on the fridge).
- ``answer named by question``: the answer is an action and only one verb of the domain can make
  the change the question names on an object it names: "which action made the openness of the
  fridge open" -> "open fridge". Said of "the first object whose status the person changed", the
  verb is known but not the object, which the video must show, so such questions stay.
- ``circular why``: a "why" answered by an action that changes again what the question's
  action (or change) changed: "why did the person change the poweredness of the microwave?" ->
  "turn-off microwave".
- ``dependency from schemas``: a dependency or counterfactual question naming both actions,
  where the schemas say the first sets up what the second needs on an object both name
  ("if the person had not opened the drawer, could they close the drawer?").

The rules read the template's program once (``Shape``) and the instance's values; they never
look at the answer except for ``circular why``, whose question is fine and only its answer
circular. A corpus with no domain gets only the ``fixed attribute`` rule, over EgoTaskQA's
affordances.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache

from taskqa.programs import parse_program
from taskqa.programs.graph import Node, Program
from taskqa.questions.realize import parse_action_text
from taskqa.questions.schemas import ActionParts, SchemaKnowledge, affordances

FIXED = "fixed attribute"
FROM_SCHEMA = "answer from action schema"
NAMED = "answer named by question"
CIRCULAR = "circular why"
DEPENDENCY = "dependency from schemas"
RULES = (FIXED, FROM_SCHEMA, NAMED, CIRCULAR, DEPENDENCY)

_PARAM = re.compile(r"^\{([a-z]+[0-9]*)\}$")
_HOI = re.compile(r"hoi@\{([a-z]+[0-9]*)\}")


@dataclass(frozen=True)
class Shape:
    """What a template's program asks, in the terms the rules need (tokens as written)."""

    named: str | None = None  # action param whose own interval the root reads facts from
    kind: str | None = None  # state / change
    obj: str | None = None  # obj@ token of the root: {o}, <nested program> or a name
    attribute: str | None = None
    moment: str | None = None  # type@ token
    value_key: str | None = None  # value / before / after (a verify's condition)
    value: str | None = None  # the token of that condition: {fv}
    selects: str | None = None  # value$, before$, after$, attribute$ (a query's key)
    answer_change: tuple[str | None, str | None, str | None] | None = None  # (obj, attr, after)
    chained: str | None = None  # action param whose change the answer's change came before
    why_action: str | None = None  # why-questions: the action asked about
    why_change: tuple[str | None, str | None] | None = None  # or the change (obj, attr)
    link: tuple[str, str] | None = None  # (cause, effect) action params of a dependency
    changed: bool = False  # the root reads an interval kept only where the change happened
    after_guard: bool = False  # a guard keeps the interval only where the asked state held after


def _conditions(node: Node) -> dict[str, str]:
    found: dict[str, str] = {}
    for argument in node.arguments:
        for token in argument if isinstance(argument, tuple) else (argument,):
            key, sep, value = token.partition("@")
            if sep:
                found.setdefault(key, value)
            elif token.endswith("$"):
                found.setdefault("$", token)
    return found


def _first(node: Node) -> str:
    argument = node.arguments[0] if node.arguments else ""
    return argument if isinstance(argument, str) else ""


def _named_action(program: Program, index: int) -> str | None:
    """The action param an interval chain picks directly (``only(filter(hoi@{a}, video))``)."""
    return _chain(program, index)[0]


def _chain(program: Program, index: int) -> tuple[str | None, bool, bool]:
    """The action param a chain picks directly, whether a guard on it needs a change, and
    whether one needs a state after the action."""
    node = program.nodes[index]
    changed = after = False
    while True:
        if node.function == "only" and node.inputs:
            node = program.nodes[node.inputs[0]]
        elif node.function == "filter" and _first(node) in ("state", "change") and node.inputs:
            changed = changed or _first(node) == "change"
            after = after or _conditions(node).get("type") == "after"
            node = program.nodes[node.inputs[0]]  # a guard on the same interval
        elif node.function == "filter" and not node.inputs:
            match = _PARAM.match(_conditions(node).get("hoi", ""))
            return (match.group(1) if match else None), changed, after
        else:
            return None, changed, after


@lru_cache(maxsize=4096)
def shape_of(program_text: str) -> Shape:
    program = parse_program(program_text)
    nodes = program.nodes
    root = nodes[-1]
    found = _conditions(root)
    kind = _first(root) if _first(root) in ("state", "change") else None
    shape = Shape()
    if kind and root.inputs:
        value_key = next((k for k in ("value", "before", "after") if k in found), None)
        named, changed, after_guard = _chain(program, root.inputs[0])
        shape = Shape(
            named=named,
            changed=changed,
            after_guard=after_guard,
            kind=kind,
            obj=found.get("obj"),
            attribute=found.get("attribute"),
            moment=found.get("type"),
            value_key=value_key,
            value=found.get(value_key) if value_key else None,
            selects=found.get("$"),
        )
    elif found.get("$") == "hoi$" and root.inputs:
        shape = _action_answer(program, root.inputs[0])
    if root.function == "depend" and len(root.inputs) == 2:
        cause = _named_action(program, root.inputs[0])
        effects = {p for p in _params_below(program, root.inputs[1]) if p != cause}
        if cause and len(effects) == 1:
            shape = Shape(link=(cause, effects.pop()))
    elif shape.why_action is None and shape.why_change is None:
        cause = _counterfactual_action(program)
        effects = set(_HOI.findall(program_text)) - {cause}
        if cause and len(effects) == 1:
            shape = replace(shape, link=(cause, effects.pop()))
    return shape


def _params_below(program: Program, index: int) -> set[str]:
    node = program.nodes[index]
    found = {m for a in node.arguments for m in _HOI.findall(str(a))}
    for child in node.inputs:
        found |= _params_below(program, child)
    return found


def _counterfactual_action(program: Program) -> str | None:
    for node in program.nodes:
        if node.function == "counterfactual" and node.arguments[:1] != ("add",):
            match = _PARAM.match(_conditions(node).get("hoi", ""))
            if match:
                return match.group(1)
    return None


def _action_answer(program: Program, index: int) -> Shape:
    """The shape of a ``query(hoi$, ...)`` program: which change picks the answer."""
    node = program.nodes[index]
    if node.function == "only" and node.inputs:
        picked = program.nodes[node.inputs[0]]
        if picked.function == "filter" and _first(picked) == "change" and not picked.inputs:
            found = _conditions(picked)
            return Shape(
                answer_change=(found.get("obj"), found.get("attribute"), found.get("after"))
            )
        return Shape()
    if node.function != "iterate_until" or not node.inputs:
        return Shape()
    inner = program.nodes[node.inputs[0]]
    if inner.function == "filter" and _first(inner) == "executable@no" and inner.inputs:
        counterfactual = program.nodes[inner.inputs[0]]
        if counterfactual.function == "counterfactual":
            found = _conditions(counterfactual)
            match = _PARAM.match(found.get("hoi", ""))
            if match:
                return Shape(why_action=match.group(1))
            if _first(counterfactual) == "change":
                return Shape(why_change=(found.get("obj"), found.get("attribute")))
        return Shape()
    if inner.function == "localize" and inner.arguments == ("before",) and len(inner.inputs) == 2:
        anchor, picked = (program.nodes[i] for i in inner.inputs)
        if picked.function == "filter" and _first(picked) == "change":
            found = _conditions(picked)
            chained = None
            if "after" not in found and anchor.function == "only" and anchor.inputs:
                later = program.nodes[anchor.inputs[0]]
                same = _conditions(later)
                if _first(later) == "change" and same.get("obj") == found.get("obj"):
                    chained = _named_action(program, inner.inputs[0])
            return Shape(
                answer_change=(found.get("obj"), found.get("attribute"), found.get("after")),
                chained=chained,
            )
    return Shape()


def _resolve(token: str | None, values: Mapping[str, str], owner: str | None) -> str | None:
    if token is None:
        return None
    if token.startswith("<"):
        return owner  # an object said by reference: the object it points to in this clip
    match = _PARAM.match(token)
    if match:
        return values.get(match.group(1))
    return token.strip("'")


def parts(text: str) -> ActionParts:
    action = parse_action_text(text)
    slots: dict[str, tuple[str, ...]] = {}
    for slot, _, names in action.parts:
        slots[slot] = slots.get(slot, ()) + names
    return ActionParts(action.verb, slots)


@dataclass
class Rules:
    """The rules for one corpus: its domain's schemas (if any) and fixed attributes."""

    knowledge: SchemaKnowledge | None = None

    @property
    def fixed(self) -> frozenset[str]:
        return self.knowledge.fixed if self.knowledge else affordances()

    def violation(
        self,
        program_text: str,
        values: Mapping[str, str],
        answer: str,
        owner: str | None,
        owned: Mapping[str, tuple[str, ...]],
    ) -> str | None:
        """The name of the first rule the instance breaks, or None.

        ``owner`` is the object an object reference points to; ``owned`` each object's
        annotated attributes in the clip.
        """
        knowledge = self.knowledge
        if knowledge is None:
            return None
        shape = shape_of(program_text)
        if shape.kind and shape.named and self._from_schema(shape, values, owner, owned):
            return FROM_SCHEMA
        if shape.kind == "change" and not shape.named and shape.selects in ("before$", "after$"):
            # "what did the {f} of {o} have to be before it changed": one value is possible
            attribute = _resolve(shape.attribute, values, owner)
            side = shape.selects.rstrip("$")
            if attribute and len(knowledge.possible(attribute, side)) == 1:
                return FROM_SCHEMA
        if shape.answer_change and self._named(shape, values, owner):
            return NAMED
        if (shape.why_action or shape.why_change) and self._circular(shape, values, answer, owner):
            return CIRCULAR
        if shape.link:
            cause, effect = (values.get(p) for p in shape.link)
            if cause and effect and knowledge.sets_up(parts(cause), parts(effect)):
                return DEPENDENCY
        return None

    def predicted(
        self, program_text: str, values: Mapping[str, str], owner: str | None
    ) -> str | None:
        """The value ``answer from action schema`` predicts for a state or change question."""
        return self._predict(shape_of(program_text), values, owner)

    def _predict(self, shape: Shape, values: Mapping[str, str], owner: str | None) -> str | None:
        knowledge = self.knowledge
        if knowledge is None or not (shape.kind and shape.named):
            return None
        site = self._site(shape, values, owner)
        if site is None:
            return None
        verb, slot, attribute = site
        if attribute is None:
            return None
        if shape.kind == "state":
            moment = _resolve(shape.moment, values, owner)
            facts = knowledge.verbs.get(verb)
            if (
                shape.after_guard
                and moment == "before"
                and facts
                and (slot, attribute) not in facts.writes
            ):
                # "if the person had not got the tomato, would it have been whole?": a state
                # before the action, asked where it held after, is that same state unless the
                # action can write it (washing a tomato that may have been clean already)
                return _resolve(shape.value, values, owner)
            compared = _PARAM.match(shape.moment or "") is not None
            return knowledge.state(verb, slot, attribute, moment or "", compared=compared)
        side = (shape.selects or "").rstrip("$") or shape.value_key or ""
        return (
            knowledge.change(verb, slot, attribute, side) if side in ("before", "after") else None
        )

    def _site(
        self, shape: Shape, values: Mapping[str, str], owner: str | None
    ) -> tuple[str, str, str | None] | None:
        action = values.get(shape.named or "")
        obj = _resolve(shape.obj, values, owner)
        if action is None or obj is None:
            return None
        said = parse_action_text(action)
        slot = said.slot_of(obj)
        if slot is None:
            return None
        return said.verb, slot, _resolve(shape.attribute, values, owner)

    def _from_schema(
        self,
        shape: Shape,
        values: Mapping[str, str],
        owner: str | None,
        owned: Mapping[str, tuple[str, ...]],
    ) -> bool:
        knowledge = self.knowledge
        assert knowledge is not None
        site = self._site(shape, values, owner)
        if site is None:
            return False
        verb, slot, attribute = site
        if attribute is not None and shape.kind == "change" and shape.value_key:
            return self._verify_change(shape, values, verb, slot, attribute)
        if attribute is not None:
            return self._predict(shape, values, owner) is not None
        obj = _resolve(shape.obj, values, owner) or ""
        changeable = knowledge.changed_attributes(verb, slot, owned.get(obj, ()))
        if shape.selects == "attribute$":
            return len(changeable) == 1  # "which status changed": the only one it can change
        if shape.kind == "change" and shape.selects is None:  # "did {o} change?"
            return not changeable or any(
                knowledge.surely_changes(verb, slot, a) for a in changeable
            )
        return False

    def _verify_change(
        self, shape: Shape, values: Mapping[str, str], verb: str, slot: str, attribute: str
    ) -> bool:
        """Whether "did the {f} of {o} become/start from {fv} when ..." is settled by the schema."""
        knowledge = self.knowledge
        assert knowledge is not None and shape.value_key is not None
        facts = knowledge.verbs.get(verb)
        if facts is None:
            return False
        if (slot, attribute) not in facts.writes:
            return True  # the action never changes it: "no"
        asked = _resolve(shape.value, values, None)
        pinned = knowledge.change(verb, slot, attribute, shape.value_key)
        if pinned is None:
            return False
        if pinned != asked:
            return True  # a change, if any, is to (from) another value: "no"
        return shape.changed or knowledge.surely_changes(verb, slot, attribute)

    def _named(self, shape: Shape, values: Mapping[str, str], owner: str | None) -> bool:
        knowledge = self.knowledge
        assert knowledge is not None and shape.answer_change is not None
        obj_token, attribute_token, after_token = shape.answer_change
        if obj_token is None or obj_token.startswith("<"):
            return False  # the object is not named: which one it was, only the video shows
        attribute = _resolve(attribute_token, values, owner)
        if attribute is None:
            return False
        after = _resolve(after_token, values, owner)
        if after is None and shape.chained:
            obj = _resolve(obj_token, values, owner)
            action = values.get(shape.chained)
            if obj and action:
                said = parse_action_text(action)
                slot = said.slot_of(obj)
                if slot:
                    after = knowledge.change(said.verb, slot, attribute, "before")
        return len(knowledge.verbs_setting(attribute, after)) == 1

    def _circular(
        self, shape: Shape, values: Mapping[str, str], answer: str, owner: str | None
    ) -> bool:
        knowledge = self.knowledge
        assert knowledge is not None
        reply = parts(answer)
        facts = knowledge.verbs.get(reply.verb)
        if facts is None:
            return False
        rewritten = {
            (obj, attribute)
            for (slot, attribute) in facts.writes
            for obj in reply.slots.get(slot, ())
        }
        if shape.why_change:
            obj = _resolve(shape.why_change[0], values, owner)
            attribute = _resolve(shape.why_change[1], values, owner)
            return (obj, attribute) in rewritten
        action = values.get(shape.why_action or "")
        if not action:
            return False
        asked = parts(action)
        done = knowledge.verbs.get(asked.verb)
        if done is None:
            return False
        changed = {
            (obj, attribute)
            for (slot, attribute) in done.writes
            for obj in asked.slots.get(slot, ())
        }
        return bool(changed & rewritten)
