"""Event descriptions in the varied wording of CLEVRER-Humans, from templates.

Human annotators described the same physical happening with many verbs (hit, bump, strike,
sideswipe, ...) and tenses. Each event kind has several templates; one is drawn per event with a
seeded generator. A grammar filter then drops sentences with a doubled word or a dangling final
word ("from", "to", "at", "is", ...), as the supplementary's post-processor does, and the next
template is tried instead.
"""

from __future__ import annotations

import random
import re
from itertools import pairwise

from taskqa.model.physics import EventKind, PhysicalEvent, PhysicalObject
from taskqa.physics.events import Event

SHAPE_WORDS = {"sphere": ("sphere", "ball"), "cube": ("cube", "block"), "cylinder": ("cylinder",)}
SIDE_WORDS = {"left": "left", "right": "right", "top": "top", "bottom": "bottom"}
DANGLING_ENDINGS = frozenset({"from", "to", "at", "is", "the", "of", "into", "with", "by", "and"})

# {a}, {b}: object phrases; {side}: entry or exit side; {dir}: a direction; {detail}: raw detail.
TEMPLATES: dict[EventKind, tuple[str, ...]] = {
    EventKind.ENTER: (
        "{a} comes in from the {side}",
        "{a} enters from the {side}",
        "{a} came from the {side}",
        "{a} travels into the scene from the {side}",
        "{a} is thrown in from the {side}",
        "{a} heads in from the {side}",
        "{a} enters the scene",
    ),
    EventKind.EXIT: (
        "{a} leaves the scene",
        "{a} exits to the {side}",
        "{a} goes out of view on the {side}",
        "{a} left the scene",
        "{a} heads off to the {side}",
    ),
    EventKind.COLLISION: (
        "{a} hits {b}",
        "{a} collides with {b}",
        "{a} bumps into {b}",
        "{a} strikes {b}",
        "{a} touches {b}",
        "{a} hit {b}",
        "{a} collided with {b}",
        "{b} is struck by {a}",
    ),
    EventKind.MOVE_TOGETHER: (
        "{a} and {b} move together",
        "{a} travels along with {b}",
    ),
    EventKind.START_MOVING: (
        "{a} starts moving",
        "{a} begins to move {dir}",
        "{a} moved",
        "{a} starts to roll",
        "{a} goes {dir}",
    ),
    EventKind.STOP_MOVING: (
        "{a} stops",
        "{a} comes to a halt",
        "{a} stopped moving",
        "{a} stands still",
    ),
    EventKind.SPEED_UP: ("{a} speeds up", "{a} moves faster"),
    EventKind.SLOW_DOWN: ("{a} slows down", "{a} loses speed", "{a} slowed"),
    EventKind.TURN: (
        "{a} changes direction",
        "{a} turns {dir}",
        "{a} changed direction to the {dir}",
        "{a} is deflected {dir}",
    ),
    EventKind.SPIN: ("{a} spins {detail}", "{a} starts to spin", "{a} spun"),
}
COLLISION_STYLE_TEMPLATES = {
    "bounce": ("{a} bounces off {b}", "{a} and {b} bounce apart"),
    "push": ("{a} pushes {b}", "{a} sideswipes {b}"),
}
DIRECTION_WORDS = {"right": "right", "left": "left", "up": "upward", "down": "downward", "": ""}


def passes_grammar_check(sentence: str) -> bool:
    """False for a doubled word, an empty slot or a dangling final word."""
    words = re.findall(r"[a-z']+", sentence.lower())
    if not words or "{" in sentence or "  " in sentence:
        return False
    if any(first == second for first, second in pairwise(words)):
        return False
    return words[-1] not in DANGLING_ENDINGS


def object_phrase(obj: PhysicalObject, rng: random.Random, with_material: bool) -> str:
    noun = rng.choice(SHAPE_WORDS.get(obj.shape, (obj.shape,)))
    material = f"{obj.material} " if with_material else ""
    return f"the {obj.color} {material}{noun}"


def describe(event: Event, objects: list[PhysicalObject], rng: random.Random) -> str:
    """One description of ``event`` that passes the grammar check."""
    templates = list(TEMPLATES[event.kind])
    if event.kind == EventKind.COLLISION and event.detail in COLLISION_STYLE_TEMPLATES:
        templates += COLLISION_STYLE_TEMPLATES[event.detail]
    if event.kind == EventKind.START_MOVING and objects[event.objects[0]].shape != "sphere":
        templates.remove("{a} starts to roll")  # only balls roll
    rng.shuffle(templates)
    ambiguous = _ambiguous_colors(objects)
    phrases = [
        object_phrase(objects[i], rng, objects[i].color in ambiguous or rng.random() < 0.2)
        for i in event.objects
    ]
    for template in templates:
        sentence = template.format(
            a=phrases[0],
            b=phrases[1] if len(phrases) > 1 else "",
            side=SIDE_WORDS.get(event.detail, ""),
            dir=DIRECTION_WORDS.get(event.detail, ""),
            detail=event.detail,
        ).strip()
        if passes_grammar_check(sentence):
            return sentence
    raise ValueError(f"no template for {event} passes the grammar check")


def _ambiguous_colors(objects: list[PhysicalObject]) -> set[str]:
    seen: dict[str, int] = {}
    for obj in objects:
        seen[obj.color] = seen.get(obj.color, 0) + 1
    return {color for color, count in seen.items() if count > 1}


def physical_events(
    events: list[Event], objects: list[PhysicalObject], rng: random.Random, prefix: str
) -> list[PhysicalEvent]:
    """The events in the shared data model, each with a description, ids ``prefix-N``."""
    return [
        PhysicalEvent(
            id=f"{prefix}-{index}",
            kind=event.kind,
            frame=event.frame,
            objects=list(event.objects),
            description=describe(event, objects, rng),
        )
        for index, event in enumerate(events)
    ]
