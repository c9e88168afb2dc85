"""The physics scenes' camera as geometry: what is in its picture, where, and past which edge.

The layout (where objects rest and where thrown ones start), the simulator's
``inside_camera_view`` flag, the enter/exit events' side and the video all use this one camera,
read from ``physics/looks/clevrer.yaml``, so "the sphere enters from the left" is what the video
shows: it comes in through the picture's left edge at the frame the annotation says.

Pure numpy (no GL, no pybullet), so the simulator and the event code can use it cheaply.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import yaml

Edge = str  # "left", "right", "top" or "bottom": an edge of the picture


@dataclass(frozen=True)
class FrameCamera:
    """A pinhole camera: position, viewing direction, the picture's up, lens and picture size."""

    eye: tuple[float, float, float]
    forward: tuple[float, float, float]
    up: tuple[float, float, float]
    lens_mm: float
    sensor_width_mm: float
    width: int
    height: int

    @property
    def half_width(self) -> float:
        """tan of half the horizontal field of view (the sensor fits the wider side)."""
        return self.sensor_width_mm / 2 / self.lens_mm

    @property
    def half_height(self) -> float:
        return self.half_width * self.height / self.width

    @property
    def vertical_fov(self) -> float:
        return math.degrees(2 * math.atan(self.half_height))

    def _axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        forward = np.asarray(self.forward, dtype=np.float64)
        forward /= np.linalg.norm(forward)
        right = np.cross(forward, np.asarray(self.up, dtype=np.float64))
        right /= np.linalg.norm(right)
        return forward, right, np.cross(right, forward)

    def normalised(self, point: Sequence[float]) -> tuple[float, float, float]:
        """(u, v, depth): u, v in [-1, 1] inside the picture (u right, v up); depth in metres."""
        forward, right, up = self._axes()
        offset = np.asarray(point[:3], dtype=np.float64) - np.asarray(self.eye)
        depth = float(offset @ forward)
        if depth <= 0:
            return (math.inf, math.inf, depth)
        u = float(offset @ right) / depth / self.half_width
        v = float(offset @ up) / depth / self.half_height
        return (u, v, depth)

    def sees(self, point: Sequence[float], margin: float = 0.0) -> bool:
        """Whether a point lies in the picture; a positive ``margin`` (metres at the point's
        depth) asks for that much room inside the edges, a negative one lets it lie outside."""
        u, v, depth = self.normalised(point)
        if depth <= 0:
            return False
        du = margin / depth / self.half_width
        dv = margin / depth / self.half_height
        return abs(u) <= 1 - du and abs(v) <= 1 - dv

    def edge(self, point: Sequence[float]) -> Edge:
        """The picture edge nearest to a point, or the one it lies beyond (the farther out)."""
        u, v, _ = self.normalised(point)
        if not (math.isfinite(u) and math.isfinite(v)):
            return "bottom"  # behind the camera: it left under the picture's lower edge
        if abs(u) >= abs(v):
            return "right" if u > 0 else "left"
        return "top" if v > 0 else "bottom"

    def floor_point(self, u: float, v: float, height: float) -> tuple[float, float] | None:
        """Where the ray through picture point (u, v) meets the plane z = ``height``; None
        when the ray does not come down to it."""
        forward, right, up = self._axes()
        ray = forward + right * u * self.half_width + up * v * self.half_height
        if ray[2] >= 0:
            return None
        along = (height - self.eye[2]) / ray[2]
        return (self.eye[0] + along * ray[0], self.eye[1] + along * ray[1])


def _triple(values: Any) -> tuple[float, float, float]:
    x, y, z = (float(v) for v in values)
    return (x, y, z)


def camera_from(raw: dict[str, Any]) -> FrameCamera:
    """The ``camera`` section of a physics look."""
    return FrameCamera(
        eye=_triple(raw["eye"]),
        forward=_triple(raw["forward"]),
        up=_triple(raw["up"]),
        lens_mm=float(raw["lens_mm"]),
        sensor_width_mm=float(raw["sensor_width_mm"]),
        width=int(raw["width"]),
        height=int(raw["height"]),
    )


@cache
def look_data() -> dict[str, Any]:
    """The built-in CLEVRER look file, parsed (``physics/looks/clevrer.yaml``)."""
    text = resources.files("taskqa.physics").joinpath("looks/clevrer.yaml").read_text()
    raw: dict[str, Any] = yaml.safe_load(text)
    return raw


@cache
def scene_camera() -> FrameCamera:
    """The camera every physics scene is laid out for, simulated against and drawn through."""
    return camera_from(look_data()["camera"])
