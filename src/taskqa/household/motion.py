"""Every action as motion: where the acting person's hand is while an action runs.

A recording says what changed and when, not how the hands moved, so an action used to show
only as its effect at its midpoint, and a first-person camera could stand still for the whole
of a long action. Here the hand that does an action reaches out to what the person looks at
(the action's main thing, ``gaze.Director``), works there, and comes back; how it works
depends on the verb: strokes side to side for wiping, sweeping, dusting and washing, circles
for stirring and mixing, chops for cutting, a lift for pouring, filling, drinking and eating,
and a small working motion for everything else. Carried things ride on the hand, so a poured
carton rises over the cup and a wiped cloth travels over the table. A failed or partial
action makes the same attempt: the hand goes out and comes back.

The motion is a function of the time since the action started, with frequencies chosen so
that frames 0.5 s apart (the default 2 fps) never land on the same phase twice in a row.
"""

from __future__ import annotations

import math

from taskqa.render.easing import ease

STROKE = {
    **dict.fromkeys(("wipe", "clean", "sweep", "dust", "wash", "scrub"), "stroke"),
    **dict.fromkeys(("stir", "mix", "blend", "whisk", "cook"), "circle"),
    **dict.fromkeys(("cut", "chop", "slice", "dice", "peel"), "chop"),
    **dict.fromkeys(("pour", "fill", "water", "drink", "eat", "taste"), "lift"),
}
OUT, BACK = 0.3, 0.3  # shares of an action spent reaching out and coming back
STILL_HANDS = frozenset({"watch", "sit", "stand-up"})  # the body does these, not a hand
STROKE_HZ, CIRCLE_HZ, CHOP_HZ, WORK_HZ = 1.3, 0.8, 1.15, 0.7


def reach(progress: float) -> float:
    """How far out the hand is (0: at rest, 1: at the thing) at ``progress`` of the action."""
    u = min(1.0, max(0.0, progress))
    if u < OUT:
        return 0.5 - 0.5 * math.cos(math.pi * u / OUT)
    if u > 1.0 - BACK:
        return 0.5 + 0.5 * math.cos(math.pi * (u - 1.0 + BACK) / BACK)
    return 1.0


def hand_motion(verb: str, start: float, end: float, t: float) -> tuple[float, float, float]:
    """(reach 0..1, sideways metres, upwards metres) of the hand doing ``verb`` at ``t``."""
    span = max(end - start, 1e-6)
    out = reach((t - start) / span)
    elapsed = t - start
    kind = STROKE.get(verb, "work")
    if verb in STILL_HANDS:
        return 0.0, 0.0, 0.0
    if kind == "stroke":
        return out, 0.08 * out * math.sin(2 * math.pi * STROKE_HZ * elapsed), 0.0
    if kind == "circle":
        angle = 2 * math.pi * CIRCLE_HZ * elapsed
        return out, 0.05 * out * math.cos(angle), 0.04 * out * math.sin(angle)
    if kind == "chop":
        return out, 0.0, 0.07 * out * abs(math.sin(2 * math.pi * CHOP_HZ * elapsed))
    if kind == "lift":
        return out, 0.02 * out * math.sin(2 * math.pi * WORK_HZ * elapsed), 0.12 * out
    return out, 0.03 * out * math.sin(2 * math.pi * WORK_HZ * elapsed), 0.0


SWINGS = frozenset({"open", "close"})  # verbs whose doors, lids and drawers move over the action


def opening_share(verb: str, outcome: str, start: float, end: float, t: float) -> float | None:
    """How far open (0 shut, 1 open) a thing is at ``t`` while ``verb`` runs on it: an opening
    swings from shut to open, a closing back; a failed try moves a quarter of the way and falls
    back (a failed opening stays shut, a failed closing stays open, as the annotation says), a
    partial one stops half way. None outside the action or for other verbs."""
    if verb not in SWINGS or not start <= t <= end:
        return None
    u = (t - start) / max(end - start, 1e-6)
    eased = ease(u)
    if outcome == "failed":
        dip = 0.25 * math.sin(math.pi * u)
        return dip if verb == "open" else 1.0 - dip
    reach = 0.5 if outcome == "partial" else 1.0
    return reach * eased if verb == "open" else 1.0 - reach * eased
