"""Run a scene layout through the Bullet engine (pybullet) and record a CLEVRER annotation.

Every run opens its own headless physics client, so runs never share state: the same layout
and the same removed objects give the same floats, which are then rounded for the file. Objects
that have not been launched yet (or were removed for a counterfactual run) do not exist in the
world; the annotation lists them at their waiting spot, still and outside the camera view, so
that object ids stay stable across the factual and every counterfactual run.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from typing import Any

from taskqa.model.physics import Collision, ObjectMotion, PhysicalObject, TrajectoryFrame
from taskqa.physics.camera import scene_camera
from taskqa.physics.clevrer_format import FPS, FRAMES, ClevrerAnnotation, video_filename
from taskqa.physics.scene import HALF_SIZE, ObjectSpec, SceneSpec
from taskqa.render.engine import quiet_stderr

SUBSTEPS = 10  # physics steps per video frame: 250 Hz keeps fast contacts from tunnelling
DIGITS = 5  # decimals kept in the file; far below anything the events depend on
CONTACT_GAP_FRAMES = 3  # a pair must be apart this long before touching again counts anew
LAUNCH_CLEARANCE = 0.7  # an object waits while another one is this close to its start


@dataclass(frozen=True)
class Material:
    mass: float
    restitution: float
    friction: float  # against the table; Bullet multiplies the two bodies' values
    rolling_friction: float


MATERIAL_PHYSICS = {
    "metal": Material(mass=2.0, restitution=0.6, friction=0.035, rolling_friction=0.003),
    "rubber": Material(mass=1.0, restitution=0.8, friction=0.05, rolling_friction=0.004),
}
TABLE_FRICTION = 1.0
TABLE_RESTITUTION = 0.0  # no hopping on the table


def _pybullet() -> Any:
    # Imported by name: pybullet is a C extension without type information.
    with quiet_stderr():
        return importlib.import_module("pybullet")


def simulate_scene(spec: SceneSpec, removed: frozenset[int] = frozenset()) -> ClevrerAnnotation:
    """Simulate ``FRAMES`` frames; ``removed`` objects never enter (counterfactual runs)."""
    pb = _pybullet()
    client = pb.connect(pb.DIRECT)
    try:
        return _Run(pb, client, spec, removed).record()
    finally:
        pb.disconnect(physicsClientId=client)


class _Run:
    def __init__(self, pb: Any, client: int, spec: SceneSpec, removed: frozenset[int]) -> None:
        self.pb, self.client, self.spec, self.removed = pb, client, spec, removed
        self.bodies: dict[int, int] = {}  # object id -> Bullet body id
        self.last_contact: dict[tuple[int, int], int] = {}
        self.collisions: list[Collision] = []
        pb.setGravity(0, 0, -9.81, physicsClientId=client)
        pb.setTimeStep(1.0 / (FPS * SUBSTEPS), physicsClientId=client)
        pb.setPhysicsEngineParameter(deterministicOverlappingPairs=1, physicsClientId=client)
        plane = pb.createCollisionShape(pb.GEOM_PLANE, physicsClientId=client)
        self.table = pb.createMultiBody(0, plane, physicsClientId=client)
        pb.changeDynamics(
            self.table,
            -1,
            lateralFriction=TABLE_FRICTION,
            restitution=TABLE_RESTITUTION,
            physicsClientId=client,
        )

    def record(self) -> ClevrerAnnotation:
        frames = []
        for frame in range(FRAMES):
            if frame > 0:
                self._advance(frame)
            self._launch_due(frame)
            frames.append(self._frame(frame))
        return ClevrerAnnotation(
            scene_index=self.spec.scene_index,
            video_filename=video_filename(self.spec.scene_index),
            object_property=[
                PhysicalObject(
                    object_id=o.object_id, color=o.color, material=o.material, shape=o.shape
                )
                for o in self.spec.objects
            ],
            motion_trajectory=frames,
            collision=self.collisions,
        )

    def _launch_due(self, frame: int) -> None:
        for obj in self.spec.objects:
            if obj.object_id in self.bodies or obj.object_id in self.removed:
                continue
            if obj.launch_frame <= frame and self._start_is_clear(obj):
                self.bodies[obj.object_id] = self._create(obj)

    def _start_is_clear(self, obj: ObjectSpec) -> bool:
        for body in self.bodies.values():
            (x, y, _), _ = self.pb.getBasePositionAndOrientation(body, physicsClientId=self.client)
            if math.dist((x, y), obj.start) < LAUNCH_CLEARANCE:
                return False
        return True

    def _create(self, obj: ObjectSpec) -> int:
        pb, client = self.pb, self.client
        if obj.shape == "sphere":
            shape = pb.createCollisionShape(
                pb.GEOM_SPHERE, radius=HALF_SIZE, physicsClientId=client
            )
        elif obj.shape == "cube":
            shape = pb.createCollisionShape(
                pb.GEOM_BOX, halfExtents=[HALF_SIZE] * 3, physicsClientId=client
            )
        else:
            shape = pb.createCollisionShape(
                pb.GEOM_CYLINDER, radius=HALF_SIZE, height=2 * HALF_SIZE, physicsClientId=client
            )
        physics = MATERIAL_PHYSICS[obj.material]
        body = pb.createMultiBody(
            physics.mass,
            shape,
            basePosition=[obj.start[0], obj.start[1], HALF_SIZE],
            physicsClientId=client,
        )
        pb.changeDynamics(
            body,
            -1,
            lateralFriction=physics.friction,
            rollingFriction=physics.rolling_friction,
            spinningFriction=physics.rolling_friction,
            restitution=physics.restitution,
            linearDamping=0.0,
            angularDamping=0.0,
            physicsClientId=client,
        )
        vx, vy = obj.velocity
        # A thrown sphere already rolls: spin matching its speed avoids a skid phase.
        spin = [-vy / HALF_SIZE, vx / HALF_SIZE, 0.0] if obj.shape == "sphere" else [0.0] * 3
        pb.resetBaseVelocity(body, [vx, vy, 0.0], spin, physicsClientId=client)
        body_id: int = body
        return body_id

    def _advance(self, frame: int) -> None:
        touching: dict[tuple[int, int], list[float]] = {}
        by_body = {body: object_id for object_id, body in self.bodies.items()}
        for _ in range(SUBSTEPS):
            self.pb.stepSimulation(physicsClientId=self.client)
            for point in self.pb.getContactPoints(physicsClientId=self.client):
                a, b = by_body.get(point[1]), by_body.get(point[2])
                if a is None or b is None:
                    continue  # contact with the table
                pair = (min(a, b), max(a, b))
                touching.setdefault(pair, list(point[5]))
        for pair, location in sorted(touching.items()):
            previous = self.last_contact.get(pair)
            if previous is None or frame - previous > CONTACT_GAP_FRAMES:
                self.collisions.append(
                    Collision(object_ids=pair, frame_id=frame, location=_rounded(location))
                )
            self.last_contact[pair] = frame

    def _frame(self, frame: int) -> TrajectoryFrame:
        return TrajectoryFrame(
            frame_id=frame, objects=[self._motion(obj) for obj in self.spec.objects]
        )

    def _motion(self, obj: ObjectSpec) -> ObjectMotion:
        body = self.bodies.get(obj.object_id)
        if body is None:
            zero = (0.0, 0.0, 0.0)
            return ObjectMotion(
                object_id=obj.object_id,
                location=(obj.start[0], obj.start[1], HALF_SIZE),
                orientation=zero,
                velocity=zero,
                angular_velocity=zero,
                inside_camera_view=False,
            )
        pb, client = self.pb, self.client
        position, quaternion = pb.getBasePositionAndOrientation(body, physicsClientId=client)
        linear, angular = pb.getBaseVelocity(body, physicsClientId=client)
        return ObjectMotion(
            object_id=obj.object_id,
            location=_rounded(position),
            orientation=_rounded(pb.getEulerFromQuaternion(quaternion)),
            velocity=_rounded(linear),
            angular_velocity=_rounded(angular),
            inside_camera_view=_in_view(position),
        )


def _rounded(values: Any) -> tuple[float, float, float]:
    # "+ 0.0" turns -0.0 into 0.0, so a sign bit of noise never changes the file's bytes.
    x, y, z = (round(float(v), DIGITS) + 0.0 for v in values)
    return (x, y, z)


def _in_view(position: Any) -> bool:
    """Whether the object's centre is in the scene camera's picture (on the table)."""
    x, y, z = (float(v) for v in position)
    return z > 0 and scene_camera().sees((x, y, z))
