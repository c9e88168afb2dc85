"""The GL back-end of the render core: moderngl on a headless EGL context.

It draws the same scene as ``RenderScene`` (boxes, cylinders and spheres placed, turned and
recoloured per frame; a body whose colour is fully transparent is hidden) through the same
methods, so every world builds its scene once and either back-end draws it. On a machine without
a GPU, EGL runs on Mesa's software rasteriser (llvmpipe), which is still many times faster than
pybullet's TinyRenderer: each primitive kind is one instanced draw call.

What it adds to the picture: a key light with a shadow map read with four bilinear taps (soft
shadow edges), a sky/ground ambient term, and anti-aliasing (an FXAA-style pass, or 4x
multisampling with ``SAMPLES = 4``). Back faces are culled: every mesh is closed and wound
outwards. Instance masks come from a second, aliased pass that writes each body's id as a
colour, so masks are exact and never blended.
Pixels are the same for the same scene on the same machine and Mesa build (llvmpipe splits the
frame into tiles whose results do not depend on its thread count); they are not promised to match
across GPU vendors, which is why the grounding check keeps the TinyRenderer back-end.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from taskqa.render.engine import RGBA, Camera, Picture, Vec3, linear_depth

BOX, CYLINDER, SPHERE = 0, 1, 2
# The appearance ladder: unlit colours; lit with shadows; lit with procedural surfaces (wood
# grain, floor planks, plaster, brushed steel with a highlight) chosen by colour family and size
LOOKS = ("flat", "shaded", "textured")
# the textured look's surface patterns: those seen in every default render, and a held-out set
PATTERN_SETS = ("seen", "held-out")
SAMPLES = 0  # multisample anti-aliasing (0: the post-process pass smooths edges instead)
SMOOTHING = True  # the FXAA-style pass; with MSAA on, it is skipped
SHADOW_SIZE = 512
INSTANCE_BYTES = (12 + 3 + 4 + 1) * 4  # pose rows, scale, colour, body id (float32)
LIGHT_DIRECTION = np.array([-0.45, -0.3, -1.0])  # from the light, down and slightly aslant
CYLINDER_SIDES = 16
SPHERE_RINGS, SPHERE_SEGMENTS = 8, 12

_VERTEX = """
#version 330
uniform mat4 view_projection;
in vec3 position;
in vec3 normal;
in vec4 row0;
in vec4 row1;
in vec4 row2;
in vec3 scale;
in vec4 color;
in float ident;
out vec3 world_normal;
out vec3 world_position;
out vec4 body_color;
out vec3 local_position;
flat out vec3 body_scale;
flat out int body;
void main() {
    mat4 model = transpose(mat4(row0, row1, row2, vec4(0.0, 0.0, 0.0, 1.0)));
    vec4 world = model * vec4(position * scale, 1.0);
    world_position = world.xyz;
    local_position = position * scale;
    body_scale = scale;
    world_normal = normalize(mat3(model) * (normal / scale));
    body_color = color;
    body = int(ident);
    gl_Position = view_projection * world;
}
"""

_SHADED = """
#version 330
uniform vec3 light_direction;
uniform mat4 light_view_projection;
uniform sampler2DShadow shadow_map;
uniform float texel;
uniform int look;  // 0 flat, 1 shaded, 2 textured
uniform int patterns;  // 0 the seen surfaces, 1 the held-out ones (PATTERN_SETS)
uniform vec3 eye;
in vec3 world_normal;
in vec3 world_position;
in vec4 body_color;
in vec3 local_position;
flat in vec3 body_scale;
flat in int body;
out vec4 colour;

float hash(vec2 p) { return fract(sin(dot(p, vec2(127.1, 311.7))) * 43758.5453); }
float noise(vec2 p) {
    vec2 i = floor(p), f = fract(p);
    vec2 u = f * f * (3.0 - 2.0 * f);
    return mix(mix(hash(i), hash(i + vec2(1, 0)), u.x), mix(hash(i + vec2(0, 1)),
               hash(i + vec2(1, 1)), u.x), u.y);
}

