"""LEMMA-style action strings: ``Put [juicer] to [juicer-base] using [hand]``.

A string is a verb followed by bracketed object groups; the word before each bracket names the
slot (no word: patient; ``from``: source; ``to``/``into``/``onto``/``on``/``in``: destination;
``using``/``with``: instrument). Several objects in one slot are comma-separated inside one
bracket pair: ``Get [meat1, meat2] from [fridge]``.

``hand`` is the implicit instrument: the reader drops ``[hand]`` from the instrument slot and the
writer prints ``using [hand]`` for a verb whose template says ``using {instrument}`` and whose
instrument slot is empty, so strings and slots convert both ways without loss.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from taskqa.model import ActionSlots

HAND = "hand"
SLOT_NAMES = ("patient", "source", "destination", "instrument")
PREPOSITION_SLOTS: dict[str, str] = {
    "from": "source",
    "to": "destination",
    "into": "destination",
    "onto": "destination",
    "on": "destination",
    "in": "destination",
    "at": "destination",
    "using": "instrument",
    "with": "instrument",
}
DEFAULT_TEMPLATE = "{verb} {patient} from {source} to {destination} using {instrument}"

_GROUP = re.compile(r"\[([^\[\]]*)\]")
_PLACEHOLDER = re.compile(r"\{(patient|source|destination|instrument)\}")


class ActionStringError(ValueError):
    pass


def parse_action(text: str) -> tuple[str, ActionSlots]:
    """Split an action string into its verb and slots."""
    text = text.strip()
    first = _GROUP.search(text)
    head = text[: first.start()] if first else text
    words = head.split()
    if not words:
        raise ActionStringError(f"{text!r}: expected a verb before the first [object]")
    verb = words[0].lower()
    slots: dict[str, list[str]] = {name: [] for name in SLOT_NAMES}
    cursor = text.index(words[0]) + len(words[0])
    for match in _GROUP.finditer(text):
        between = text[cursor : match.start()].split()
        slot = PREPOSITION_SLOTS.get(between[-1].lower(), "") if between else "patient"
        if not slot:
            raise ActionStringError(
                f"{text!r}: unknown preposition {between[-1]!r} before [{match.group(1)}]; "
                f"expected one of {', '.join(sorted(PREPOSITION_SLOTS))}"
            )
        names = [n.strip() for n in match.group(1).split(",") if n.strip()]
        if not names:
            raise ActionStringError(f"{text!r}: empty brackets")
        slots[slot].extend(names)
        cursor = match.end()
    if slots["instrument"] == [HAND]:
        slots["instrument"] = []
    return verb, ActionSlots(**slots)


def format_action(verb: str, slots: ActionSlots, templates: Mapping[str, str] | None = None) -> str:
    """Render ``verb`` and ``slots`` with the verb's template, dropping phrases of empty slots."""
    template = (templates or {}).get(verb, DEFAULT_TEMPLATE)
    values = {name: list(getattr(slots, name)) for name in SLOT_NAMES}
    if not values["instrument"] and "using {instrument}" in template:
        values["instrument"] = [HAND]
    pieces: list[str] = []
    # Each piece is "[preposition] {slot}" or a plain word; a slot piece vanishes when empty.
    tokens = template.replace("{verb}", _display_verb(verb)).split()
    index = 0
    while index < len(tokens):
        token = tokens[index]
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if token.lower() in PREPOSITION_SLOTS and _PLACEHOLDER.fullmatch(following):
            names = values[_PLACEHOLDER.fullmatch(following).group(1)]  # type: ignore[union-attr]
            if names:
                pieces.append(f"{token} [{', '.join(names)}]")
            index += 2
            continue
        placeholder = _PLACEHOLDER.fullmatch(token)
        if placeholder:
            names = values[placeholder.group(1)]
            if names:
                pieces.append(f"[{', '.join(names)}]")
        else:
            pieces.append(token)
        index += 1
    return " ".join(pieces)


def _display_verb(verb: str) -> str:
    return verb[:1].upper() + verb[1:]
