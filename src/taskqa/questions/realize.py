"""Turning filled parameters into question text: verb forms for actions, plain words otherwise.

An action parameter's value is its plain text, ``get orange from fridge``. Texts ask for a form:
``{a}`` third person present (``gets orange from fridge``), ``{a:ing}`` gerund, ``{a:base}``
the text as is, ``{a:pp}`` past participle (``if the person had not gotten ...``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

FORMS = ("ing", "base", "pp")  # what a text may ask of an action: {a:ing}, {a:base}, {a:pp}
_SLOT = re.compile(r"\{([a-z]+[0-9]*)(?::([a-z]+))?\}")

# verb -> (third person, gerund, past participle); regular verbs follow the rules below.
IRREGULAR: dict[str, tuple[str, str, str]] = {
    "get": ("gets", "getting", "gotten"),
    "put": ("puts", "putting", "put"),
    "cut": ("cuts", "cutting", "cut"),
    "eat": ("eats", "eating", "eaten"),
    "drink": ("drinks", "drinking", "drunk"),
    "throw": ("throws", "throwing", "thrown"),
    "sit": ("sits", "sitting", "sat"),
    "sweep": ("sweeps", "sweeping", "swept"),
    "stand": ("stands", "standing", "stood"),
}


def conjugate(verb: str, form: str) -> str:
    """``form`` of ``verb``: ``3`` (third person), ``ing``, ``pp`` or ``base``."""
    if form == "base":
        return verb
    if verb in IRREGULAR:
        third, gerund, participle = IRREGULAR[verb]
        return {"3": third, "ing": gerund, "pp": participle}[form]
    if form == "3":
        return verb + ("es" if verb.endswith(("s", "sh", "ch", "x", "z")) else "s")
    if form == "ing":
        return (verb[:-1] if verb.endswith("e") and not verb.endswith("ee") else verb) + "ing"
    return verb + ("d" if verb.endswith("e") else "ed")


def action_phrase(text: str, form: str) -> str:
    """Inflect the verb of a plain action text; ``turn-on tv`` reads ``turns on tv``."""
    head, _, rest = text.partition(" ")
    verb, _, particle = head.partition("-")
    words = [conjugate(verb, form), particle, rest]
    return " ".join(w for w in words if w)


def render(text: str, values: Mapping[str, str], action_params: set[str]) -> str:
    """Fill ``{name}`` / ``{name:form}`` slots; action parameters are inflected."""

    def fill(match: re.Match[str]) -> str:
        name, form = match.group(1), match.group(2)
        value = values[name]
        if name in action_params:
            return action_phrase(value, form or "3")
        return value

    return _SLOT.sub(fill, text)


def text_params(text: str) -> list[tuple[str, str | None]]:
    """The ``(name, form)`` slots a text uses, in order."""
    return [(m.group(1), m.group(2)) for m in _SLOT.finditer(text)]
