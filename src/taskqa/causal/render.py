"""Showing a causal structure: a terminal table, Graphviz DOT text and a PNG timeline."""

from __future__ import annotations

import io
import json

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch
from rich.table import Table
from rich.text import Text

from taskqa.causal.dependency import Link
from taskqa.causal.structure import Basis, CausalStructure
from taskqa.model import ActionSegment, Recording
from taskqa.sources.lemma_actions import format_action

STYLE = {Link.DEPENDENT: ("solid", "#c0392b"), Link.RELATED: ("dashed", "#7f8c8d")}
BASIS = {
    Basis.SCHEMAS: "links from the domain's preconditions, by replay without each action",
    Basis.ANNOTATIONS: "links from the annotations (EgoTaskQA Algorithm 1)",
}


def describe(action: ActionSegment, templates: dict[str, str] | None = None) -> str:
    return format_action(action.verb, action.slots, templates)


def structure_table(
    structure: CausalStructure, recording: Recording, templates: dict[str, str] | None = None
) -> Table:
    table = Table(
        "action",
        "agent",
        "time (s)",
        "what",
        "dependent",
        "related",
        title=recording.id,
        caption=BASIS[structure.basis],
    )
    by_id = {a.id: a for a in recording.actions}
    for action_id in structure.order:
        action = by_id[action_id]
        closure = structure.dependants.get(action_id, {})
        table.add_row(
            action_id,
            action.agent,
            f"{action.start:.1f}-{action.end:.1f}",
            Text(describe(action, templates)),  # brackets are not rich markup here
            " ".join(a for a, link in closure.items() if link is Link.DEPENDENT),
            " ".join(a for a, link in closure.items() if link is Link.RELATED),
        )
    return table


def to_dot(
    structure: CausalStructure, recording: Recording, templates: dict[str, str] | None = None
) -> str:
    """Direct links as a DOT digraph; ids and labels are quoted so any text is safe."""
    by_id = {a.id: a for a in recording.actions}
    lines = [f"digraph {_quote(recording.id)} {{", "  rankdir=LR;", "  node [shape=box];"]
    for action_id in structure.order:
        action = by_id[action_id]
        label = f"{action_id} {action.agent}\\n{describe(action, templates)}"
        lines.append(f"  {_quote(action_id)} [label={_quote(label, escaped=True)}];")
    for (earlier, later), link in sorted(structure.links.items()):
        style, colour = STYLE[link]
        reasons = structure.reasons.get((earlier, later))
        label = _quote("; ".join(reasons)) if reasons else f'"{link.label}"'
        lines.append(
            f"  {_quote(earlier)} -> {_quote(later)} "
            f'[label={label}, style={style}, color="{colour}"];'
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def _quote(text: str, escaped: bool = False) -> str:
    # json.dumps escapes quotes and backslashes the way DOT expects; keep our own "\n" escapes.
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted.replace("\\\\n", "\\n") if escaped else quoted


def to_png(structure: CausalStructure, recording: Recording) -> bytes:
    """A timeline: one lane per agent, actions as points, links as arcs."""
    by_id = {a.id: a for a in recording.actions}
    lanes = {agent.id: index for index, agent in enumerate(recording.agents)} or {"": 0}
    figure = Figure(figsize=(14, 2.2 + 1.2 * len(lanes)), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    points = {
        a: ((by_id[a].start + by_id[a].end) / 2, lanes.get(by_id[a].agent, 0))
        for a in structure.order
    }
    for (earlier, later), link in sorted(structure.links.items()):
        style, colour = STYLE[link]
        arc = FancyArrowPatch(
            points[earlier],
            points[later],
            connectionstyle="arc3,rad=-0.25",
            arrowstyle="-|>",
            mutation_scale=8,
            linestyle=style,
            color=colour,
            linewidth=0.7,
            alpha=0.8,
        )
        axes.add_patch(arc)
    for action_id, (x, y) in points.items():
        axes.plot([x], [y], "o", color="#2c3e50", markersize=4)
        axes.annotate(
            by_id[action_id].verb,
            (x, y),
            xytext=(0, -12),
            textcoords="offset points",
            ha="center",
            fontsize=6,
            rotation=60,
        )
    axes.set_yticks(list(lanes.values()), list(lanes))
    axes.set_ylim(-0.8, len(lanes) - 0.2)
    axes.set_xlabel("seconds")
    axes.set_title(f"{recording.id}: dependent (red) and related (grey, dashed) links")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()
