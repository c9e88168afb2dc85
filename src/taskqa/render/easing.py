"""Easing and interpolation: how every world's moving things get from one pose to the next.

The household's carried things and gaze glide with ``ease`` (a cosine: slow, fast, slow); the
EgoTV kitchen's walks and doors with ``smoothstep``. Both worlds blend points with ``lerp``.
"""

from __future__ import annotations

import math

from taskqa.render.engine import Vec3


def ease(u: float) -> float:
    """Cosine easing of a share ``u`` (clamped to [0, 1]): 0 at 0, 1 at 1, flat at both ends."""
    return 0.5 - 0.5 * math.cos(math.pi * min(1.0, max(0.0, u)))


def smoothstep(u: float) -> float:
    """The cubic ``3u² - 2u³`` of a share ``u`` (clamped to [0, 1]): flat at both ends."""
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


def lerp(a: Vec3, b: Vec3, u: float) -> Vec3:
    """The point ``u`` of the way from ``a`` to ``b``."""
    return (a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u, a[2] + (b[2] - a[2]) * u)


def lerp2(a: tuple[float, float], b: tuple[float, float], u: float) -> tuple[float, float]:
    """``lerp`` on the floor plane: the point ``u`` of the way from ``a`` to ``b``."""
    return (a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u)
