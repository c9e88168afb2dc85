"""Raw keys and values of EgoTaskQA world-state files, and how they map onto taskqa's model.

A raw fluent is a key of a segment's ``state`` dict. Every fluent but ``shape`` is a yes/no
question; ``yes`` maps to the attribute's first value in :data:`ATTRIBUTE_VALUES` and ``no`` to
its second (``emptiness: yes`` is ``empty``). Two raw values mean "no answer": ``N/A`` (the
attribute does not apply, which taskqa models as an absent attribute) and ``unknow`` (spelled so
in the released files; taskqa's ``unknown``).
"""

from __future__ import annotations

from collections.abc import Mapping

from taskqa.model import ATTRIBUTE_VALUES, UNKNOWN, Attribute, RelationKind

# Files of a folder, relative to it. EgoTaskQA's generation code reads the first four (it loads
# every file under metadata/); the last is taskqa's own and stays out of metadata/ for that reason.
PARSED = "parsed.json"
PER_ACT_INTERVALS = "per_act_intervals.json"
LENGTHS = "metadata/lengths.json"
HOIS = "metadata/hois.json"
META = "taskqa_meta.json"

PEOPLE = ("P1", "P2")
LEMMA_FPS = 24.0

YES = "yes"
NO = "no"
NOT_APPLICABLE = "N/A"
RAW_UNKNOWN = "unknow"
BINARY_VALUES = (YES, NO, NOT_APPLICABLE, RAW_UNKNOWN)

PLAIN_VISIBILITY = "visible"
SHAPE = "shape"

# Yes/no fluents other than the two viewpoint-relative visibilities.
BINARY_FLUENTS: dict[str, Attribute] = {
    "edible": Attribute.EDIBILITY,
    "cuttable": Attribute.CUTTABILITY,
    "openable": Attribute.OPENABILITY,
    "turnable": Attribute.SWITCHABILITY,
    "boiled": Attribute.TEMPERATURE,
    "on": Attribute.POWEREDNESS,
    "cooked": Attribute.COOKEDNESS,
    "wrapped": Attribute.WRAPPEDNESS,
    "emptiness": Attribute.EMPTINESS,
    "mixing": Attribute.MIXTURE,
    "cleanliness": Attribute.CLEANLINESS,
    "opened": Attribute.OPENNESS,
}

# EgoTaskQA's fluent printer looks these two up as "emptiness" and "cleanliness" and fails on any
# other key, so the writer uses those spellings; the short forms are accepted when reading.
FLUENT_ALIASES: dict[str, str] = {"empty": "emptiness", "clean": "cleanliness"}

# The order object segments list their fluents in.
WRITTEN_FLUENTS: tuple[str, ...] = (
    "visible_to_P1",
    "visible_to_P2",
    "edible",
    "cuttable",
    "openable",
    "turnable",
    "boiled",
    "on",
    "cooked",
    "wrapped",
    "emptiness",
    "mixing",
    "cleanliness",
    SHAPE,
    "opened",
)

RELATION_KEYS: dict[RelationKind, str] = {
    RelationKind.ACTING: "a_rel",
    RelationKind.SPATIAL: "s_rel",
    RelationKind.MULTI_AGENT: "m_rel",
}
# Writing lists relations in this order of kinds, and reading returns them in the order of the
# lists in the file, so only other interleavings need recording in taskqa_meta.json.
KIND_ORDER: tuple[RelationKind, ...] = tuple(RELATION_KEYS)

# taskqa relation name -> the name EgoTaskQA's code tests for when it answers "is ... aware".
RELATION_NAMES_OUT: dict[str, str] = {"aware-of-other-action": "knows-the-other-person-action"}
RELATION_NAMES_IN: dict[str, str] = {raw: name for name, raw in RELATION_NAMES_OUT.items()}


def other_person(pid: str) -> str:
    return PEOPLE[1] if pid == PEOPLE[0] else PEOPLE[0]


def visibility_key(attribute: Attribute, pid: str) -> str:
    """The raw key of a viewpoint attribute seen from the acting person ``pid``."""
    viewer = pid if attribute is Attribute.VISIBILITY_TO_ME else other_person(pid)
    return f"visible_to_{viewer}"


def fluent_attribute(key: str, pid: str) -> Attribute | None:
    """The attribute a raw key stands for in an action by ``pid``; None for an unknown key."""
    key = FLUENT_ALIASES.get(key, key)
    if key in BINARY_FLUENTS:
        return BINARY_FLUENTS[key]
    if key == SHAPE:
        return Attribute.SHAPE
    if key == f"visible_to_{pid}":
        return Attribute.VISIBILITY_TO_ME
    if key == f"visible_to_{other_person(pid)}":
        return Attribute.VISIBILITY_TO_OTHER
    return None


def raw_values(attribute: Attribute) -> tuple[str, ...]:
    """Every raw value a fluent of ``attribute`` may take."""
    if attribute is Attribute.SHAPE:
        return (*ATTRIBUTE_VALUES[Attribute.SHAPE], NOT_APPLICABLE, RAW_UNKNOWN)
    return BINARY_VALUES


def encode_value(attribute: Attribute, value: str) -> str:
    if value == UNKNOWN:
        return RAW_UNKNOWN
    if attribute is Attribute.SHAPE:
        return value
    return YES if value == ATTRIBUTE_VALUES[attribute][0] else NO


def decode_value(attribute: Attribute, raw: str) -> str | None:
    """taskqa's value for a raw one already checked against :func:`raw_values`; None for N/A."""
    if raw == NOT_APPLICABLE:
        return None
    if raw == RAW_UNKNOWN:
        return UNKNOWN
    if attribute is Attribute.SHAPE:
        return raw
    return ATTRIBUTE_VALUES[attribute][0 if raw == YES else 1]


def encode_state(attributes: Mapping[Attribute, str], pid: str, complete: bool) -> dict[str, str]:
    """The raw ``state`` dict; ``complete`` lists every fluent, N/A where none applies."""
    state = {key: NOT_APPLICABLE for key in WRITTEN_FLUENTS} if complete else {}
    for attribute, value in sorted(attributes.items(), key=lambda item: _attribute_rank(item[0])):
        state[_raw_key(attribute, pid)] = encode_value(attribute, value)
    return state


def relation_kind(key: str) -> RelationKind | None:
    """The kind of relations listed under ``key`` of a segment's ``rel``; None if not a list key.

    The released files' multi-agent key is not public. EgoTaskQA's own code treats every key but
    ``a_rel`` and ``s_rel`` as multi-agent, so any other ``*_rel`` key is read that way.
    """
    for kind, name in RELATION_KEYS.items():
        if key == name and kind is not RelationKind.MULTI_AGENT:
            return kind
    return RelationKind.MULTI_AGENT if key.endswith("_rel") else None


def _raw_key(attribute: Attribute, pid: str) -> str:
    if attribute in (Attribute.VISIBILITY_TO_ME, Attribute.VISIBILITY_TO_OTHER):
        return visibility_key(attribute, pid)
    if attribute is Attribute.SHAPE:
        return SHAPE
    return next(key for key, known in BINARY_FLUENTS.items() if known is attribute)


def _attribute_rank(attribute: Attribute) -> int:
    return list(Attribute).index(attribute)
