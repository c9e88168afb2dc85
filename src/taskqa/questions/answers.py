"""A program's answer in the words questions use: runs it, then says attribute values plainly.

Kept in ``questions`` (not ``programs``) because the words are question wording
(``english.yaml``); the executor itself returns the world's raw values.
"""

from __future__ import annotations

from taskqa.programs.executor import result
from taskqa.programs.graph import Program
from taskqa.programs.records import ClipView
from taskqa.questions.words import VALUE_KEYS, spoken_value


def answer(program: Program, view: ClipView) -> str | None:
    """The program's answer on this clip: a string, or None when it has none.

    An attribute value is said as questions say it (``boiled`` -> ``hot``, see
    ``taskqa.questions.words``), so stored answers, ``taskqa check`` and the oracle agree.
    """
    raw = result(program, view)
    return None if raw is None else spoken_answer(program, raw)


def spoken_answer(program: Program, raw: str) -> str:
    """``raw`` (the root's result) in the words of the answer vocabulary."""
    if VALUE_KEYS.intersection(program.nodes[-1].arguments):
        return spoken_value(raw)
    return raw
