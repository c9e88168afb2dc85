"""A headless pybullet client that draws frames: bodies, colours, cameras, RGB and instance masks.

Every world that needs pixels (household, EgoTV kitchen, physics scenes) builds its scene through
this one class. It uses pybullet's CPU renderer (``ER_TINY_RENDERER``) with shadows off: no GPU
and no system GL libraries, deterministic pixels, about 30 frames/s at 224x224 for a furnished room
on one core (measured facts: docs/rendering.md).
"""

from __future__ import annotations

import importlib
import math
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

Vec3 = tuple[float, float, float]
RGBA = tuple[float, float, float, float]


def pybullet() -> Any:
    """The pybullet module (a C extension without type information), imported on first use."""
    if "pybullet" not in sys.modules:
        quiet_pybullet()
    return importlib.import_module("pybullet")


def quiet_pybullet() -> None:
    """Import pybullet with its "pybullet build time" line (C code, on stderr) thrown away."""
    if "pybullet" in sys.modules:
        return
    with quiet_stderr():
        importlib.import_module("pybullet")


@contextmanager
def quiet_stderr() -> Iterator[None]:
    """Send file descriptor 2 to /dev/null for a while: C code that prints cannot be caught
    any other way, and the command line's stderr is for progress and problems."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


@dataclass(frozen=True)
class Camera:
    """A pinhole camera: where it is, what it looks at, and its picture."""

    eye: Vec3
    target: Vec3
    up: Vec3 = (0.0, 0.0, 1.0)
    fov: float = 60.0  # vertical field of view, degrees
    width: int = 224
    height: int = 224
    near: float = 0.05
    far: float = 30.0

    def view_matrix(self) -> list[float]:
        return list(pybullet().computeViewMatrix(self.eye, self.target, self.up))

    def projection_matrix(self) -> list[float]:
        aspect = self.width / self.height
        return list(pybullet().computeProjectionMatrixFOV(self.fov, aspect, self.near, self.far))


@dataclass(frozen=True)
class Picture:
    rgb: npt.NDArray[np.uint8]  # (height, width, 3)
    instances: npt.NDArray[np.int32]  # (height, width): body id per pixel, -1 for background
    # (height, width) metres from the camera plane, ``far`` where nothing is drawn; with masks
    depth: npt.NDArray[np.float32] | None = None


def linear_depth(buffer: npt.NDArray[np.float32], camera: Camera) -> npt.NDArray[np.float32]:
    """A depth buffer's [0, 1] values as metres along the view axis (perspective projection)."""
    near, far = camera.near, camera.far
    ndc = 2.0 * buffer.astype(np.float64) - 1.0
    metres = 2.0 * near * far / (far + near - ndc * (far - near))
    return np.minimum(metres, far).astype(np.float32)


class RenderScene:
    """A scene of coloured primitive bodies in its own DIRECT pybullet client.

    Use as a context manager so the client is always disconnected. Bodies are static (mass 0):
    the render layer places them; physics, where a world has it, runs elsewhere.
    """

    def __init__(self, background: RGBA = (0.82, 0.84, 0.86, 1.0)) -> None:
        self._p = pybullet()
        self.client: int = self._p.connect(self._p.DIRECT)
        self.background = background

    def __enter__(self) -> RenderScene:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self.client >= 0:
            self._p.disconnect(physicsClientId=self.client)
            self.client = -1

    def add_box(self, half_extents: Vec3, color: RGBA, position: Vec3, yaw: float = 0.0) -> int:
        shape = self._p.createVisualShape(
            self._p.GEOM_BOX,
            halfExtents=half_extents,
            rgbaColor=color,
            physicsClientId=self.client,
        )
        return self._body(shape, position, yaw)

    def add_cylinder(
        self, radius: float, height: float, color: RGBA, position: Vec3, yaw: float = 0.0
    ) -> int:
        shape = self._p.createVisualShape(
            self._p.GEOM_CYLINDER,
            radius=radius,
            length=height,
            rgbaColor=color,
            physicsClientId=self.client,
        )
        return self._body(shape, position, yaw)

    def add_sphere(self, radius: float, color: RGBA, position: Vec3) -> int:
        shape = self._p.createVisualShape(
            self._p.GEOM_SPHERE, radius=radius, rgbaColor=color, physicsClientId=self.client
        )
        return self._body(shape, position, 0.0)

    def _body(self, shape: int, position: Vec3, yaw: float) -> int:
        return int(
            self._p.createMultiBody(
                baseMass=0,
                baseVisualShapeIndex=shape,
                basePosition=position,
                baseOrientation=self._p.getQuaternionFromEuler((0.0, 0.0, yaw)),
                physicsClientId=self.client,
            )
        )

    def move(self, body: int, position: Vec3, yaw: float = 0.0) -> None:
        orientation = self._p.getQuaternionFromEuler((0.0, 0.0, yaw))
        self._p.resetBasePositionAndOrientation(
            body, position, orientation, physicsClientId=self.client
        )

    def move_euler(self, body: int, position: Vec3, euler: Vec3) -> None:
        orientation = self._p.getQuaternionFromEuler(euler)
        self._p.resetBasePositionAndOrientation(
            body, position, orientation, physicsClientId=self.client
        )

    def recolor(self, body: int, color: RGBA) -> None:
        self._p.changeVisualShape(body, -1, rgbaColor=color, physicsClientId=self.client)

    def cast_shadows(self) -> None:
        """Nothing to do: TinyRenderer is drawn without shadows (``GlScene.cast_shadows``)."""

    def capture(self, camera: Camera, masks: bool = True) -> Picture:
        flags = 0 if masks else self._p.ER_NO_SEGMENTATION_MASK
        _, _, rgba, depth_buffer, segmentation = self._p.getCameraImage(
            camera.width,
            camera.height,
            viewMatrix=camera.view_matrix(),
            projectionMatrix=camera.projection_matrix(),
            renderer=self._p.ER_TINY_RENDERER,
            shadow=0,
            flags=flags,
            physicsClientId=self.client,
        )
        pixels = np.asarray(rgba, dtype=np.uint8).reshape(camera.height, camera.width, 4)
        rgb = np.ascontiguousarray(pixels[:, :, :3])
        instances = (
            np.asarray(segmentation, dtype=np.int32).reshape(camera.height, camera.width)
            if masks
            else np.full((camera.height, camera.width), -1, dtype=np.int32)
        )
        background = instances < 0
        # pybullet's own backdrop is a fixed grey-blue; use the scene's. Without masks nothing
        # says which pixels are backdrop, so the picture is left as drawn.
        if masks and background.any():
            rgb[background] = np.asarray(self.background[:3]) * 255
        depth = None
        if masks:
            buffer = np.asarray(depth_buffer, dtype=np.float32).reshape(camera.height, camera.width)
            depth = linear_depth(buffer, camera)
        return Picture(rgb=rgb, instances=instances, depth=depth)


