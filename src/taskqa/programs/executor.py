"""Running a program on a clip: nodes in order, each through its operator's handler."""

from __future__ import annotations

from collections.abc import Sequence

from taskqa.programs.graph import Argument, Node, Program
from taskqa.programs.operators import HANDLERS, Unanswerable, Value
from taskqa.programs.records import ClipView


def run(program: Program, view: ClipView) -> list[Value] | None:
    """Every node's result, or None as soon as a step cannot be carried out."""
    results: list[Value] = []
    for node in program.nodes:
        result = evaluate(node, node.arguments, [results[i] for i in node.inputs], view)
        if result is None:
            return None
        results.append(result)
    return results


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
