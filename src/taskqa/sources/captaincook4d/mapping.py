"""From CaptainCook4D's global step ids to the local ids of a recipe's task graph.

The annotations number steps globally (1-352, some ids shared between recipes) while each task
graph numbers its own steps from 0 (START). The step texts are the same in both, so a step is
found in its graph by its description. Three graphs repeat a text at several nodes, for a step
the recipe does more than once:

- Dressed Up Meatballs (activity 2): "Microwave the plate ..." at 13 then 8, "Stir ..." at 7
  then 5;
- Pinwheels (10): "Continue slicing with floss ..." at 14, 1, then 3;
- Sauted Mushrooms (20): "cook the pan, often stirring, ..." at 3 then 13.

The annotations give each such step one global id however often it is done, so the text cannot
tell the copies apart. The k-th time a recording does it (in time order, steps at -1 first) maps
to the k-th copy in the graph's precedence order, and further repeats stay on the last copy. This
derives ProMQA's hand-written table for activities 2, 10 and 20 from the graphs themselves; the
conformance test checks it against ProMQA's cleaned annotations.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

import networkx as nx

from taskqa.model import TaskGraph


class StepLocalizer:
    """Maps one recipe's annotated steps onto the local step ids of its task graph.

    A description not in the graph is retried with the catalog text of the step's global id
    (``step_idx_description.json``): two annotated descriptions carry typos ("chat masala",
    "Microwave for 1.5 minutes") that the catalog spells as the graph does.
    """

    def __init__(self, graph: TaskGraph, catalog: Mapping[int, str] | None = None) -> None:
        self.graph = graph
        self._catalog = dict(catalog or {})
        rank = _precedence_rank(graph)
        copies: dict[str, list[str]] = defaultdict(list)
        for step in graph.real_steps():
            copies[step.text].append(step.id)
        self._copies = {text: sorted(ids, key=rank.__getitem__) for text, ids in copies.items()}

    def copies(self, text: str) -> list[str]:
        """The local ids whose text is ``text``, in precedence order."""
        return list(self._copies.get(text, []))

    def graph_text(self, global_id: int, description: str) -> str | None:
        """The graph text this step stands for, or None when neither text is in the graph."""
        if description in self._copies:
            return description
        fallback = self._catalog.get(global_id)
        return fallback if fallback in self._copies else None

    def localize(self, steps: Sequence[tuple[int, str]]) -> list[str | None]:
        """Local ids of ``(global id, description)`` steps given in time order; None if unmapped."""
        seen: Counter[str] = Counter()
        local_ids: list[str | None] = []
        for global_id, description in steps:
            text = self.graph_text(global_id, description)
            if text is None:
                local_ids.append(None)
                continue
            copies = self._copies[text]
            local_ids.append(copies[min(seen[text], len(copies) - 1)])
            seen[text] += 1
        return local_ids

    def repeated_texts(self) -> dict[str, list[str]]:
        """The texts found at several nodes, with their copies in precedence order."""
        return {text: list(ids) for text, ids in self._copies.items() if len(ids) > 1}


def _precedence_rank(graph: TaskGraph) -> dict[str, int]:
    # Lexicographic on the numeric id only breaks ties between unordered nodes, so the rank is
    # deterministic; the repeated copies in the release all lie on one chain anyway.
    order = nx.lexicographical_topological_sort(graph.digraph(), key=_numeric)
    return {step: rank for rank, step in enumerate(order)}


def _numeric(step_id: str) -> tuple[int, str]:
    return (int(step_id), step_id) if step_id.isdigit() else (-1, step_id)
