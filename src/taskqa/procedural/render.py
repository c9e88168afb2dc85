"""PNG status graphs: Graphviz when a ``dot``-compatible program is installed, else matplotlib.

The preferred program is ``graphviz-pure`` (a PyPI wheel holding a self-contained Graphviz
port, so it installs offline like any package and gives the same bytes everywhere); a system
``dot`` also works. Without either, a layered drawing is made with matplotlib: each step sits in
the layer of its longest path from START, so precedence still reads top to bottom.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from taskqa.procedural.dot import ERROR_MARK, NodeStatus, StepStatus, node_name, wrap_label
from taskqa.procedural.recipes import RecipeGraph

Engine = Literal["auto", "graphviz", "matplotlib"]
GRAPHVIZ_PROGRAMS = ("graphviz-pure", "dot")


class RenderError(RuntimeError):
    pass


def graphviz_program() -> str | None:
    """The first Graphviz program found beside this Python or on PATH."""
    beside = Path(sys.executable).parent
    for name in GRAPHVIZ_PROGRAMS:
        if (beside / name).is_file():
            return str(beside / name)
        found = shutil.which(name)
        if found:
            return found
    return None


def render_status_png(
    graph: RecipeGraph,
    statuses: Mapping[int, NodeStatus],
    dot_text: str,
    engine: Engine = "auto",
) -> tuple[bytes, str]:
    """PNG bytes of a status graph and the name of the engine that drew it."""
    program = graphviz_program() if engine in ("auto", "graphviz") else None
    if program is not None:
        return dot_to_png(dot_text, program), "graphviz"
    if engine == "graphviz":
        raise RenderError(
            "no Graphviz program found; install the graphviz-pure package or Graphviz's dot"
        )
    return matplotlib_png(graph, statuses), "matplotlib"


def dot_to_png(dot_text: str, program: str) -> bytes:
    done = subprocess.run(
        [program, "-Tpng"], input=dot_text.encode("utf-8"), capture_output=True, check=False
    )
    if done.returncode != 0 or not done.stdout.startswith(b"\x89PNG"):
        message = done.stderr.decode("utf-8", "replace").strip()
        raise RenderError(f"{program} failed (exit {done.returncode}): {message}")
    return done.stdout


def layers(graph: RecipeGraph) -> dict[int, int]:
    """Each step's depth: the length of its longest path from a step with no predecessor."""
    depth: dict[int, int] = {}
    for step in graph.topological_order():
        before = graph.predecessors[step]
        depth[step] = 1 + max((depth[b] for b in before), default=-1)
    return depth


_FILL: dict[StepStatus, str] = {
    StepStatus.PASSED: "#d9f2d9",
    StepStatus.CURRENT: "#ffd9a6",
    StepStatus.NOT_PASSED: "#ffffff",
}
_EDGE: dict[StepStatus, str] = {
    StepStatus.PASSED: "forestgreen",
    StepStatus.CURRENT: "darkorange",
    StepStatus.NOT_PASSED: "#888888",
}


def matplotlib_png(graph: RecipeGraph, statuses: Mapping[int, NodeStatus]) -> bytes:
    import matplotlib.style
    from matplotlib.figure import Figure

    from taskqa.stats.plots import to_png

    depth = layers(graph)
    rows: dict[int, list[int]] = {}
    for step in graph.topological_order():
        rows.setdefault(depth[step], []).append(step)
    width = max(len(row) for row in rows.values())
    positions = {
        step: (column - (len(row) - 1) / 2, -level)
        for level, row in rows.items()
        for column, step in enumerate(row)
    }
    with matplotlib.style.context("default"):
        figure = Figure(figsize=(max(4.0, 2.6 * width), 1.1 * len(rows) + 0.5))
        axes = figure.add_subplot()
        for a, b in graph.edges:
            axes.annotate(
                "",
                xy=positions[b],
                xytext=positions[a],
                arrowprops={"arrowstyle": "->", "color": "#555555", "shrinkA": 14, "shrinkB": 14},
            )
        for step, (x, y) in positions.items():
            node = statuses[step]
            label = wrap_label(node_name(graph, step)) + (
                f" {ERROR_MARK}" if node.has_error else ""
            )
            axes.text(
                x,
                y,
                label,
                ha="center",
                va="center",
                fontsize=6,
                color="firebrick" if node.has_error else "black",
                bbox={
                    "boxstyle": "square,pad=0.3",
                    "facecolor": _FILL[node.status],
                    "edgecolor": _EDGE[node.status],
                    "linestyle": ":" if node.status is StepStatus.NOT_PASSED else "-",
                },
            )
        axes.set_xlim(-width / 2 - 0.2, width / 2 + 0.2)
        axes.set_ylim(-len(rows) + 0.4, 0.6)
        axes.set_axis_off()
        return to_png(figure)
