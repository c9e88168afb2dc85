"""The plain-English word data of question texts (``english.yaml``), loaded once per process.

Kept apart from the text realizer so that the program executor can say attribute values the
way questions do (``boiled`` -> ``hot``) without loading the inflection library.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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
class Phrasing:
    """An action said in a person's own words (``english.yaml`` ``phrasing``): ``say`` ("water
    {destination}") where every object of each slot of ``when`` is one of those listed."""

    say: str
    when: dict[str, frozenset[str]]

    def fits(self, slots: dict[str, tuple[str, ...]]) -> bool:
        """Whether it says an action whose objects by slot are ``slots``."""
        placed = re.findall(r"\{([a-z]+)\}", self.say)
        return all(slot in slots for slot in placed) and all(
            slot in slots and set(slots[slot]) <= names for slot, names in self.when.items()
        )


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
    done_to: dict[str, dict[str, str]]
    # who left a thing as an action found it -> the answer's words; ``done``: per value asked,
    # what the person did to make it so ("opened it")
    caused: dict[str, Any] = field(default_factory=dict)
    # value -> what a thing that had it underwent when it lost it ("open" -> "closed")
    left: dict[str, str] = field(default_factory=dict)
    # value -> the doing a route counterfactual takes away ("open" -> "opening")
    undone: dict[str, str] = field(default_factory=dict)
    # verb -> its phrasings, first fitting one used ("pour from watering-can into plant" ->
    # "water the plant")
    phrasing: dict[str, tuple[Phrasing, ...]] = field(default_factory=dict)
    # a content kept in a container -> {container: "cereal box", content: "cereal"}
    packaged: dict[str, dict[str, str]] = field(default_factory=dict)
    # verb -> the slots where a packaged object is said as its content ("pour the cereal")
    content_slots: dict[str, frozenset[str]] = field(default_factory=dict)


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
        left=raw.get("left") or {},
        undone=raw.get("undone") or {},
        caused=raw.get("caused") or {},
        done_to=raw.get("done_to") or {},
        phrasing={
            verb: tuple(
                Phrasing(
                    entry["say"],
                    {slot: frozenset(names) for slot, names in (entry.get("when") or {}).items()},
                )
                for entry in entries
            )
            for verb, entries in (raw.get("phrasing") or {}).items()
        },
        packaged=raw.get("packaged") or {},
        content_slots={
            verb: frozenset(slots) for verb, slots in (raw.get("content_slots") or {}).items()
        },
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


def caused_by(who: str, value: str, at_end: bool = False) -> str:
    """Why a thing was ``value`` when an action found it, said for ``who`` left it so (``me``,
    ``the other person`` or ``start``, what ``cause`` answers): "the person had opened it",
    "it was already open when the video began"; ``at_end``: of the state the clip ends in, where
    the resting states (closed, off, clean) are asked too. ``Unsayable`` for a value not asked
    so."""
    table = words().caused
    done = table.get("ended" if at_end else "done") or {}
    if value not in done or who in _CAUSED_TABLES or who not in table:
        raise Unsayable(f"no words for why a thing was {value!r}")
    return str(table[who]).format(done=done[value], value=spoken_value(value))


def caused_choices(value: str, at_end: bool = False) -> list[str]:
    """Every answer ``caused_by`` gives for ``value``: what a question about it allows."""
    table = words().caused
    return sorted(caused_by(who, value, at_end) for who in table if who not in _CAUSED_TABLES)


# english.yaml `caused`: the doings and the things not asked of, not the people
_CAUSED_TABLES = frozenset({"done", "ended", "ended_unseen", "untouched"})


def untouched_shown(obj: str, value: str) -> bool:
    """Whether a frame shows ``obj`` ``value`` large enough to ask why it stood so at the end
    of a clip whose actions leave it untouched (english.yaml `caused.untouched`: a door or a
    drawer, running water, a lit screen, burner or lamp; not a small light)."""
    shown = (words().caused.get("untouched") or {}).get(value)
    return shown == "any" or obj in (shown or ())


def unseen_at_end(obj: str, value: str) -> bool:
    """Whether "why was {obj} {value} at the end of the video?" is not asked: a value a frame
    shows only as a small light or lid (english.yaml `caused.ended_unseen`)."""
    unseen = words().caused.get("ended_unseen") or {}
    return value in (unseen.get(obj) or ())


def left_value(value: str) -> str:
    """What a thing that was ``value`` underwent when it stopped being so: ``open`` ->
    ``closed``, ``whole`` -> ``cut`` (``{fv:left}``); ``Unsayable`` where no plain word says it
    ("was the stove no longer off?" reads as a template; "was the stove turned on?" does not)."""
    phrase = words().left.get(value)
    if phrase is None:
        raise Unsayable(f"no words for a thing that stopped being {value!r}")
    return phrase


def undone_value(value: str) -> str:
    """The doing a route counterfactual takes away: ``open`` -> ``opening`` ("... without anyone
    opening the fridge during the video?", ``{fv:undone}``); ``Unsayable`` where a viewer cannot
    know an action needs the value without the simulator's rules."""
    phrase = words().undone.get(value)
    if phrase is None:
        raise Unsayable(f"no route counterfactual for a thing {value!r}")
    return phrase


def done_verb(verb: str, form: str) -> str:
    """How a question says a verb that names what was done to a thing: ``turn-on`` ->
    ``turned on`` (past) / ``turn on`` (base); ``Unsayable`` for a verb with no entry (moving
    or putting a thing is no doing a viewer names it by)."""
    phrase = words().done_to.get(verb, {}).get(form)
    if phrase is None:
        raise Unsayable(f"no words for what {verb!r} does to a thing ({form})")
    return phrase


def attribute_choice(attribute: str) -> str:
    """The choice a question offers for an attribute: ``openness`` -> ``open or closed``;
    ``Unsayable`` for an attribute whose entry has no axis (not asked as a choice)."""
    entry = words().attributes.get(attribute, {})
    if "axis" in entry and entry["axis"] is None:
        raise Unsayable(f"{attribute!r} is not asked as a choice (english.yaml: no axis)")
    return str(entry.get("axis", attribute))


def attribute_doing(attribute: str) -> str:
    """What a person does to change ``attribute``, said of "it": ``openness`` -> ``open or
    close it`` (``{f:do}``); ``Unsayable`` for an attribute whose entry has no ``do``."""
    phrase = words().attributes.get(attribute, {}).get("do")
    if phrase is None:
        raise Unsayable(f"no words for what changes {attribute!r} (english.yaml: no do)")
    return phrase


def spoken_attribute(attribute: str) -> str:
    """An attribute as an answer says it: ``openness`` -> ``whether it was open``."""
    return words().attributes.get(attribute, {}).get("about", attribute)