// Procedural surfaces chosen by what a body is: its colour family and its size. They change
// brightness by a few percent only, so a state's mark (dirt, content, glow) still reads.
// The held-out surfaces: square floor tiles, striped wallpaper, a woven grain on painted
// wood and hammered metal, none of which a seen render draws.
vec3 held_out_surface(vec3 base, vec3 n, float saturation, float hi, bool large,
                      out float shine) {
    shine = 0.0;
    if (large && abs(n.z) > 0.9 && world_position.z < 0.05) {
        vec2 cell = fract(world_position.xy / 0.4);
        float grout = smoothstep(0.0, 0.03, cell.x) * smoothstep(0.0, 0.03, 1.0 - cell.x)
            * smoothstep(0.0, 0.03, cell.y) * smoothstep(0.0, 0.03, 1.0 - cell.y);
        float tone = 0.94 + 0.08 * hash(floor(world_position.xy / 0.4));
        return base * tone * (0.8 + 0.2 * grout);
    }
    if (large || body_scale.z > 1.2) {
        float stripe = step(0.5, fract((world_position.x + world_position.y) * 4.0));
        return base * (0.96 + 0.05 * stripe);
    }
    if (saturation < 0.12 && hi > 0.3 && hi < 0.8 || base.r > base.b && base.g < base.r * 0.8
        && saturation > 0.25 && hi < 0.8 && hi > 0.3 && body_scale.z < 0.6) {
        shine = 0.3;  // metal: dimpled
        return base * (0.92 + 0.1 * noise(local_position.xz * 90.0 + local_position.yy * 90.0));
    }
    vec3 q = local_position * 60.0;  // painted surfaces: a fine weave
    return base * (0.95 + 0.03 * sin(q.x + q.z) + 0.03 * sin(q.y - q.z));
}

vec3 textured(vec3 base, vec3 n, out float shine) {
    shine = 0.0;
    float hi = max(base.r, max(base.g, base.b)), lo = min(base.r, min(base.g, base.b));
    float saturation = hi > 0.0 ? (hi - lo) / hi : 0.0;
    bool large = body_scale.x > 0.9 && body_scale.y > 0.9;
    if (patterns == 1) return held_out_surface(base, n, saturation, hi, large, shine);
    if (large && abs(n.z) > 0.9 && world_position.z < 0.05) {  // the floor: planks
        vec2 p = world_position.xy * vec2(1.0, 5.0);
        float board = floor(p.y);
        float grain = noise(vec2(p.x * 6.0 + board * 7.0, p.y * 2.0));
        float seam = smoothstep(0.0, 0.04, fract(p.y)) * smoothstep(0.0, 0.04, 1.0 - fract(p.y));
        return base * (0.9 + 0.12 * grain + 0.06 * hash(vec2(board, 3.0))) * (0.75 + 0.25 * seam);
    }
    if (large || body_scale.z > 1.2) {  // walls and ceilings: faint plaster
        return base * (0.97 + 0.05 * noise(world_position.xz * 9.0 + world_position.yy * 9.0));
    }
    if (base.r > base.g && base.g > base.b && saturation > 0.3 && hi < 0.85) {  // wood
        vec3 q = local_position;
        float along = body_scale.x > body_scale.y ? q.y : q.x;
        float rings = sin((along + 0.02 * noise(q.xz * 30.0 + q.yz * 30.0)) * 140.0);
        return base * (0.93 + 0.08 * rings);
    }
    if (saturation < 0.12 && hi > 0.3 && hi < 0.8) {  // steel: brushed, with a highlight
        shine = 0.35;
        return base * (0.95 + 0.06 * noise(vec2(local_position.x * 400.0, local_position.z * 4.0)));
    }
    return base;
}

