"""The plain-English word data of question texts (``english.yaml``), loaded once per process.

Kept apart from the text realizer so that the program executor can say attribute values the
way questions do (``boiled`` -> ``hot``) without loading the inflection library.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from taskqa.problems import InvalidInputError, Problem

WORDS_FILE = "english.yaml"
VALUE_KEYS = frozenset({"value$", "before$", "after$"})
"""Selectors whose answer is an attribute value, and so is said with ``spoken_value``."""
ATTRIBUTE_KEY = "attribute$"
"""The selector whose answer is an attribute, said with ``spoken_attribute``."""


@dataclass(frozen=True)
class Words:
    prepositions: dict[str, dict[str, str | dict[str, str]]]
    containers: frozenset[str]
    nouns: dict[str, str]
    verb_forms: dict[str, dict[str, str]]
    spoken_values: dict[str, str]
    attributes: dict[str, dict[str, str]]
    value_verbs: dict[str, list[str]]
    made: dict[str, dict[str, str]]


@cache
def words() -> Words:
    text = resources.files("taskqa.questions").joinpath(WORDS_FILE).read_text(encoding="utf-8")
    raw: Any = yaml.safe_load(text)
    expected = (
        "prepositions",
        "containers",
        "nouns",
        "verb_forms",
        "spoken_values",
        "attributes",
        "value_verbs",
    )
    if not isinstance(raw, dict) or any(key not in raw for key in expected):
        raise InvalidInputError(
            [Problem(WORDS_FILE, "", f"expected a mapping with keys {', '.join(expected)}")]
        )
    return Words(
        prepositions=raw["prepositions"],
        containers=frozenset(raw["containers"]),
        nouns=raw["nouns"],
        verb_forms=raw["verb_forms"],
        spoken_values=raw["spoken_values"],
        attributes=raw["attributes"],
        value_verbs=raw["value_verbs"],
        made=raw.get("made") or {},
    )


def spoken_value(value: str) -> str:
    """An attribute value as a person says it: ``boiled`` -> ``hot``; others unchanged."""
    return words().spoken_values.get(value, value)


class Unsayable(ValueError):
    """A question text needs words the word data does not have (a value with no verb)."""


def made_value(value: str, form: str) -> str:
    """What a person does to give a thing ``value``: ``open`` -> ``opened`` (past) / ``open``
    (base); ``Unsayable`` where no verb makes it."""
    phrase = words().made.get(value, {}).get(form)
    if phrase is None:
        raise Unsayable(f"no verb makes a thing {value!r} ({form})")
    return phrase


def attribute_choice(attribute: str) -> str:
    """The choice a question offers for an attribute: ``openness`` -> ``open or closed``;
    ``Unsayable`` for an attribute whose entry has no axis (not asked as a choice)."""
    entry = words().attributes.get(attribute, {})
    if "axis" in entry and entry["axis"] is None:
        raise Unsayable(f"{attribute!r} is not asked as a choice (english.yaml: no axis)")
    return str(entry.get("axis", attribute))


def spoken_attribute(attribute: str) -> str:
    """An attribute as an answer says it: ``openness`` -> ``whether it was open``."""
    return words().attributes.get(attribute, {}).get("about", attribute)
