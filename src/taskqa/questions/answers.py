"""A program's answer in the words questions use: runs it, then says the answer plainly.

Attribute values are said as people say them (``boiled`` -> ``hot``) and attributes as what
changed about a thing (``whether it was open``). With a ``Speaker`` (the corpus's world),
actions are said as a short instruction (``put the kettle on the counter``; a failed or partly
done one as ``try to open the jar``), objects with their article (``the blue mug``) and tasks as
a person names them (``making juice``). Kept in ``questions`` (not ``programs``) because the
words are question wording; the executor itself returns the world's raw values, which stay
accepted as answers (``answer_aliases``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from taskqa.model.attributes import ATTRIBUTE_VALUES, Attribute
from taskqa.programs.executor import result
from taskqa.programs.graph import Program
from taskqa.programs.operators import AS_LEFT
from taskqa.programs.records import ClipView
from taskqa.programs.syntax import unquote
from taskqa.questions.realize import Speaker
from taskqa.questions.words import (
    ATTRIBUTE_KEY,
    VALUE_KEYS,
    Unsayable,
    caused_by,
    caused_choices,
    spoken_attribute,
    spoken_value,
)

ATTEMPTS = ("failed", "partial")
AS_LEFT_ARGUMENT = f"type@{AS_LEFT}"  # a cause of the state the clip ends in


def answer(
    program: Program,
    view: ClipView,
    speaker: Speaker | None = None,
    attempted: frozenset[str] = frozenset(),
    form: str = "base",
) -> str | None:
    """The program's answer on this clip: a string, or None when it has none.

    Said as questions say it (see the module), so stored answers, ``taskqa check`` and the
    oracle agree; ``attempted`` are the clip's action texts that were only tried
    (``attempted_actions``); ``form`` ``to`` says an action answer as a purpose ("to put the
    egg in the microwave"), as why-questions are answered, and ``ing`` as what someone was
    doing ("opening the drawer", for "what was the other person doing ...?").
    """
    raw = result(program, view)
    if raw is None:
        return None
    try:
        return in_form(spoken_answer(program, raw, speaker, attempted, form), form)
    except Unsayable:  # a why of a state no words say (english.yaml `caused`): no question
        return None


ANSWER_FORMS = ("base", "to", "ing", "will")
"""How an answer is said (a template's ``answer_form``): ``base`` "open the drawer" (also for
"what did the person do ...?"), ``to`` "to open the drawer" (why), ``ing`` "opening the drawer"
("what was the person doing ...?"), ``will`` "whether it will be full" (what the next action
will change)."""


def in_form(said: str, form: str) -> str:
    """An answer in the template's ``answer_form``: ``to`` says an action as a purpose ("to put
    the egg in the microwave"), ``will`` what will change about a thing ("whether it will be
    full", not "whether it was full", for a question about the next action); yes/no, ``base``
    and ``ing`` (said so by ``spoken_answer``) stay as they are."""
    if said in ("yes", "no"):
        return said
    if form == "to":
        return f"to {said}"
    if form == "will":
        return re.sub(r"\bwas\b", "will be", said)
    return said


def spoken_answer(
    program: Program,
    raw: str,
    speaker: Speaker | None = None,
    attempted: frozenset[str] = frozenset(),
    form: str = "base",
    phrased: bool = True,
    values: Mapping[str, str] | None = None,
) -> str:
    """``raw`` (the root's result) in the words of the answer vocabulary; an action in the
    ``ing`` form where ``form`` asks it ("opening the drawer", "trying to open the jar"), else
    as an instruction ("open the drawer"); ``values`` fill a template's placeholders the words
    need (``cause``'s value). ``phrased=False`` says an action or object word for
    word ("pour from the watering can into the plant" for "water the plant", "the cereal" for
    "the cereal box"), a form kept among a question's accepted answers."""
    arguments = program.nodes[-1].arguments
    if program.nodes[-1].function == "cause":
        return caused_by(raw, _named_value(arguments, values), AS_LEFT_ARGUMENT in arguments)
    if VALUE_KEYS.intersection(arguments):
        return spoken_value(raw)
    if ATTRIBUTE_KEY in arguments:
        return spoken_attribute(raw)
    if speaker is None or raw in ("yes", "no"):
        return raw
    if "hoi$" in arguments:
        return speaker.action(raw, "ing" if form == "ing" else "base", raw in attempted, phrased)
    if "obj$" in arguments or "patient$" in arguments:
        return speaker.object_phrase(raw, phrased)
    if "task$" in arguments:
        return speaker.task(raw)
    return raw


def _named_value(arguments: Sequence[object], values: Mapping[str, str] | None = None) -> str:
    """The ``value@...`` a root names ("why was the fridge open ...": ``open``); a template's
    placeholder (``value@{fv}``) is filled from ``values``."""
    for argument in arguments:
        if isinstance(argument, str) and argument.startswith("value@"):
            named = unquote(argument.partition("@")[2])
            if named.startswith("{") and named.endswith("}") and values is not None:
                return values.get(named[1:-1], named)
            return named
    raise Unsayable("a why-state question names no value")


def answer_choices(root_arguments: Sequence[str], binary: bool, function: str = "") -> list[str]:
    """The few answers a question allows, in the answer vocabulary's words: ``yes``/``no`` for
    a yes/no question, an attribute's values for one that asks a named attribute's value ("was
    the fridge open or closed ...": ``open``, ``closed``); empty where the answers are an open
    vocabulary (actions, objects, tasks). Balancing keeps a text group of k choices at 1/k per
    answer, and chance on such a question is 1/k."""
    if binary:
        return ["no", "yes"]
    if function == "cause":  # who left it so: the person, the other person, or nobody
        return caused_choices(_named_value(root_arguments), AS_LEFT_ARGUMENT in root_arguments)
    if not VALUE_KEYS.intersection(root_arguments):
        return []
    for argument in root_arguments:
        key, _, value = argument.partition("@")
        if key == "attribute" and value.strip("'") in ATTRIBUTE_VALUES:
            values = ATTRIBUTE_VALUES[Attribute(value.strip("'"))]
            return sorted({spoken_value(v) for v in values})
    return []  # the attribute is not named (a desired state of any attribute)


def attempted_actions(view: ClipView, outcome_of: Mapping[str, str]) -> frozenset[str]:
    """The action texts of the clip whose every action failed or was done only partly (by
    action id in ``outcome_of``): questions and answers say them as attempts ("tried to open
    the jar"). A text that names both a failed try and a success is no single action, so no
    question refers to it (``only`` refuses)."""
    outcomes: dict[str, set[str]] = {}
    for interval in (*view.observed, *view.others, *view.future):
        for text in interval.value("hoi"):
            outcomes.setdefault(text, set()).add(outcome_of.get(interval.id, "done"))
    return frozenset(text for text, seen in outcomes.items() if not seen - set(ATTEMPTS))
