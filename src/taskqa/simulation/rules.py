"""The small sentence language of action preconditions and effects in domain files.

Conditions: ``slot.attribute == value``, ``slot.attribute != value``, ``slot in slot``,
``slot held``. Effects: ``slot.attribute = value``, ``slot.attribute = slot.attribute``,
``slot -> slot``, ``slot -> hand``. Slots are patient, source, destination and instrument.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from taskqa.model import Attribute, allowed_values

SLOTS = ("patient", "source", "destination", "instrument")
_SLOT = r"(patient|source|destination|instrument)"
_ATTRIBUTE = r"([a-z ]+?)"
_VALUE = r"(.+?)"

_COMPARE = re.compile(rf"^{_SLOT}\.{_ATTRIBUTE}\s*(==|!=)\s*{_VALUE}$")
_LOCATED = re.compile(rf"^{_SLOT} in {_SLOT}$")
_HELD = re.compile(rf"^{_SLOT} held$")
_COPY = re.compile(rf"^{_SLOT}\.{_ATTRIBUTE}\s*=\s*{_SLOT}\.{_ATTRIBUTE}$")
_ASSIGN = re.compile(rf"^{_SLOT}\.{_ATTRIBUTE}\s*=\s*{_VALUE}$")
_MOVE = re.compile(rf"^{_SLOT}\s*->\s*({_SLOT[1:-1]}|hand)$")


class RuleError(ValueError):
    pass


def attribute_named(name: str) -> Attribute:
    """Domain files name attributes by their short key: ``openness``, ``mixture``, ..."""
    key = name.strip().replace(" ", "_").upper()
    try:
        return Attribute[key]
    except KeyError:
        names = ", ".join(a.name.lower() for a in Attribute)
        raise RuleError(f"unknown attribute {name!r}; expected one of {names}") from None


def _checked_value(attribute: Attribute, value: str) -> str:
    value = value.strip()
    if value not in allowed_values(attribute):
        raise RuleError(
            f"{value!r} is not a value of {attribute.name.lower()}; "
            f"expected one of {', '.join(allowed_values(attribute))}"
        )
    return value


@dataclass(frozen=True)
class AttributeIs:
    slot: str
    attribute: Attribute
    value: str
    negated: bool = False


@dataclass(frozen=True)
class LocatedIn:
    slot: str
    container_slot: str


@dataclass(frozen=True)
class HeldByActor:
    slot: str


Condition = AttributeIs | LocatedIn | HeldByActor


@dataclass(frozen=True)
class SetAttribute:
    slot: str
    attribute: Attribute
    value: str


@dataclass(frozen=True)
class CopyAttribute:
    slot: str
    attribute: Attribute
    from_slot: str
    from_attribute: Attribute


@dataclass(frozen=True)
class MoveTo:
    slot: str
    target_slot: str  # a slot name, or "hand" for the acting agent's hands


Effect = SetAttribute | CopyAttribute | MoveTo


def parse_condition(text: str) -> Condition:
    text = text.strip()
    if match := _COMPARE.match(text):
        slot, name, operator, value = match.groups()
        attribute = attribute_named(name)
        return AttributeIs(slot, attribute, _checked_value(attribute, value), operator == "!=")
    if match := _LOCATED.match(text):
        return LocatedIn(match.group(1), match.group(2))
    if match := _HELD.match(text):
        return HeldByActor(match.group(1))
    raise RuleError(
        f"cannot read condition {text!r}; expected 'slot.attribute == value', "
        "'slot.attribute != value', 'slot in slot' or 'slot held'"
    )


def parse_effect(text: str) -> Effect:
    text = text.strip()
    if match := _COPY.match(text):
        slot, name, from_slot, from_name = match.groups()
        return CopyAttribute(slot, attribute_named(name), from_slot, attribute_named(from_name))
    if match := _ASSIGN.match(text):
        slot, name, value = match.groups()
        attribute = attribute_named(name)
        return SetAttribute(slot, attribute, _checked_value(attribute, value))
    if match := _MOVE.match(text):
        return MoveTo(match.group(1), match.group(2))
    raise RuleError(
        f"cannot read effect {text!r}; expected 'slot.attribute = value', "
        "'slot.attribute = slot.attribute', 'slot -> slot' or 'slot -> hand'"
    )
