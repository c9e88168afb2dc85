"""Recipe graphs as Graphviz DOT text: the plain recipe (for answering prompts) and status graphs.

Node ids are quoted ``"<local id>. <step text>"``. ProMQA's release names nodes by the step text
alone, so a recipe whose text repeats (two identical steps at different places) collapses into
one node there and its edges merge; here every step stays its own node.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from taskqa.procedural.recipes import RecipeGraph

WORDS_PER_LINE = 5
MAX_LABEL_WORDS = 20
ERROR_MARK = "(!)"  # an ASCII mark: the bundled Graphviz fonts have no warning-sign glyph


def quote(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, newlines as ``\\n``."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def node_name(graph: RecipeGraph, step: int) -> str:
    return f"{step}. {graph.steps[step]}"


def recipe_dot(graph: RecipeGraph) -> str:
    """The recipe DAG as DOT: one statement per node, then one per edge, in file order."""
    lines = ["digraph recipe {"]
    lines += [f"{quote(node_name(graph, step))};" for step in graph.steps]
    lines += [
        f"{quote(node_name(graph, a))} -> {quote(node_name(graph, b))};" for a, b in graph.edges
    ]
    lines.append("}")
    return "\n".join(lines)


def merged_texts(graph: RecipeGraph) -> dict[str, list[int]]:
    """Step texts shared by several steps: the nodes the released DOT export merges."""
    counts = Counter(graph.steps.values())
    return {
        text: sorted(step for step, t in graph.steps.items() if t == text)
        for text, count in counts.items()
        if count > 1
    }


class StepStatus(StrEnum):
    PASSED = "passed"
    CURRENT = "current"
    NOT_PASSED = "not passed"


@dataclass(frozen=True)
class NodeStatus:
    status: StepStatus
    has_error: bool = False


def step_statuses(graph: RecipeGraph, record: Mapping[str, Any]) -> dict[int, NodeStatus]:
    """Each recipe step's status at a candidate's prefix (START counts as passed)."""
    previous = {step["step_id"]: step for step in record["previous_steps"]}
    current = record["current_step"]
    statuses: dict[int, NodeStatus] = {}
    for step in graph.steps:
        if step in previous:
            statuses[step] = NodeStatus(StepStatus.PASSED, "errors" in previous[step])
        elif step == current["step_id"]:
            statuses[step] = NodeStatus(StepStatus.CURRENT, "errors" in current)
        elif step == 0:
            statuses[step] = NodeStatus(StepStatus.PASSED)
        else:
            statuses[step] = NodeStatus(StepStatus.NOT_PASSED)
    return statuses


_STYLE: dict[StepStatus, dict[str, str]] = {
    StepStatus.PASSED: {"color": "forestgreen", "style": "bold"},
    StepStatus.CURRENT: {"color": "darkorange", "style": "diagonals, bold"},
    StepStatus.NOT_PASSED: {"style": "dotted"},
}


def wrap_label(text: str) -> str:
    """At most 20 words, a line break after every fifth, so boxes stay narrow."""
    words = text.split()[:MAX_LABEL_WORDS]
    lines = [" ".join(words[i : i + WORDS_PER_LINE]) for i in range(0, len(words), WORDS_PER_LINE)]
    return "\n".join(lines)


def status_dot(graph: RecipeGraph, statuses: Mapping[int, NodeStatus]) -> str:
    """A status graph: passed steps green, the current one orange, the rest dotted, errors
    marked; the layout the verification page shows annotators."""
    lines = ["digraph status {", "node [shape=box];"]
    for step in graph.steps:
        node = statuses[step]
        attributes = dict(_STYLE[node.status])
        attributes["label"] = wrap_label(node_name(graph, step))
        if node.has_error:
            attributes["style"] = attributes["style"].replace("bold", "solid")
            attributes["xlabel"] = ERROR_MARK
            attributes["fontcolor"] = "firebrick"
        lines.append(f"{quote(str(step))} [{_attributes(attributes.items())}];")
    lines += [f"{quote(str(a))} -> {quote(str(b))};" for a, b in graph.edges]
    lines.append("}")
    return "\n".join(lines)


def _attributes(items: Iterable[tuple[str, str]]) -> str:
    return ", ".join(f"{key}={quote(value)}" for key, value in sorted(items))
