"""A simple top-down renderer: CLEVRER annotations to animated GIF videos.

The picture is the square |x|, |y| <= 3 m of the table seen from above, one GIF frame per
annotation frame at 25 fps. Spheres are discs with a highlight, cylinders discs with a rim,
cubes squares turned by their yaw; metal objects get a light outline. Drawing happens in a
fixed palette, so the same annotation always gives the same bytes, and any CLEVRER annotation
(not only simulated ones) can be rendered for models that need pixels.
"""

from __future__ import annotations

import io
import math

from PIL import Image, ImageDraw

from taskqa.model.physics import ObjectMotion, PhysicalObject
from taskqa.physics.clevrer_format import COLORS, FPS, ClevrerAnnotation
from taskqa.physics.scene import HALF_SIZE, VIEW_HALF_WIDTH

SIZE = 320  # pixels per side
RGB = {
    "gray": (128, 128, 128),
    "red": (173, 35, 35),
    "blue": (42, 75, 215),
    "green": (29, 105, 20),
    "brown": (129, 74, 25),
    "cyan": (41, 208, 208),
    "purple": (129, 38, 192),
    "yellow": (255, 238, 51),
}
BACKGROUND, GRID, OUTLINE, HIGHLIGHT = 0, 1, 2, 3
FIRST_COLOR = 4
PALETTE_RGB = [(205, 205, 200), (190, 190, 185), (240, 240, 240), (255, 255, 255)] + [
    RGB[color] for color in COLORS
]


def _palette() -> list[int]:
    flat = [channel for rgb in PALETTE_RGB for channel in rgb]
    return flat + [0] * (768 - len(flat))


def _pixel(x: float, y: float) -> tuple[float, float]:
    scale = SIZE / (2 * VIEW_HALF_WIDTH)
    return (x + VIEW_HALF_WIDTH) * scale, (VIEW_HALF_WIDTH - y) * scale  # y up on screen


def _draw_object(draw: ImageDraw.ImageDraw, obj: PhysicalObject, motion: ObjectMotion) -> None:
    cx, cy = _pixel(motion.location[0], motion.location[1])
    radius = HALF_SIZE * SIZE / (2 * VIEW_HALF_WIDTH)
    fill = FIRST_COLOR + COLORS.index(obj.color)
    outline = OUTLINE if obj.material == "metal" else None
    if obj.shape == "cube":
        yaw = motion.orientation[2]
        corners = [
            (
                cx + radius * math.sqrt(2) * math.cos(yaw + math.pi / 4 + k * math.pi / 2),
                cy - radius * math.sqrt(2) * math.sin(yaw + math.pi / 4 + k * math.pi / 2),
            )
            for k in range(4)
        ]
        draw.polygon(corners, fill=fill, outline=outline)
        return
    box = (cx - radius, cy - radius, cx + radius, cy + radius)
    draw.ellipse(box, fill=fill, outline=outline, width=2)
    if obj.shape == "sphere":
        r = radius / 3
        draw.ellipse((cx - r - 2, cy - r - 2, cx + r - 2, cy + r - 2), fill=HIGHLIGHT)
    else:
        r = radius * 0.6
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=OUTLINE, width=1)


def render_frames(annotation: ClevrerAnnotation) -> list[Image.Image]:
    frames = []
    palette = _palette()
    for frame in annotation.motion_trajectory:
        image = Image.new("P", (SIZE, SIZE), BACKGROUND)
        image.putpalette(palette)
        draw = ImageDraw.Draw(image)
        for step in range(1, 6):
            line = step * SIZE / 6
            draw.line((line, 0, line, SIZE), fill=GRID)
            draw.line((0, line, SIZE, line), fill=GRID)
        for obj, motion in zip(annotation.object_property, frame.objects, strict=True):
            _draw_object(draw, obj, motion)
        # A time bar along the bottom edge; it also keeps the GIF writer from merging still
        # frames, so the file holds exactly one image per annotated frame.
        progress = (frame.frame_id + 1) * SIZE / len(annotation.motion_trajectory)
        draw.rectangle((0, SIZE - 3, progress, SIZE - 1), fill=OUTLINE)
        frames.append(image)
    return frames


def render_gif(annotation: ClevrerAnnotation) -> bytes:
    """The whole video as GIF bytes (40 ms per frame, looping)."""
    frames = render_frames(annotation)
    if not frames:
        raise ValueError(f"scene {annotation.scene_index} has no frames to render")
    buffer = io.BytesIO()
    frames[0].save(
        buffer,
        format="GIF",
        save_all=True,
        append_images=frames[1:],
        duration=1000 // FPS,
        loop=0,
        optimize=False,
    )
    return buffer.getvalue()


def gif_filename(scene_index: int) -> str:
    return f"video_{scene_index:05d}.gif"
