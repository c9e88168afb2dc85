"""Running a program on a clip: its answer (``result``), every node's result (``run``, through
the one interpreter loop, ``operators.run_nodes``), or one node's (``evaluate``, which
generation's instantiation memoises node by node)."""

from __future__ import annotations

from collections.abc import Sequence

from taskqa.programs.graph import Argument, Node, Program
from taskqa.programs.operators import HANDLERS, Unanswerable, Value, run_nodes
from taskqa.programs.records import ClipView


def run(program: Program, view: ClipView) -> list[Value] | None:
    """Every node's result, or None as soon as a step cannot be carried out."""
    try:
        return run_nodes(program, view)
    except Unanswerable:
        return None


def evaluate(
    node: Node, arguments: Sequence[Argument], inputs: Sequence[Value], view: ClipView
) -> Value | None:
    """One node's result, or None when it cannot be carried out."""
    try:
        return HANDLERS[node.function](view, arguments, inputs)
    except Unanswerable:
        return None


def result(program: Program, view: ClipView) -> str | None:
    """The program's raw answer on this clip (attribute values as the world names them), or
    None when it has none; ``taskqa.questions.answers`` says it in the answer vocabulary."""
    results = run(program, view)
    if results is None or not isinstance(results[-1], str):
        return None
    return results[-1]
