"""What a household render draws: the views, their file names, and ``RenderOptions``."""

from __future__ import annotations

from dataclasses import dataclass

THIRD = "third"
FIRST = "first"
VIEWS = (FIRST, THIRD)


@dataclass(frozen=True)
class RenderOptions:
    """How a household recording is drawn: frame rate and size, views, extra passes, look."""

    fps: float = 2.0
    width: int = 224
    height: int = 224
    views: tuple[str, ...] = VIEWS
    masks: bool = False
    backend: str = "tiny"  # gl or tiny, as engine.resolve_backend chose it
    depth: bool = False  # per-frame depth in millimetres, from the same pass as the masks
    appearance: str = "textured"  # the GL back-end's look: flat, shaded or textured
    # seen, or held-out: colours and surfaces no seen render uses (look_spec.LookSpec.held_out)
    appearance_set: str = "seen"


def view_name(agent: str | None) -> str:
    """A view's name (and its files' stem): ``<agent>-first``, or ``third`` for the room's."""
    return f"{agent}-{FIRST}" if agent is not None else THIRD
