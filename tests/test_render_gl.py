"""The GL render back-end (moderngl on EGL): same scene, same masks, deterministic, and a clear
fallback where no GL context starts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from problem_text import problem_lines
from taskqa.cli import app
from taskqa.household.corpus_videos import render_corpus
from taskqa.household.options import RenderOptions
from taskqa.model import Recording
from taskqa.render import engine
from taskqa.render.engine import Camera, RenderScene, gl_available, open_scene, resolve_backend
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain

GL_PROBLEM = gl_available()
needs_gl = pytest.mark.skipif(
    GL_PROBLEM is not None,
    reason=f"no headless GL context here ({GL_PROBLEM}); `make gl` installs Mesa's EGL",
)


@pytest.fixture(scope="module")
def recordings(domain: Domain) -> list[Recording]:
    return simulate_corpus(SimulationConfig(episodes=2, seed=3), domain)


def _primitives(scene: engine.Scene) -> None:
    scene.add_box((3.0, 3.0, 0.01), (0.6, 0.5, 0.4, 1.0), (0.0, 0.0, 0.0))
    scene.add_box((0.3, 0.2, 0.4), (0.8, 0.1, 0.1, 1.0), (0.5, 0.2, 0.4), yaw=0.4)
    scene.add_cylinder(0.15, 0.5, (0.1, 0.5, 0.8, 1.0), (-0.6, 0.3, 0.25))
    scene.add_sphere(0.2, (0.1, 0.8, 0.2, 1.0), (0.0, -0.7, 0.2))
    hidden = scene.add_sphere(0.3, (0.9, 0.9, 0.1, 0.0), (0.0, 0.0, 0.5))  # transparent
    turned = scene.add_box((0.4, 0.05, 0.05), (0.2, 0.2, 0.2, 1.0), (0.0, 0.0, 1.0))
    scene.move_euler(turned, (-0.2, -0.2, 0.9), (0.0, 0.7, 0.3))
    scene.recolor(hidden, (0.9, 0.9, 0.1, 0.0))


def _iou(first: np.ndarray, second: np.ndarray, label: int) -> float:
    union = ((first == label) | (second == label)).sum()
    return float(((first == label) & (second == label)).sum() / union) if union else 1.0


@needs_gl
def test_gl_draws_the_same_bodies_where_tiny_draws_them() -> None:
    """Every body covers the same pixels in both back-ends' masks (edges aside); a transparent
    body is hidden in both; the GL picture is lit (shadowed pixels darker than lit ones)."""
    camera = Camera(eye=(2.5, -2.5, 2.0), target=(0.0, 0.0, 0.3), width=320, height=320)
    pictures = {}
    for backend in ("tiny", "gl"):
        with open_scene((0.8, 0.8, 0.8, 1.0), backend) as scene:  # type: ignore[attr-defined]
            _primitives(scene)
            pictures[backend] = scene.capture(camera)
    tiny, gl = pictures["tiny"].instances, pictures["gl"].instances
    assert set(np.unique(gl)) == set(np.unique(tiny)) == {-1, 0, 1, 2, 3, 5}
    for label in (0, 1, 2, 3, 5):
        assert _iou(tiny, gl, label) >= 0.8, label
    floor = pictures["gl"].rgb[gl == 0].astype(int).sum(axis=1)
    assert floor.max() - floor.min() > 60  # the box's shadow on the floor


@pytest.fixture()
def corpus(tmp_path: Path, recordings: list[Recording], domain: Domain) -> Path:
    folder = tmp_path / "corpus"
    write_simulated_corpus(folder, SimulationConfig(episodes=2, seed=3), recordings, domain)
    return folder


@needs_gl
def test_gl_videos_are_byte_identical_across_runs_and_workers(tmp_path: Path, corpus: Path) -> None:
    options = RenderOptions(fps=0.5, width=64, height=64, masks=True, backend="gl")
    render_corpus(corpus, tmp_path / "a", options, workers=1)
    render_corpus(corpus, tmp_path / "b", options, workers=2)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.*"))
    assert len(files) >= 6
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    tiny = tmp_path / "tiny"
    render_corpus(corpus, tiny, RenderOptions(fps=0.5, width=64, height=64), workers=1)
    mp4 = next(f for f in files if f.suffix == ".mp4")
    assert (tiny / mp4).read_bytes() != (tmp_path / "a" / mp4).read_bytes()


def test_the_backend_is_chosen_and_said(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_backend("tiny")[0] == "tiny"
    with pytest.raises(ValueError, match="unknown render back-end 'fast'"):
        resolve_backend("fast")
    if GL_PROBLEM is None:
        assert resolve_backend("auto") == ("gl", "render back-end: gl (moderngl on EGL)")
    # where no GL context starts, auto falls back with the reason and gl is refused
    monkeypatch.setattr(engine, "_gl_problem", ["OSError: libEGL.so.1: cannot open"])
    chosen, said = resolve_backend("auto")
    assert chosen == "tiny"
    assert said == "render back-end: tiny (GL could not start: OSError: libEGL.so.1: cannot open)"
    with pytest.raises(RuntimeError, match="cannot start here"):
        resolve_backend("gl")
    assert isinstance(open_scene((0, 0, 0, 1), "tiny"), RenderScene)


def test_render_command_falls_back_and_refuses_clearly(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    base = ["render", str(corpus), "--limit", "1", "--fps", "0.5", "--size", "32"]
    result = runner.invoke(app, [*base, "--backend", "fast"])
    assert result.exit_code == 1
    assert problem_lines(result.output) == [
        "✗ --backend: unknown render back-end 'fast'; expected one of ('auto', 'gl', 'tiny')"
    ]
    monkeypatch.setattr(engine, "_gl_problem", ["OSError: no EGL"])
    result = runner.invoke(app, base)
    assert result.exit_code == 0, result.output
    assert "render back-end: tiny (GL could not start: OSError: no EGL)" in result.output
    result = runner.invoke(app, [*base, "--backend", "gl"])
    assert result.exit_code == 1
    assert "the GL render back-end cannot start here: OSError: no EGL" in result.output


@pytest.mark.parametrize("backend", ["tiny", "gl"])
def test_depth_is_metres_along_the_view(backend: str) -> None:
    if backend == "gl" and GL_PROBLEM is not None:
        pytest.skip(f"no headless GL context here ({GL_PROBLEM})")
    camera = Camera(eye=(0.0, 0.0, 2.0), target=(0.0, 0.0, 0.0), up=(0.0, 1.0, 0.0),
                    width=64, height=64, fov=40.0)  # fmt: skip
    with open_scene((0.5, 0.5, 0.5, 1.0), backend) as scene:  # type: ignore[attr-defined]
        scene.add_box((0.4, 0.4, 0.01), (0.6, 0.5, 0.4, 1.0), (0.0, 0.0, 0.0))
        scene.add_box((0.05, 0.05, 0.25), (0.8, 0.1, 0.1, 1.0), (0.0, 0.0, 0.25))
        picture = scene.capture(camera)
    depth = picture.depth
    assert depth is not None and depth.shape == (64, 64)
    assert depth[32, 32] == pytest.approx(1.5, abs=0.01)  # the post's top, 0.5 m up
    assert depth[20, 32] == pytest.approx(1.99, abs=0.01)  # the slab's top
    assert depth[0, 0] == pytest.approx(camera.far, rel=1e-3)  # nothing drawn there


@needs_gl
def test_render_writes_depth_beside_the_masks(tmp_path: Path, corpus: Path) -> None:
    options = RenderOptions(fps=0.5, width=48, height=48, masks=True, depth=True, backend="gl")
    render_corpus(corpus, tmp_path / "v", options, limit=1)
    masks = sorted((tmp_path / "v").rglob("*.masks.npz"))
    depths = sorted((tmp_path / "v").rglob("*.depth.npz"))
    assert len(depths) == len(masks) >= 2
    with np.load(depths[0]) as data, np.load(masks[0]) as labels:
        depth_mm, named = data["depth_mm"], labels["labels"]
    assert depth_mm.shape == named.shape and depth_mm.dtype == np.uint16
    assert 100 < int(np.median(depth_mm)) < 8000  # a room seen from head height, in mm


@needs_gl
def test_the_appearance_ladder_adds_light_then_surfaces(
    recordings: list[Recording], domain: Domain
) -> None:
    """flat: each body one colour; shaded: lit and shadowed; textured: surfaces vary within a
    body (wood grain, planks). The masks are the same on every rung."""
    from taskqa.household.frames import render_frames
    from taskqa.household.look_spec import load_look

    recording = recordings[0]
    spread = {}
    for look in ("flat", "shaded", "textured"):
        options = RenderOptions(fps=2.0, width=96, height=96, backend="gl", appearance=look)
        frames = render_frames(recording, domain, load_look(), [4], options)["third"][0]
        # distinct colours in the picture: lighting and textures add shades of each colour
        spread[look] = len(np.unique(frames.reshape(-1, 3), axis=0))
    assert spread["flat"] < spread["shaded"] < spread["textured"]
    with pytest.raises(ValueError, match="unknown look 'glossy'"):
        open_scene((0, 0, 0, 1), "gl", "glossy")


def test_every_mesh_is_wound_outwards_so_back_faces_can_be_culled() -> None:
    """Culling drops a triangle seen from behind; a face wound inwards would vanish from view."""
    from taskqa.render import gl

    for build in (gl._box, gl._cylinder, gl._sphere):
        rows, indices = build()
        triangles = rows[indices.reshape(-1, 3)]  # (count, 3 corners, position + normal)
        corners = triangles[:, :, :3]
        winding = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
        normals = triangles[:, :, 3:].mean(axis=1)
        area = np.linalg.norm(winding, axis=1)
        facing = np.einsum("ij,ij->i", winding, normals)
        assert (facing[area > 1e-9] > 0).all(), build.__name__


@needs_gl
def test_a_camera_inside_a_body_sees_out_of_it() -> None:
    """A door swinging through the eye must not fill the picture with its inside."""
    camera = Camera((0.0, 0.0, 1.0), (3.0, 0.0, 1.0), width=64, height=64)
    with open_scene((0.9, 0.9, 0.9, 1.0), "gl") as scene:
        around = scene.add_box((0.3, 0.3, 0.3), (0.1, 0.1, 0.8, 1.0), (0.0, 0.0, 1.0))
        ahead = scene.add_box((0.3, 0.6, 0.6), (0.8, 0.1, 0.1, 1.0), (3.0, 0.0, 1.0))
        shown = scene.capture(camera).instances
    assert not (shown == around).any()
    assert (shown == ahead).sum() > 200


@needs_gl
def test_cast_shadows_keeps_a_moment_s_shadows_for_each_of_its_views() -> None:
    """A person's own body, taken away for their own view, still darkens the floor there."""
    camera = Camera((0.0, -2.0, 3.0), (0.0, 0.0, 0.0), width=64, height=64)
    pictures = []
    for cast_first in (True, False):
        with open_scene((0.9, 0.9, 0.9, 1.0), "gl", appearance="shaded") as scene:
            scene.add_box((3.0, 3.0, 0.01), (0.8, 0.8, 0.8, 1.0), (0.0, 0.0, -0.01))
            body = scene.add_box((0.3, 0.3, 0.8), (0.2, 0.6, 0.2, 1.0), (0.0, 0.0, 0.8))
            if cast_first:
                scene.cast_shadows()
            scene.recolor(body, (0.0, 0.0, 0.0, 0.0))  # gone from this view
            if not cast_first:
                scene.cast_shadows()
            pictures.append(scene.capture(camera).rgb.astype(int).sum())
    kept, without = pictures
    assert kept < without - 64 * 3 * 20  # the kept shadow darkens a patch of floor