void main() {
    if (look == 0) { colour = vec4(body_color.rgb, 1.0); return; }
    vec3 n = normalize(world_normal);
    if (!gl_FrontFacing) n = -n;
    vec4 light_space = light_view_projection * vec4(world_position, 1.0);
    vec3 coords = light_space.xyz / light_space.w * 0.5 + 0.5;
    float facing = dot(n, -light_direction);
    float bias = 0.0015 + 0.004 * (1.0 - clamp(facing, 0.0, 1.0));
    // four bilinear shadow taps on a rotated grid: each compares 2x2 texels, so the edge
    // softens over about three texels at a quarter of a 3x3 kernel's cost
    float lit = 0.25 * (
        texture(shadow_map, vec3(coords.xy + vec2(-0.7, 0.3) * texel, coords.z - bias))
        + texture(shadow_map, vec3(coords.xy + vec2(0.3, 0.7) * texel, coords.z - bias))
        + texture(shadow_map, vec3(coords.xy + vec2(0.7, -0.3) * texel, coords.z - bias))
        + texture(shadow_map, vec3(coords.xy + vec2(-0.3, -0.7) * texel, coords.z - bias)));
    float diffuse = max(facing, 0.0) * lit;
    float sky = 0.5 + 0.5 * n.z;  // hemisphere ambient: brighter facing up
    float shine = 0.0;
    vec3 base = look == 2 ? textured(body_color.rgb, n, shine) : body_color.rgb;
    vec3 shade = base * (0.55 + 0.15 * sky + 0.42 * diffuse);
    if (shine > 0.0) {
        vec3 halfway = normalize(-light_direction + normalize(eye - world_position));
        shade += shine * lit * pow(max(dot(n, halfway), 0.0), 24.0);
    }
    colour = vec4(clamp(shade, 0.0, 1.0), 1.0);
}
"""

_IDS = """
#version 330
in vec3 world_normal;
in vec3 world_position;
in vec4 body_color;
flat in int body;
out vec4 colour;
void main() {
    int code = body + 1;
    colour = vec4(float(code & 255), float((code >> 8) & 255), float((code >> 16) & 255), 255.0)
        / 255.0;
}
"""

_DEPTH = """
#version 330
in vec3 world_normal;
in vec3 world_position;
in vec4 body_color;
flat in int body;
void main() {}
"""


_SCREEN = """
#version 330
in vec2 corner;
out vec2 uv;
void main() {
    uv = corner * 0.5 + 0.5;
    gl_Position = vec4(corner, 0.0, 1.0);
}
"""

# A small FXAA-style pass: where luminance changes sharply, blend along the edge (across the
# gradient's normal), so stair-steps soften at the cost of one full-screen pass.
_SMOOTHED = """
#version 330
uniform sampler2D picture;
uniform vec2 pixel;
in vec2 uv;
out vec4 colour;
float luma(vec3 c) { return dot(c, vec3(0.299, 0.587, 0.114)); }
void main() {
    vec3 m = texture(picture, uv).rgb;
    float n = luma(texture(picture, uv + vec2(0.0, pixel.y)).rgb);
    float s = luma(texture(picture, uv - vec2(0.0, pixel.y)).rgb);
    float e = luma(texture(picture, uv + vec2(pixel.x, 0.0)).rgb);
    float w = luma(texture(picture, uv - vec2(pixel.x, 0.0)).rgb);
    float c = luma(m);
    float range = max(max(max(n, s), max(e, w)), c) - min(min(min(n, s), min(e, w)), c);
    if (range < 0.06) { colour = vec4(m, 1.0); return; }
    vec2 along = normalize(vec2(-(n - s), e - w) + 1e-6) * pixel;
    vec3 a = texture(picture, uv + along * 0.5).rgb + texture(picture, uv - along * 0.5).rgb;
    vec3 b = texture(picture, uv + along * 1.5).rgb + texture(picture, uv - along * 1.5).rgb;
    vec3 blended = mix(a * 0.5, (a + b) * 0.25, 0.5);
    colour = vec4(mix(m, blended, clamp(range * 4.0, 0.0, 0.75)), 1.0);
}
"""


Mesh = tuple[npt.NDArray[np.float32], npt.NDArray[np.int32]]  # (position, normal) rows, indices


def _box() -> Mesh:
    """The cube from -1 to 1 (scaled by half extents): four corners per face."""
    rows: list[list[float]] = []
    indices: list[int] = []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            normal = [0.0, 0.0, 0.0]
            normal[axis] = sign
            u, v = [a for a in range(3) if a != axis]
            base = len(rows)
            for du, dv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                point = [0.0, 0.0, 0.0]
                point[axis], point[u], point[v] = sign, du, dv
                rows.append([*point, *normal])
            # counter-clockwise seen from outside, so back faces can be culled: (u, v, axis)
            # is right-handed for axis y only, and the face at -axis turns the other way
            outward = (sign > 0) == (axis != 1)
            order = (0, 1, 2, 0, 2, 3) if outward else (0, 2, 1, 0, 3, 2)
            indices += [base + k for k in order]
    return np.asarray(rows, dtype=np.float32), np.asarray(indices, dtype=np.int32)


def _cylinder() -> Mesh:
    """Radius 1, height 1 along z, centred on the origin (pybullet's cylinder, scaled)."""
    rows: list[list[float]] = []
    indices: list[int] = []
    ring = [
        (math.cos(2 * math.pi * i / CYLINDER_SIDES), math.sin(2 * math.pi * i / CYLINDER_SIDES))
        for i in range(CYLINDER_SIDES + 1)
    ]
    for x, y in ring:  # the side: a bottom and a top vertex per step, normals outwards
        rows += [[x, y, -0.5, x, y, 0.0], [x, y, 0.5, x, y, 0.0]]
    for i in range(CYLINDER_SIDES):
        a, b = 2 * i, 2 * i + 2
        indices += [a, b, b + 1, a, b + 1, a + 1]
    for z, sign in ((0.5, 1.0), (-0.5, -1.0)):  # the caps: a fan round the centre
        centre = len(rows)
        rows.append([0.0, 0.0, z, 0.0, 0.0, sign])
        rows += [[x, y, z, 0.0, 0.0, sign] for x, y in ring]
        for i in range(CYLINDER_SIDES):
            a, b = centre + 1 + i, centre + 2 + i
            indices += [centre, a, b] if sign > 0 else [centre, b, a]
    return np.asarray(rows, dtype=np.float32), np.asarray(indices, dtype=np.int32)


def _sphere() -> Mesh:
    rows = []
    for ring in range(SPHERE_RINGS + 1):
        theta = math.pi * ring / SPHERE_RINGS
        for segment in range(SPHERE_SEGMENTS + 1):
            phi = 2 * math.pi * segment / SPHERE_SEGMENTS
            x, y = math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi)
            rows.append([x, y, math.cos(theta), x, y, math.cos(theta)])
    indices = []
    width = SPHERE_SEGMENTS + 1
    for ring in range(SPHERE_RINGS):
        for segment in range(SPHERE_SEGMENTS):
            a, b = ring * width + segment, (ring + 1) * width + segment
            indices += [a, b, b + 1, a, b + 1, a + 1]
    return np.asarray(rows, dtype=np.float32), np.asarray(indices, dtype=np.int32)


