"""Alternative routes: a step's gets re-pointed at where its things really are.

A step is written for the domain's default places ("Open [fridge]", "Get [milk] from [fridge]",
"Close [fridge]?"). When the milk started on the counter (a placement) or the other person put
the coffee jar away (an interruption), the person takes it from where it is: the get names the
real holder, opening and closing that holder when it opens, and the opening and closing of the
written holder that served only that get are left out. So the same step reads "open the fridge,
get the milk" in one episode and just "get the milk from the counter" in another.
"""

from __future__ import annotations

from taskqa.model import Attribute
from taskqa.simulation.domain import Domain, GroundAction, bind_action, ground_action
from taskqa.simulation.rules import LocatedIn
from taskqa.simulation.world import WorldState

OPEN, CLOSE = "open", "close"  # the verbs a re-pointed get opens and closes its holder with


def routed(
    state: WorldState, domain: Domain, actions: tuple[GroundAction, ...]
) -> tuple[GroundAction, ...]:
    """``actions`` as done from ``state``: unchanged where every thing is where they say."""
    moved: dict[str, str] = {}  # written holder -> holder a get now uses instead
    out: list[GroundAction] = []
    for action in actions:
        real = _real_source(state, domain, action)
        if real is None:
            out.append(action)
            continue
        written = action.slots.source[0]
        moved[written] = real
        opens = Attribute.OPENNESS in state.attributes.get(real, {}) and {OPEN, CLOSE} <= set(
            domain.schemas
        )
        if opens:
            out.append(ground_action(f"Open [{real}]"))
        out.append(bind_action(action, {written: real}))
        if opens:
            out.append(ground_action(f"Close [{real}]?"))
    if not moved:
        return actions
    # The written holder's own opening and closing served only the re-pointed gets unless
    # another action of the step still uses it.
    still_used = {
        o for a in out if a.verb not in (OPEN, CLOSE) for o in a.slots.objects() if o in moved
    }
    return tuple(
        a
        for a in out
        if not (
            a.verb in (OPEN, CLOSE)
            and len(a.slots.objects()) == 1
            and (a.slots.patient or [""])[0] in set(moved) - still_used
            and a.slots.patient[0] not in moved.values()
        )
    )


def _real_source(state: WorldState, domain: Domain, action: GroundAction) -> str | None:
    """For an action that takes its patient out of its source (a get), the holder the
    patient is really at when that is another one; None otherwise."""
    schema = domain.schemas.get(action.verb)
    if schema is None or LocatedIn("patient", "source") not in schema.requires:
        return None
    if len(action.slots.patient) != 1 or len(action.slots.source) != 1:
        return None
    thing, written = action.slots.patient[0], action.slots.source[0]
    place = state.location.get(thing)
    if place is None or place == written or place in state.agents:
        return None  # where the step says, or in someone's hands (a hand-over's business)
    # Only between the places the domain lets the thing start at: a get never fetches a
    # tomato back out of the salad bowl it was put in too early (an order error stays one).
    spec = domain.spec.objects.get(thing)
    declared = {spec.at, *domain.places(thing)} if spec is not None else set()
    return place if {place, written} <= declared else None


def routed_objects(
    state: WorldState, domain: Domain, actions: tuple[GroundAction, ...]
) -> set[str]:
    """Every object the actions touch, as written or as re-pointed from ``state``: what a step
    must find free (a knife taken from the cutting board needs the board too)."""
    written = {o for action in actions for o in action.slots.objects()}
    return written | {
        o for action in routed(state, domain, actions) for o in action.slots.objects()
    }
