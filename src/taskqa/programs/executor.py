"""Running a program on a clip: nodes in order, each through its operator's handler."""

from __future__ import annotations

from taskqa.programs.graph import Program
from taskqa.programs.operators import HANDLERS, Unanswerable, Value
from taskqa.programs.records import ClipView


def run(program: Program, view: ClipView) -> list[Value] | None:
    """Every node's result, or None as soon as a step cannot be carried out."""
    results: list[Value] = []
    for node in program.nodes:
        handler = HANDLERS[node.function]
        try:
            results.append(handler(view, node.arguments, [results[i] for i in node.inputs]))
        except Unanswerable:
            return None
    return results


def answer(program: Program, view: ClipView) -> str | None:
    """The program's answer on this clip: a string, or None when it has none."""
    results = run(program, view)
    if results is None or not isinstance(results[-1], str):
        return None
    return results[-1]