def rotation(euler: Vec3) -> npt.NDArray[np.float64]:
    """pybullet's Euler convention: roll about x, then pitch about y, then yaw about z."""
    roll, pitch, yaw = euler
    cr, sr, cp, sp, cy, sy = (
        math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch), math.cos(yaw),
        math.sin(yaw),
    )  # fmt: skip
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def look_at(eye: Vec3, target: Vec3, up: Vec3) -> npt.NDArray[np.float64]:
    forward = np.subtract(target, eye, dtype=np.float64)
    forward /= np.linalg.norm(forward)
    side = np.cross(forward, up)
    side /= np.linalg.norm(side)
    true_up = np.cross(side, forward)
    view = np.eye(4)
    view[0, :3], view[1, :3], view[2, :3] = side, true_up, -forward
    view[:3, 3] = -view[:3, :3] @ np.asarray(eye, dtype=np.float64)
    return view


def perspective(fov: float, aspect: float, near: float, far: float) -> npt.NDArray[np.float64]:
    f = 1.0 / math.tan(math.radians(fov) / 2)
    return np.array(
        [
            [f / aspect, 0, 0, 0],
            [0, f, 0, 0],
            [0, 0, (far + near) / (near - far), 2 * far * near / (near - far)],
            [0, 0, -1, 0],
        ]
    )


