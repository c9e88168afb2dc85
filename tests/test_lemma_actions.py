from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taskqa.model import ActionSlots
from taskqa.simulation.domain import load_domain
from taskqa.sources.lemma_actions import ActionStringError, format_action, parse_action

TEMPLATES = load_domain().templates


@pytest.mark.parametrize(
    ("text", "verb", "slots"),
    [
        (
            "Put [juicer] to [juicer-base] using [hand]",
            "put",
            ActionSlots(patient=["juicer"], destination=["juicer-base"]),
        ),
        (
            "Pour from [kettle] into [mug] using [hand]",
            "pour",
            ActionSlots(source=["kettle"], destination=["mug"]),
        ),
        (
            "Get [meat1, meat2] from [fridge] using [fork]",
            "get",
            ActionSlots(patient=["meat1", "meat2"], source=["fridge"], instrument=["fork"]),
        ),
        (
            "Turn-on [tv] using [remote]",
            "turn-on",
            ActionSlots(patient=["tv"], instrument=["remote"]),
        ),
        ("Watch [tv]", "watch", ActionSlots(patient=["tv"])),
    ],
)
def test_lemma_strings_parse_into_slots(text: str, verb: str, slots: ActionSlots) -> None:
    assert parse_action(text) == (verb, slots)
    assert format_action(verb, slots, TEMPLATES) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[cup]", "expected a verb"),
        ("Put [cup] beside [sink]", "unknown preposition 'beside'"),
        ("Get [] from [fridge]", "empty brackets"),
    ],
)
def test_malformed_strings_are_rejected(text: str, message: str) -> None:
    with pytest.raises(ActionStringError, match=message):
        parse_action(text)


names = st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True), max_size=2, unique=True)


@given(verb=st.sampled_from(sorted(TEMPLATES)), data=st.data())
def test_format_then_parse_is_the_identity(verb: str, data: st.DataObject) -> None:
    template = TEMPLATES[verb]
    slots = ActionSlots(
        **{
            slot: [n for n in data.draw(names) if n != "hand"] if f"{{{slot}}}" in template else []
            for slot in ("patient", "source", "destination", "instrument")
        }
    )
    if not slots.objects():
        return
    assert parse_action(format_action(verb, slots, TEMPLATES)) == (verb, slots)
