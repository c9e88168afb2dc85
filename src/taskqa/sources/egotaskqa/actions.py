"""Action strings of EgoTaskQA files, on top of :mod:`taskqa.sources.lemma_actions`."""

from __future__ import annotations

from collections.abc import Mapping

from taskqa.model import ActionSlots
from taskqa.sources.lemma_actions import format_action, parse_action

# LEMMA spells a few verbs as two words ("Turn on [tv] with [remote]"). Read literally, the second
# word would be taken for a preposition and the object for a destination, so the pair is joined
# into one hyphenated verb first.
PHRASAL_VERBS: dict[str, str] = {
    "turn on": "turn-on",
    "turn off": "turn-off",
    "work on": "work-on",
}


def read_action_string(text: str) -> tuple[str, ActionSlots]:
    """Verb and slots of an action string; raises ``ActionStringError`` when it does not parse."""
    stripped = text.strip()
    lowered = stripped.lower()
    for phrase, verb in PHRASAL_VERBS.items():
        if lowered == phrase or lowered.startswith(f"{phrase} "):
            stripped = verb + stripped[len(phrase) :]
            break
    return parse_action(stripped)


def write_action_string(
    verb: str, slots: ActionSlots, templates: Mapping[str, str] | None
) -> tuple[str, bool]:
    """The action string and whether reading it back gives ``verb`` and ``slots`` again."""
    text = format_action(verb, slots, templates)
    try:
        parsed = read_action_string(text)
    except ValueError:
        return text, False
    return text, parsed == (verb, slots)


def rename_slots(slots: ActionSlots, names: Mapping[str, str]) -> ActionSlots:
    """``slots`` with every object found in ``names`` replaced by its mapped name."""
    return ActionSlots(
        patient=[names.get(n, n) for n in slots.patient],
        source=[names.get(n, n) for n in slots.source],
        destination=[names.get(n, n) for n in slots.destination],
        instrument=[names.get(n, n) for n in slots.instrument],
    )


def join_tasks(tasks: list[str]) -> tuple[str, bool]:
    """The comma-separated task field and whether splitting it gives ``tasks`` again."""
    text = ",".join(tasks)
    return text, split_tasks(text) == tasks


def split_tasks(text: str) -> list[str]:
    return [task.strip() for task in text.split(",") if task.strip()]
