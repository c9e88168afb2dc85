"""The top-down GIF renderer."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image
from typer.testing import CliRunner

from taskqa.physics.cli import app
from taskqa.physics.engine import simulate_scene
from taskqa.physics.render import RGB, SIZE, render_gif
from taskqa.physics.scene import ObjectSpec, SceneSpec

SCENE = SceneSpec(
    3,
    (
        ObjectSpec(0, "red", "metal", "cube", (0.0, 0.0), (0.0, 0.0), 0, None),
        ObjectSpec(1, "cyan", "rubber", "sphere", (-3.4, 1.5), (2.5, 0.0), 0, "left"),
    ),
)


def test_one_gif_frame_per_annotated_frame_with_objects_in_place() -> None:
    annotation = simulate_scene(SCENE)
    data = render_gif(annotation)
    assert data == render_gif(annotation)
    video = Image.open(io.BytesIO(data))
    assert video.n_frames == 128 and video.size == (SIZE, SIZE)
    video.seek(0)
    first = video.convert("RGB")
    assert first.getpixel((SIZE // 2, SIZE // 2)) == RGB["red"]  # the cube in the middle
    video.seek(60)
    later = video.convert("RGB")
    x, y, _ = annotation.motion_trajectory[60].objects[1].location
    pixel = (round((x + 3) * SIZE / 6) + 3, round((3 - y) * SIZE / 6) + 3)  # beside the highlight
    assert later.getpixel(pixel) == RGB["cyan"]


def test_render_command(tmp_path: Path) -> None:
    runner = CliRunner()
    scenes = tmp_path / "scenes"
    assert runner.invoke(app, ["simulate", "--scenes", "2", "--out", str(scenes)]).exit_code == 0
    out = tmp_path / "video"
    result = runner.invoke(app, ["render", str(scenes), "--out", str(out), "--format", "gif"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "video").iterdir()) == [
        "video_00000.gif",
        "video_00001.gif",
    ]
