"""CLEVRER-style MP4 videos of physics scenes: camera, frames, objects in place, same bytes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from taskqa.physics.clevrer_format import read_annotation
from taskqa.physics.cli import app
from taskqa.physics.engine import simulate_scene
from taskqa.physics.scene import ObjectSpec, SceneSpec
from taskqa.physics.video import SceneVideo, first_present_frames, load_look, project
from taskqa.render.video import read_frames, video_info

SCENE = SceneSpec(
    4,
    (
        ObjectSpec(0, "red", "metal", "cube", (0.5, -0.5), (0.0, 0.0), 0, None),
        ObjectSpec(1, "cyan", "rubber", "sphere", (-3.4, 0.5), (2.6, 0.0), 0, "left"),
        ObjectSpec(2, "yellow", "rubber", "cylinder", (1.0, 3.4), (0.0, -2.4), 40, "top"),
    ),
)


def test_clevr_camera_is_the_base_scene_camera() -> None:
    camera = load_look().camera
    assert (camera.width, camera.height) == (480, 320)
    # 35 mm on a 32 mm sensor is 49.1 degrees across, 33.9 degrees up at 3:2.
    assert abs(camera.fov - 33.9) < 0.05
    column, row = project(camera, (0.0, 0.0, 0.0))
    assert abs(column - 240) < 3 and abs(row - 160) < 6  # it looks at about the origin
    # the table's near corner (towards the camera) is lower in the picture than the far one
    assert project(camera, (3.0, -3.0, 0.0))[1] > project(camera, (-3.0, 3.0, 0.0))[1]


def test_each_object_is_drawn_where_its_trajectory_says() -> None:
    annotation = simulate_scene(SCENE)
    frames = annotation.motion_trajectory
    present = first_present_frames(annotation)
    assert present[:2] == [0, 0] and present[2] >= 40  # the cylinder waits until it is thrown
    sampled = annotation.model_copy(update={"motion_trajectory": frames[0:80:16]})
    with SceneVideo(sampled) as video:
        pictures = list(video.pictures())
        camera = video.look.camera
        sphere_columns = []
        for frame, picture in zip(sampled.motion_trajectory, pictures, strict=True):
            for obj in annotation.object_property:
                mask = picture.instances == video.bodies[obj.object_id]
                if frame.frame_id < present[obj.object_id]:
                    assert not mask.any(), (frame.frame_id, obj.object_id)
                    continue
                rows, columns = np.nonzero(mask)
                assert len(rows) > 30, (frame.frame_id, obj.object_id)
                column, row = project(camera, frame.objects[obj.object_id].location)
                assert abs(columns.mean() - column) < 3 and abs(rows.mean() - row) < 3
                if obj.object_id == 1:
                    sphere_columns.append(columns.mean())
            cube = picture.rgb[picture.instances == video.bodies[0]].mean(axis=0)
            assert cube[0] > 1.5 * cube[1] and cube[0] > 1.5 * cube[2]  # red
    # the sphere rolls towards +x, which the camera sees as left to right
    assert sphere_columns == sorted(sphere_columns) and sphere_columns[-1] - sphere_columns[0] > 40


def test_simulate_render_writes_clevrer_videos_with_identical_bytes(tmp_path: Path) -> None:
    runner = CliRunner()
    scenes = tmp_path / "scenes"
    args = ["simulate", "--scenes", "1", "--first-index", "7", "--render", "--out", str(scenes)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    video = scenes / "video_00007.mp4"
    annotation = read_annotation(scenes / "annotation_00007.json")
    assert annotation.video_filename == video.name
    frames, fps, duration = video_info(video)
    assert (frames, fps) == (128, 25.0) and abs(duration - 5.12) < 1e-9
    first, last = read_frames(video, [0, 127])
    assert first.shape == (320, 480, 3) and last.shape == (320, 480, 3)
    again = tmp_path / "again"
    result = runner.invoke(app, ["render", str(scenes), "--out", str(again)])
    assert result.exit_code == 0, result.output
    assert (again / video.name).read_bytes() == video.read_bytes()


def test_render_refuses_an_annotation_without_frames(tmp_path: Path) -> None:
    scenes = tmp_path / "scenes"
    scenes.mkdir()
    empty = {
        "scene_index": 3,
        "video_filename": "video_00003.mp4",
        "object_property": [],
        "motion_trajectory": [],
        "collision": [],
    }
    (scenes / "annotation_00003.json").write_text(json.dumps(empty))
    result = CliRunner().invoke(app, ["render", str(scenes), "--out", str(tmp_path / "v")])
    assert result.exit_code == 1
    assert "annotation_00003.json.motion_trajectory: expected frames to draw" in result.output
