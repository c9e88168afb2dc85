"""The dependency structure of a recording, built with each action as a root.

From a root, every action reachable along links is among its dependants. The supplementary
marks a newly reached action *related* when the path to it contains a related link. With several
paths to one action, taskqa keeps *dependent* when at least one path is dependent all the way:
that path alone is enough for the root's removal to make the action impossible.

Counterfactual executability follows from it: remove an action and its dependent dependants
cannot be executed, those reached only through related links become unknown, and everything else
stays executable.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

import networkx as nx

from taskqa.causal.dependency import DependencyRules, Link, action_link
from taskqa.model import Recording


class Executability(StrEnum):
    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"


@dataclass
class CausalStructure:
    """Pairwise links (earlier → later) and, per root, the closure over them."""

    recording_id: str
    order: list[str]  # action ids by start time, both agents merged
    links: dict[tuple[str, str], Link] = field(default_factory=dict)
    dependants: dict[str, dict[str, Link]] = field(default_factory=dict)

    def direct(self, action: str) -> dict[str, Link]:
        return {b: link for (a, b), link in self.links.items() if a == action}

    def link(self, root: str, action: str) -> Link:
        """The closure's verdict on ``action`` with ``root`` removed."""
        return self.dependants.get(root, {}).get(action, Link.UNRELATED)

    def counterfactual(self, removed: Iterable[str]) -> dict[str, Executability]:
        """Executability of every action if the ``removed`` actions had not happened."""
        gone = set(removed)
        verdict = {a: Executability.YES for a in self.order}
        for root in gone:
            verdict[root] = Executability.NO
            for action, link in self.dependants.get(root, {}).items():
                if link is Link.DEPENDENT:
                    verdict[action] = Executability.NO
                elif verdict[action] is Executability.YES:
                    verdict[action] = Executability.UNKNOWN
        return verdict


def build_structure(recording: Recording, rules: DependencyRules | None = None) -> CausalStructure:
    rules = rules or DependencyRules()
    actions = sorted(recording.actions, key=lambda a: (a.start, a.end, a.id))
    structure = CausalStructure(recording.id, [a.id for a in actions])
    for i, earlier in enumerate(actions):
        for later in actions[i + 1 :]:
            if later.start < earlier.end:
                continue  # overlapping actions of two people cannot feed each other
            link = action_link(earlier, later, rules)
            if link is not Link.UNRELATED:
                structure.links[(earlier.id, later.id)] = link
    structure.dependants = _closures(structure)
    return structure


def _closures(structure: CausalStructure) -> dict[str, dict[str, Link]]:
    every = nx.DiGraph()
    every.add_nodes_from(structure.order)
    every.add_edges_from(structure.links)
    dependent_only = nx.DiGraph()
    dependent_only.add_nodes_from(structure.order)
    dependent_only.add_edges_from(
        e for e, link in structure.links.items() if link is Link.DEPENDENT
    )
    closures: dict[str, dict[str, Link]] = {}
    for root in structure.order:
        reached = nx.descendants(every, root)
        firm = nx.descendants(dependent_only, root)
        closures[root] = {
            a: Link.DEPENDENT if a in firm else Link.RELATED
            for a in structure.order
            if a in reached
        }
    return closures
