"""The other person acting on shared things: a domain file's ``interruptions``.

In a two-person episode, the person whose turn it is sometimes first deals with something the
other left behind: closes the fridge left open, turns off the running tap, puts the coffee jar
back into the cupboard. Each is declared as data::

    interruptions:
      - {when: fridge.openness == open, do: ["Close [fridge]"]}
      - {when: coffee-powder at counter,
         do: ["Get [coffee-powder] from [counter]", "Open [cupboard]",
              "Put [coffee-powder] to [cupboard]", "Close [cupboard]?"]}

``when`` is one condition on one object: ``<object>.<attribute> == <value>`` (or ``!=``), or
``<object> at <holder>`` (the thing rests in or on the holder). ``do`` is the actions, written
as in task steps; one whose result already holds is skipped, as in a step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from taskqa.model import Attribute
from taskqa.simulation.rules import RuleError, attribute_named, parse_condition

_COMPARE = re.compile(r"^([a-z0-9-]+)\.([a-z ]+?)\s*(==|!=)\s*(.+?)$")
_AT = re.compile(r"^([a-z0-9-]+)\s+at\s+([a-z0-9-]+)$")


class InterruptionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    when: str = Field(
        description="'<object>.<attribute> == <value>', '... != ...' or '<object> at <holder>'."
    )
    do: list[str] = Field(min_length=1, description="The actions, as in a task step.")


@dataclass(frozen=True)
class WorldCondition:
    """One fact about one object of the room: an attribute's value, or where it rests."""

    obj: str
    attribute: Attribute | None  # None: ``value`` is the holder the object rests at
    value: str
    negated: bool = False

    def holds(
        self, attributes: Mapping[str, Mapping[Attribute, str]], location: Mapping[str, str]
    ) -> bool:
        """Whether it holds in a world of these attribute values and locations; an object not
        in the episode (an absent distractor) satisfies nothing."""
        if self.obj not in attributes:
            return False
        if self.attribute is None:
            return location.get(self.obj) == self.value
        current = attributes[self.obj].get(self.attribute)
        return current is not None and (current == self.value) != self.negated


def parse_world_condition(text: str) -> WorldCondition:
    """``fridge.openness == open`` or ``milk at counter``; RuleError when it reads as neither."""
    text = " ".join(text.split())
    if match := _AT.match(text):
        return WorldCondition(match.group(1), None, match.group(2))
    if match := _COMPARE.match(text):
        obj, name, operator, value = match.groups()
        # the rules' own parser checks the attribute and its value
        checked = parse_condition(f"patient.{name} {operator} {value}")
        attribute = attribute_named(name)
        return WorldCondition(obj, attribute, getattr(checked, "value", value), operator == "!=")
    raise RuleError(
        f"cannot read condition {text!r}; expected '<object>.<attribute> == <value>', "
        "'<object>.<attribute> != <value>' or '<object> at <holder>'"
    )
