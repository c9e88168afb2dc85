"""How one earlier action relates to a later one (EgoTaskQA supplementary, Algorithm 1).

This reads the before/after annotations, and is what real recordings (EgoTaskQA/LEMMA,
CaptainCook4D) get; simulated recordings whose domain is known get the domain's preconditions
instead (``taskqa.causal.preconditions``; ``DependencyRules.schemas``).

For every object both actions involve and every attribute annotated on it in both:

- *dependent*: the earlier action changed the attribute, left it as the later action found it,
  and the later action changed it again (``b1 != a1``, ``a1 == b2``, ``b2 != a2``);
- *related*: the earlier action changed it and left it as found, but the later one did not
  change it (the annotations cannot tell whether it mattered);
- *unrelated*: neither, for every shared object and attribute.

Algorithm 1 returns at the first attribute that matches either test, which makes the answer
depend on the order attributes are listed in; the text around it says "dependent if this
condition is satisfied", so taskqa returns *dependent* if any attribute is, else *related* if any
is. ``unknown`` values never count as a change nor as equal, so they can only weaken a link.

Two options move away from the paper's rule:

- ``spatial`` (on by default) adds the rule of EgoTaskQA's released code: the earlier action
  changed the object's spatial relations and everything it left is still true when the later
  action starts (its after-relations are a subset of the later action's before-relations). Most
  household work is moving things; without this rule fetching a cup and filling it would be
  unrelated.
- ``include_visibility`` (off by default) also compares the two visibility attributes. They
  change whenever someone turns around, which says nothing about cause, so taskqa leaves them out
  unless asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from taskqa.model import (
    UNKNOWN,
    VIEWPOINT_ATTRIBUTES,
    ActionSegment,
    EntityTransition,
    RelationKind,
)


class Link(IntEnum):
    """Ordered by strength, so ``max`` picks the strongest evidence."""

    UNRELATED = 0
    RELATED = 1
    DEPENDENT = 2

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class DependencyRules:
    """How links are found. ``schemas`` (on by default): where a recording is simulated and its
    domain is known, use the domain's preconditions by replay (``taskqa.causal.preconditions``)
    and ignore the other fields, which tune Algorithm 1 on annotations."""

    spatial: bool = True
    include_visibility: bool = False
    ignore: frozenset[str] = frozenset({"hand"})  # static references, as the released code skips
    schemas: bool = True


def action_link(earlier: ActionSegment, later: ActionSegment, rules: DependencyRules) -> Link:
    """The link from ``earlier`` to ``later`` through the objects they share."""
    first = _objects(earlier, rules)
    second = _objects(later, rules)
    strongest = Link.UNRELATED
    for name in first.keys() & second.keys():
        strongest = max(strongest, _object_link(first[name], second[name], rules))
        if strongest is Link.DEPENDENT:
            break
    return strongest


def _objects(action: ActionSegment, rules: DependencyRules) -> dict[str, EntityTransition]:
    return {
        t.entity: t for t in action.transitions if not t.is_agent and t.entity not in rules.ignore
    }


def _object_link(first: EntityTransition, second: EntityTransition, rules: DependencyRules) -> Link:
    strongest = Link.UNRELATED
    shared = first.before.attributes.keys() & second.before.attributes.keys()
    for attribute in shared:
        if attribute in VIEWPOINT_ATTRIBUTES and not rules.include_visibility:
            continue
        b1 = first.before.attributes.get(attribute)
        a1 = first.after.attributes.get(attribute)
        b2 = second.before.attributes.get(attribute)
        a2 = second.after.attributes.get(attribute)
        if not (_differ(b1, a1) and _same(a1, b2)):
            continue
        if _differ(b2, a2):
            return Link.DEPENDENT
        strongest = Link.RELATED
    if rules.spatial and _spatially_dependent(first, second):
        return Link.DEPENDENT
    return strongest


def _differ(x: str | None, y: str | None) -> bool:
    return x is not None and y is not None and UNKNOWN not in (x, y) and x != y


def _same(x: str | None, y: str | None) -> bool:
    return x is not None and x != UNKNOWN and x == y


def _spatially_dependent(first: EntityTransition, second: EntityTransition) -> bool:
    before = {str(r) for r in first.before.relations_of(RelationKind.SPATIAL)}
    after = {str(r) for r in first.after.relations_of(RelationKind.SPATIAL)}
    found = {str(r) for r in second.before.relations_of(RelationKind.SPATIAL)}
    return before != after and bool(after) and after <= found