def look_at_yaw(eye: Vec3, target: Vec3) -> float:
    """The heading (radians about z) from ``eye`` towards ``target``."""
    return math.atan2(target[1] - eye[1], target[0] - eye[0])


# --- back-ends ------------------------------------------------------------------------------
BACKENDS = ("auto", "gl", "tiny")
_gl_problem: list[str] = []  # why this process cannot start the GL back-end, once found out


GL_PROBE = "from taskqa.render.gl import gl_context; gl_context().release()"


def gl_available() -> str | None:
    """None when a headless GL context starts here, else why not (checked once per process).

    The probe runs in a child process: a driver that crashes takes only the child with it, and
    this process keeps GL uninitialised, so it may still fork workers that draw."""
    if not _gl_problem:
        import subprocess

        try:
            probe = subprocess.run(
                [sys.executable, "-c", GL_PROBE], capture_output=True, text=True, timeout=120
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            _gl_problem.append(f"{type(error).__name__}: {error}")
        else:
            lines = probe.stderr.strip().splitlines()
            _gl_problem.append("" if probe.returncode == 0 else (lines or ["it crashed"])[-1])
    return _gl_problem[0] or None


def resolve_backend(requested: str) -> tuple[str, str]:
    """The back-end to draw with and one line saying why: ``gl`` when asked for or when
    ``auto`` finds a GL context, else ``tiny``; asking for ``gl`` where none starts fails."""
    if requested not in BACKENDS:
        raise ValueError(f"unknown render back-end {requested!r}; expected one of {BACKENDS}")
    if requested == "tiny":
        return "tiny", "render back-end: tiny (pybullet's TinyRenderer, as asked)"
    problem = gl_available()
    if problem is None:
        return "gl", "render back-end: gl (moderngl on EGL)"
    if requested == "gl":
        raise RuntimeError(f"the GL render back-end cannot start here: {problem}")
    return "tiny", f"render back-end: tiny (GL could not start: {problem})"


class Scene(Protocol):
    """What every back-end draws: ``RenderScene``'s methods."""

    background: RGBA

    def add_box(self, half_extents: Vec3, color: RGBA, position: Vec3, yaw: float = 0.0) -> int: ...
    def add_cylinder(
        self, radius: float, height: float, color: RGBA, position: Vec3, yaw: float = 0.0
    ) -> int: ...
    def add_sphere(self, radius: float, color: RGBA, position: Vec3) -> int: ...
    def move(self, body: int, position: Vec3, yaw: float = 0.0) -> None: ...
    def move_euler(self, body: int, position: Vec3, euler: Vec3) -> None: ...
    def recolor(self, body: int, color: RGBA) -> None: ...
    def cast_shadows(self) -> None: ...
    def capture(self, camera: Camera, masks: bool = True) -> Picture: ...
    def close(self) -> None: ...


def open_scene(
    background: RGBA, backend: str = "tiny", appearance: str = "textured", patterns: str = "seen"
) -> Scene:
    """A scene of the chosen back-end (``gl`` or ``tiny``); both have ``RenderScene``'s methods.
    ``appearance`` (flat, shaded, textured: ``gl.LOOKS``) and ``patterns`` (the textured look's
    seen or held-out surfaces) are the GL back-end's; TinyRenderer has one look of its own."""
    if backend == "gl":
        from taskqa.render.gl import GlScene

        return GlScene(background=background, look=appearance, patterns=patterns)
    return RenderScene(background=background)
