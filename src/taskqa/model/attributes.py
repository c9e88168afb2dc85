"""The time-varying object attributes of EgoTaskQA (supplementary Table 1).

Every attribute takes one of its listed values or ``unknown`` (an annotator could not tell).
An attribute that does not apply to an object (the openability of an apple) is simply absent
from that object's snapshot; this is what the released EgoTaskQA files write as ``N/A``.

``openness`` is not in Table 1 but the released annotation code carries it (raw key ``opened``),
and open/close actions need it, so taskqa models it as a fifteenth attribute.
"""

from __future__ import annotations

from enum import StrEnum

UNKNOWN = "unknown"


class Attribute(StrEnum):
    VISIBILITY_TO_ME = "visibility to me"
    VISIBILITY_TO_OTHER = "visibility to the other person"
    EDIBILITY = "edibility"
    CUTTABILITY = "cuttability"
    OPENABILITY = "openability"
    SWITCHABILITY = "switchability"
    TEMPERATURE = "temperature"
    POWEREDNESS = "poweredness"
    COOKEDNESS = "cookedness"
    WRAPPEDNESS = "wrappedness"
    EMPTINESS = "emptiness"
    MIXTURE = "state of mixture"
    CLEANLINESS = "cleanliness"
    SHAPE = "shape"
    OPENNESS = "openness"


class AttributeKind(StrEnum):
    VISIBILITY = "visibility"
    AFFORDANCE = "affordance"
    STATUS = "status"


ATTRIBUTE_VALUES: dict[Attribute, tuple[str, ...]] = {
    Attribute.VISIBILITY_TO_ME: ("visible", "invisible"),
    Attribute.VISIBILITY_TO_OTHER: ("visible", "invisible"),
    Attribute.EDIBILITY: ("edible", "inedible"),
    Attribute.CUTTABILITY: ("cuttable", "not cuttable"),
    Attribute.OPENABILITY: ("openable", "not openable"),
    Attribute.SWITCHABILITY: ("switchable", "not switchable"),
    Attribute.TEMPERATURE: ("boiled", "room temperature"),
    Attribute.POWEREDNESS: ("on", "off"),
    Attribute.COOKEDNESS: ("cooked", "raw"),
    Attribute.WRAPPEDNESS: ("wrapped", "unwrapped"),
    Attribute.EMPTINESS: ("empty", "full"),
    Attribute.MIXTURE: ("mixing", "not mixing"),
    Attribute.CLEANLINESS: ("clean", "dirty"),
    Attribute.SHAPE: ("whole", "part", "diced", "fluid"),
    Attribute.OPENNESS: ("open", "closed"),
}

ATTRIBUTE_KINDS: dict[Attribute, AttributeKind] = {
    Attribute.VISIBILITY_TO_ME: AttributeKind.VISIBILITY,
    Attribute.VISIBILITY_TO_OTHER: AttributeKind.VISIBILITY,
    Attribute.EDIBILITY: AttributeKind.AFFORDANCE,
    Attribute.CUTTABILITY: AttributeKind.AFFORDANCE,
    Attribute.OPENABILITY: AttributeKind.AFFORDANCE,
    Attribute.SWITCHABILITY: AttributeKind.AFFORDANCE,
}

# Visibility depends on where the agents look, not on what an action did, so it is exempt
# from the state-continuity check between consecutive actions on one object.
VIEWPOINT_ATTRIBUTES = frozenset({Attribute.VISIBILITY_TO_ME, Attribute.VISIBILITY_TO_OTHER})


def attribute_kind(attribute: Attribute) -> AttributeKind:
    return ATTRIBUTE_KINDS.get(attribute, AttributeKind.STATUS)


def allowed_values(attribute: Attribute) -> tuple[str, ...]:
    """The values an annotation of ``attribute`` may take, ``unknown`` included."""
    return (*ATTRIBUTE_VALUES[attribute], UNKNOWN)
