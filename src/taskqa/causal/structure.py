"""The dependency structure of a recording, built with each action as a root.

Two bases, chosen per recording by ``build_structure``:

- **schemas** (simulated recordings whose domain is known): an action depends on a root when,
  replaying the recording without the root, the action's preconditions fail
  (``taskqa.causal.preconditions``). Every dependant is *dependent*; counterfactual
  executability is that replay, so it is ``yes`` or ``no``, never ``unknown``. The direct links
  are the preconditions an earlier action made true that the later action could not do without.
- **annotations** (EgoTaskQA/LEMMA, CaptainCook4D and any recording without a domain):
  Algorithm 1 on before/after annotations (``taskqa.causal.dependency``). From a root, every
  action reachable along links is among its dependants. The supplementary marks a newly
  reached action *related* when the path to it contains a related link. With several paths to
  one action, taskqa keeps *dependent* when at least one path is dependent all the way: that
  path alone is enough for the root's removal to make the action impossible. Remove an action
  and its dependent dependants cannot be executed, those reached only through related links
  become unknown, and everything else stays executable.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

import networkx as nx

from taskqa.causal.dependency import DependencyRules, Link, action_link
from taskqa.causal.preconditions import Replay, schema_replay
from taskqa.model import Recording
from taskqa.simulation.domain import Domain


class Executability(StrEnum):
    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"


class Basis(StrEnum):
    """What a structure's links rest on."""

    SCHEMAS = "schemas"  # the domain's preconditions, by replay
    ANNOTATIONS = "annotations"  # Algorithm 1 on before/after annotations


@dataclass
class CausalStructure:
    """Pairwise links (earlier → later) and, per root, the actions that depend on it."""

    recording_id: str
    order: list[str]  # action ids by start time, both agents merged
    links: dict[tuple[str, str], Link] = field(default_factory=dict)
    dependants: dict[str, dict[str, Link]] = field(default_factory=dict)
    basis: Basis = Basis.ANNOTATIONS
    # schemas: the preconditions each direct link stands for ("knife in drawer")
    reasons: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    replay: Replay | None = field(default=None, repr=False, compare=False)
    _verdicts: dict[frozenset[str], dict[str, Executability]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def direct(self, action: str) -> dict[str, Link]:
        return {b: link for (a, b), link in self.links.items() if a == action}

    def link(self, root: str, action: str) -> Link:
        """The closure's verdict on ``action`` with ``root`` removed."""
        return self.dependants.get(root, {}).get(action, Link.UNRELATED)

    def counterfactual(self, removed: Iterable[str]) -> dict[str, Executability]:
        """Executability of every action if the ``removed`` actions had not happened."""
        gone = set(removed)
        if self.replay is not None:
            return dict(self._replayed(self.replay, frozenset(gone)))
        verdict = {a: Executability.YES for a in self.order}
        for root in gone:
            verdict[root] = Executability.NO
            for action, link in self.dependants.get(root, {}).items():
                if link is Link.DEPENDENT:
                    verdict[action] = Executability.NO
                elif verdict[action] is Executability.YES:
                    verdict[action] = Executability.UNKNOWN
        return verdict

    def with_added(self, copied: str, before: str) -> dict[str, Executability] | None:
        """Executability of ``before`` and every later action had the person done ``copied``
        again right before ``before`` (the paper's "adding actions in the causal trace").
        Known only by replaying the domain's schemas; None on annotations, or when ``copied``
        could not have been done at that moment."""
        if self.replay is None:
            return None
        can = self.replay.inserted(copied, before)
        if can is None:
            return None
        return {a: Executability.YES if ok else Executability.NO for a, ok in can.items()}

    def _replayed(self, replay: Replay, gone: frozenset[str]) -> dict[str, Executability]:
        if gone not in self._verdicts:
            can = replay.executable(gone)
            self._verdicts[gone] = {
                a: Executability.YES if can[a] else Executability.NO for a in self.order
            }
        return self._verdicts[gone]


def build_structure(
    recording: Recording, rules: DependencyRules | None = None, domain: Domain | None = None
) -> CausalStructure:
    """The recording's structure: on the domain's schemas where ``rules.schemas`` and the
    recording is simulated with a known domain (``domain``, else the built-in one it names),
    else on its annotations (Algorithm 1 with ``rules``)."""
    rules = rules or DependencyRules()
    replay = schema_replay(recording, domain) if rules.schemas else None
    if replay is not None:
        return _schema_structure(recording.id, replay)
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


def _schema_structure(recording_id: str, replay: Replay) -> CausalStructure:
    structure = CausalStructure(
        recording_id, list(replay.order), basis=Basis.SCHEMAS, replay=replay
    )
    for root in replay.order:
        structure.dependants[root] = dict.fromkeys(replay.dependants(root), Link.DEPENDENT)
    for action, enablers in replay.enablers().items():
        for enabler in enablers:
            if action not in structure.dependants[enabler.action]:
                continue  # made true, but the action could do without it (done again later)
            key = (enabler.action, action)
            structure.links[key] = Link.DEPENDENT
            structure.reasons[key] = (*structure.reasons.get(key, ()), enabler.condition)
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
