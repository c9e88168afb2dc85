"""Running a program on a clip: nodes in order, each through its operator's handler."""

from __future__ import annotations

from collections.abc import Sequence

from taskqa.programs.graph import Argument, Node, Program
from taskqa.programs.operators import HANDLERS, Unanswerable, Value
from taskqa.programs.records import ClipView
from taskqa.questions.words import VALUE_KEYS, spoken_value


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


def answer(program: Program, view: ClipView) -> str | None:
    """The program's answer on this clip: a string, or None when it has none.

    An attribute value is said as questions say it (``boiled`` -> ``hot``, see
    ``taskqa.questions.words``), so stored answers, ``taskqa check`` and the oracle agree.
    """
    results = run(program, view)
    if results is None or not isinstance(results[-1], str):
        return None
    return spoken_answer(program, results[-1])


def spoken_answer(program: Program, raw: str) -> str:
    """``raw`` (the root's result) in the words of the answer vocabulary."""
    if VALUE_KEYS.intersection(program.nodes[-1].arguments):
        return spoken_value(raw)
    return raw