def orthographic(half: float, near: float, far: float) -> npt.NDArray[np.float64]:
    return np.array(
        [
            [1 / half, 0, 0, 0],
            [0, 1 / half, 0, 0],
            [0, 0, -2 / (far - near), -(far + near) / (far - near)],
            [0, 0, 0, 1],
        ]
    )


def gl_context() -> Any:
    """A headless moderngl context on EGL; raises when this machine cannot make one. From
    then on this process's worker pools do not fork it (``execution.local.fork_unsafe``)."""
    import moderngl

    from taskqa.execution.local import fork_unsafe

    # moderngl's stub types the keyword settings as one dict; at run time they are keywords
    context = moderngl.create_standalone_context(backend="egl")  # type: ignore[arg-type]
    fork_unsafe("a GL context")
    return context


class GlScene:
    """``RenderScene``'s methods, drawn with moderngl (module docstring)."""

    def __init__(
        self,
        background: RGBA = (0.82, 0.84, 0.86, 1.0),
        look: str = "textured",
        patterns: str = "seen",
    ) -> None:
        if look not in LOOKS:
            raise ValueError(f"unknown look {look!r}; expected one of {', '.join(LOOKS)}")
        if patterns not in PATTERN_SETS:
            raise ValueError(f"unknown patterns {patterns!r}; expected seen or held-out")
        self.background = background
        self.look = look
        self.patterns = patterns
        self.ctx = gl_context()
        self._kind: list[int] = []
        self._scale: list[Vec3] = []
        self._poses: list[npt.NDArray[np.float64]] = []
        self._color: list[RGBA] = []
        self._shaded = self.ctx.program(vertex_shader=_VERTEX, fragment_shader=_SHADED)
        self._ids = self.ctx.program(vertex_shader=_VERTEX, fragment_shader=_IDS)
        self._depth = self.ctx.program(vertex_shader=_VERTEX, fragment_shader=_DEPTH)
        self._smoothed = self.ctx.program(vertex_shader=_SCREEN, fragment_shader=_SMOOTHED)
        corners = np.array([-1, -1, 1, -1, -1, 1, 1, 1], dtype=np.float32)
        self._screen = self.ctx.vertex_array(
            self._smoothed, [(self.ctx.buffer(corners.tobytes()), "2f", "corner")]
        )
        meshes = [make() for make in (_box, _cylinder, _sphere)]
        self._meshes = [self.ctx.buffer(rows.tobytes()) for rows, _ in meshes]
        self._indices = [self.ctx.buffer(indices.tobytes()) for _, indices in meshes]
        self._counts = [len(indices) for _, indices in meshes]
        self._shadow_map = self.ctx.depth_texture((SHADOW_SIZE, SHADOW_SIZE))
        self._shadow_map.compare_func = "<="
        self._shadow_map.filter = (self.ctx.LINEAR, self.ctx.LINEAR)
        self._shadow_fbo = self.ctx.framebuffer(depth_attachment=self._shadow_map)
        self._targets: dict[tuple[int, int], tuple[Any, Any, Any]] = {}
        self._buffers: dict[int, Any] = {}
        self._changed = True  # a body moved, turned, appeared or went since the shadow map
        self._shadows_kept = False  # cast_shadows was called: keep its map whatever moves
        self._light_matrix: npt.NDArray[np.float64] | None = None
        self._arrays: dict[tuple[int, int], Any] = {}

    def __enter__(self) -> GlScene:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self.ctx is not None:
            self.ctx.release()
            self.ctx = None

    # --- the scene, as RenderScene builds it ------------------------------------------------
    def _add(self, kind: int, scale: Vec3, color: RGBA, position: Vec3, euler: Vec3) -> int:
        self._kind.append(kind)
        self._scale.append(scale)
        self._color.append(tuple(color))  # type: ignore[arg-type]
        self._poses.append(_pose(position, euler))
        self._changed = True
        return len(self._kind) - 1

    def add_box(self, half_extents: Vec3, color: RGBA, position: Vec3, yaw: float = 0.0) -> int:
        return self._add(BOX, half_extents, color, position, (0.0, 0.0, yaw))

    def add_cylinder(
        self, radius: float, height: float, color: RGBA, position: Vec3, yaw: float = 0.0
    ) -> int:
        return self._add(CYLINDER, (radius, radius, height), color, position, (0.0, 0.0, yaw))

    def add_sphere(self, radius: float, color: RGBA, position: Vec3) -> int:
        return self._add(SPHERE, (radius, radius, radius), color, position, (0.0, 0.0, 0.0))

    def move(self, body: int, position: Vec3, yaw: float = 0.0) -> None:
        self.move_euler(body, position, (0.0, 0.0, yaw))

    def move_euler(self, body: int, position: Vec3, euler: Vec3) -> None:
        pose = _pose(position, euler)
        if not np.array_equal(pose, self._poses[body]):
            self._poses[body] = pose
            self._changed = True

    def recolor(self, body: int, color: RGBA) -> None:
        if (color[3] > 0) != (self._color[body][3] > 0):
            self._changed = True  # shown or hidden: the shadows change, a new colour does not
        self._color[body] = tuple(color)  # type: ignore[assignment]

    # --- drawing ------------------------------------------------------------------------------
    def cast_shadows(self) -> None:
        """Draw the shadow map from the scene as it stands now; captures keep it, whatever moves,
        until the next call. A world whose views of one moment differ (a person's own body is
        taken away for their own view) casts once from the moment as a bystander sees it."""
        if self.look != "flat":  # the flat look has no light
            self._draw_shadows(*self._batches())
        self._shadows_kept = True

    def _batches(self) -> tuple[Any, Any, Any, list[tuple[int, int, int]]]:
        """The shown bodies' instance data, uploaded per primitive kind."""
        shown = np.asarray([c[3] > 0 for c in self._color], dtype=bool)
        poses = np.asarray(self._poses, dtype=np.float32).reshape(-1, 12)
        scales = np.asarray(self._scale, dtype=np.float32)
        colors = np.asarray(self._color, dtype=np.float32)
        kinds = np.asarray(self._kind)
        batches = []
        for kind in (BOX, CYLINDER, SPHERE):
            chosen = np.flatnonzero(shown & (kinds == kind))
            if not len(chosen):
                continue
            data = np.hstack(
                [poses[chosen], scales[chosen], colors[chosen], chosen[:, None].astype(np.float32)]
            ).astype(np.float32)
            batches.append((kind, self._instances(kind, data), len(chosen)))
        return shown, poses, scales, batches

    def _draw_shadows(
        self, shown: Any, poses: Any, scales: Any, batches: list[tuple[int, int, int]]
    ) -> None:
        ctx = self.ctx
        ctx.enable(ctx.DEPTH_TEST)
        self._light_matrix = self._light(poses[shown], scales[shown])
        self._shadow_fbo.use()
        self._shadow_fbo.clear(depth=1.0)
        # back faces culled here too: the surface nearest the light is a front face of a
        # closed mesh, so the map is the same at about half the cost
        ctx.enable(ctx.CULL_FACE)
        self._draw(self._depth, batches, self._light_matrix)
        ctx.disable(ctx.CULL_FACE)
        self._changed = False

    def capture(self, camera: Camera, masks: bool = True) -> Picture:
        ctx = self.ctx
        shown, poses, scales, batches = self._batches()
        view = look_at(camera.eye, camera.target, camera.up)
        projection = perspective(camera.fov, camera.width / camera.height, camera.near, camera.far)
        stale = self._light_matrix is None or (self._changed and not self._shadows_kept)
        if self.look != "flat" and stale:
            # the shadow map depends on the scene alone: views of one moment share it
            self._draw_shadows(shown, poses, scales, batches)
        ctx.enable(ctx.DEPTH_TEST)
        light = self._light_matrix if self._light_matrix is not None else np.eye(4)
        # the shaded pass: multisampled and then resolved, or straight into the texture the
        # smoothing pass reads
        drawn, resolved, id_fbo = self._target(camera.width, camera.height)
        smoothing = SMOOTHING and not SAMPLES
        if smoothing:
            drawn, smoothed = self._smoothing(camera.width, camera.height)
        drawn.use()
        drawn.clear(*self.background[:3], 1.0, depth=1.0)
        self._shadow_map.use(location=0)
        self._shaded["shadow_map"].value = 0
        self._shaded["texel"].value = 1.0 / SHADOW_SIZE
        self._shaded["light_view_projection"].write(light.T.astype(np.float32).tobytes())
        direction = LIGHT_DIRECTION / np.linalg.norm(LIGHT_DIRECTION)
        self._shaded["light_direction"].value = tuple(float(x) for x in direction)
        self._shaded["look"].value = LOOKS.index(self.look)
        self._shaded["patterns"].value = PATTERN_SETS.index(self.patterns)
        self._shaded["eye"].value = tuple(float(x) for x in camera.eye)
        # back faces are culled: every mesh is closed and wound outwards, so nothing visible is
        # lost, a camera inside a body (a door swinging through the eye) sees out of it, and
        # llvmpipe rasterises about half the triangles
        ctx.enable(ctx.CULL_FACE)
        self._draw(self._shaded, batches, projection @ view)
        if not smoothing:
            ctx.copy_framebuffer(resolved, drawn)
            rgb = _read(resolved, camera.width, camera.height)
        else:
            smoothed.use()
            drawn.color_attachments[0].use(location=1)
            self._smoothed["picture"].value = 1
            self._smoothed["pixel"].value = (1.0 / camera.width, 1.0 / camera.height)
            ctx.disable(ctx.DEPTH_TEST)
            self._screen.render(mode=ctx.TRIANGLE_STRIP)
            ctx.enable(ctx.DEPTH_TEST)
            rgb = _read(smoothed, camera.width, camera.height)
        instances = np.full((camera.height, camera.width), -1, dtype=np.int32)
        depth = None
        if masks:  # the aliased id pass also gives exact per-pixel depth
            id_fbo.use()
            id_fbo.clear(0.0, 0.0, 0.0, 1.0, depth=1.0)
            self._draw(self._ids, batches, projection @ view)
            codes = _read(id_fbo, camera.width, camera.height).astype(np.int32)
            instances = (codes[..., 0] | codes[..., 1] << 8 | codes[..., 2] << 16) - 1
            raw = id_fbo.read(components=1, attachment=-1, dtype="f4")
            buffer = np.frombuffer(raw, dtype=np.float32).reshape(camera.height, camera.width)
            depth = linear_depth(np.ascontiguousarray(buffer[::-1]), camera)
        ctx.disable(ctx.CULL_FACE)
        return Picture(rgb=rgb, instances=instances, depth=depth)

    def _instances(self, kind: int, data: npt.NDArray[np.float32]) -> int:
        """Write this frame's instances of ``kind``; the buffer (and the vertex arrays that read
        it) is made once, and again only when the scene gains bodies of that kind."""
        size = max(1, sum(k == kind for k in self._kind)) * INSTANCE_BYTES
        if self._buffers.get(kind) is None or self._buffers[kind].size < size:
            if kind in self._buffers:
                self._buffers[kind].release()
            buffer = self._buffers[kind] = self.ctx.buffer(reserve=size)
            for program in (self._shaded, self._ids, self._depth):
                self._arrays[(id(program), kind)] = self.ctx.vertex_array(
                    program,
                    [
                        (self._meshes[kind], "3f 3f", "position", "normal"),
                        (
                            buffer,
                            "4f 4f 4f 3f 4f 1f/i",
                            "row0",
                            "row1",
                            "row2",
                            "scale",
                            "color",
                            "ident",
                        ),
                    ],  # fmt: skip
                    index_buffer=self._indices[kind],
                    index_element_size=4,
                    skip_errors=True,
                )
        self._buffers[kind].write(data.tobytes())
        return kind

    def _draw(self, program: Any, batches: list[tuple[int, int, int]], matrix: Any) -> None:
        program["view_projection"].write(np.asarray(matrix, dtype=np.float32).T.tobytes())
        for kind, _, count in batches:
            self._arrays[(id(program), kind)].render(instances=count, vertices=self._counts[kind])

    def _light(
        self, poses: npt.NDArray[np.float32], scales: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float64]:
        """An orthographic light camera that covers every shown body."""
        centres = poses.reshape(-1, 3, 4)[:, :, 3] if len(poses) else np.zeros((1, 3))
        reach = float(np.abs(scales).max()) if len(scales) else 1.0
        low, high = centres.min(axis=0) - reach, centres.max(axis=0) + reach
        middle = (low + high) / 2
        radius = float(np.linalg.norm(high - low)) / 2 + 0.1
        direction = LIGHT_DIRECTION / np.linalg.norm(LIGHT_DIRECTION)
        eye = middle - direction * radius * 2
        up = (0.0, 1.0, 0.0) if abs(direction[2]) < 0.99 else (1.0, 0.0, 0.0)
        view = look_at(tuple(eye), tuple(middle), up)
        return orthographic(radius, radius * 0.5, radius * 3.5) @ view

    def _smoothing(self, width: int, height: int) -> tuple[Any, Any]:
        """The framebuffer the shaded pass draws into (a texture, with depth) and the one the
        smoothing pass writes."""
        key = (-width, -height)
        if key not in self._targets:
            ctx = self.ctx
            texture = ctx.texture((width, height), 3)
            texture.filter = (ctx.LINEAR, ctx.LINEAR)
            texture.repeat_x = texture.repeat_y = False
            picture = ctx.framebuffer(texture, ctx.depth_renderbuffer((width, height)))
            smoothed = ctx.framebuffer(ctx.renderbuffer((width, height)))
            self._targets[key] = (picture, smoothed, None)
        picture, smoothed, _ = self._targets[key]
        return picture, smoothed

    def _target(self, width: int, height: int) -> tuple[Any, Any, Any]:
        if (width, height) not in self._targets:
            ctx = self.ctx
            size = (width, height)
            msaa = ctx.framebuffer(
                ctx.renderbuffer(size, samples=SAMPLES),
                ctx.depth_renderbuffer(size, samples=SAMPLES),
            )
            resolved = ctx.framebuffer(ctx.renderbuffer(size))
            ids = ctx.framebuffer(ctx.renderbuffer(size), ctx.depth_renderbuffer(size))
            self._targets[size] = (msaa, resolved, ids)
        return self._targets[(width, height)]


def _pose(position: Vec3, euler: Vec3) -> npt.NDArray[np.float64]:
    pose = np.empty((3, 4))
    pose[:, :3] = rotation(euler)
    pose[:, 3] = position
    return pose


def _read(framebuffer: Any, width: int, height: int) -> npt.NDArray[np.uint8]:
    data = framebuffer.read(components=3, alignment=1)
    return np.ascontiguousarray(np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3)[::-1])
