"""The ``--backend`` option every rendering command shares, and the line saying which one drew."""

from __future__ import annotations

from typing import Annotated

import typer

from taskqa.problems import InvalidInputError, Problem
from taskqa.terminal import console

BackendOption = Annotated[
    str,
    typer.Option(
        help="auto (gl where a headless GL context starts, else tiny), gl (moderngl on EGL: "
        "lit, shadowed, anti-aliased) or tiny (pybullet's TinyRenderer)."
    ),
]


def announce_backend(requested: str) -> str:
    """The back-end to draw with (``engine.resolve_backend``), said in one line; a bad
    ``--backend``, or ``gl`` where no GL context starts, is a problem line."""
    from taskqa.render.engine import resolve_backend

    try:
        chosen, said = resolve_backend(requested)
    except (ValueError, RuntimeError) as error:
        raise InvalidInputError([Problem("--backend", "", str(error))]) from None
    console.print(said, highlight=False)
    return chosen
