"""Scenes from the Bullet engine: determinism, CLEVRER conventions, removal for counterfactuals."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from taskqa.model.physics import EventKind
from taskqa.physics.camera import scene_camera
from taskqa.physics.clevrer_format import (
    COLORS,
    FRAMES,
    MATERIALS,
    SHAPES,
    ClevrerAnnotation,
    annotation_json,
)
from taskqa.physics.engine import simulate_scene
from taskqa.physics.events import ground_truth_events
from taskqa.physics.scene import (
    HALF_SIZE,
    ObjectSpec,
    SceneSpec,
    sample_scene,
)

# A green ball rolls in from the left into a red cube, which slides into a blue cylinder.
# The yellow cube lies far from the line and should never be touched.
CHAIN = SceneSpec(
    7,
    (
        ObjectSpec(0, "red", "rubber", "cube", (0.0, 0.0), (0.0, 0.0), 0, None),
        ObjectSpec(1, "blue", "metal", "cylinder", (1.2, 0.0), (0.0, 0.0), 0, None),
        ObjectSpec(2, "green", "rubber", "sphere", (-3.4, 0.0), (2.5, 0.0), 5, "left"),
        ObjectSpec(3, "yellow", "metal", "cube", (0.0, -2.0), (0.0, 0.0), 0, None),
    ),
)


@pytest.fixture(scope="module")
def scenes() -> list[ClevrerAnnotation]:
    return [simulate_scene(sample_scene(seed=11, scene_index=i)) for i in range(8)]


def test_same_seed_gives_the_same_bytes() -> None:
    spec = sample_scene(seed=3, scene_index=4)
    assert spec == sample_scene(seed=3, scene_index=4)
    assert annotation_json(simulate_scene(spec)) == annotation_json(simulate_scene(spec))
    assert sample_scene(seed=4, scene_index=4) != spec


def test_layouts_use_the_clevrer_vocabulary() -> None:
    specs = [sample_scene(seed=0, scene_index=i) for i in range(60)]
    objects = [o for s in specs for o in s.objects]
    assert {o.shape for o in objects} == set(SHAPES)
    assert {o.material for o in objects} == set(MATERIALS)
    assert {o.color for o in objects} == set(COLORS)
    assert all(3 <= len(s.objects) <= 6 for s in specs)
    # resting objects lie wholly in the picture; thrown ones wait wholly outside it and come
    # in through its left, right or bottom edge
    camera = scene_camera()
    resting = [o for o in objects if o.side is None]
    assert all(camera.sees((*o.start, HALF_SIZE), margin=HALF_SIZE) for o in resting)
    entering = [o for o in objects if o.side is not None]
    assert Counter(o.side for o in entering).keys() == {"left", "right", "bottom"}
    assert not any(camera.sees((*o.start, HALF_SIZE), margin=-2 * HALF_SIZE) for o in entering)


def test_a_thrown_object_enters_through_the_edge_it_was_thrown_through() -> None:
    """The enter event's side is the picture edge a viewer sees it come through."""
    checked = 0
    for index in range(10):
        spec = sample_scene(seed=11, scene_index=index)
        annotation = simulate_scene(spec)
        events = ground_truth_events(annotation)
        first = annotation.motion_trajectory[0].objects
        for obj in spec.objects:
            if obj.side is None:  # in the picture from the first frame
                assert first[obj.object_id].inside_camera_view
                continue
            assert not first[obj.object_id].inside_camera_view
            enters = [
                e for e in events if e.kind == EventKind.ENTER and e.objects[0] == obj.object_id
            ]
            assert enters and enters[0].detail == obj.side, (index, obj)
            checked += 1
    assert checked >= 15


def test_objects_enter_collide_and_leave(scenes: list[ClevrerAnnotation]) -> None:
    assert all(len(a.motion_trajectory) == FRAMES for a in scenes)
    entered = left = 0
    for annotation in scenes:
        for object_id in range(len(annotation.object_property)):
            seen = [f.objects[object_id].inside_camera_view for f in annotation.motion_trajectory]
            entered += any(not a and b for a, b in itertools.pairwise(seen))
            left += any(a and not b for a, b in itertools.pairwise(seen))
    assert entered >= 8 and left >= 3
    collisions = [c for a in scenes for c in a.collision]
    assert len(collisions) >= 5
    for annotation in scenes:
        for collision in annotation.collision:
            a, b = collision.object_ids
            frame = annotation.motion_trajectory[collision.frame_id]
            gap = max(
                abs(p - q)
                for p, q in zip(frame.objects[a].location, frame.objects[b].location, strict=False)
            )
            assert gap < 0.6  # they touched during this frame, so they are still near


def test_objects_slide_on_the_table_and_slow_down(scenes: list[ClevrerAnnotation]) -> None:
    for annotation in scenes:
        for frame in annotation.motion_trajectory:
            assert all(abs(o.location[2] - 0.2) < 0.02 for o in frame.objects)  # no hops
    annotation = simulate_scene(CHAIN)
    speeds = [abs(f.objects[2].velocity[0]) for f in annotation.motion_trajectory[10:30]]
    assert speeds == sorted(speeds, reverse=True) and speeds[0] - speeds[-1] > 0.05


def test_a_causal_chain_and_its_counterfactual() -> None:
    factual = simulate_scene(CHAIN)
    pairs = [(c.object_ids, c.frame_id) for c in factual.collision]
    assert pairs[0][0] == (0, 2) and pairs[1][0] == (0, 1)
    assert pairs[0][1] < pairs[1][1]
    assert all(3 not in ids for ids, _ in pairs)
    without_ball = simulate_scene(CHAIN, removed=frozenset({2}))
    assert without_ball.collision == []
    assert [o.object_id for o in without_ball.motion_trajectory[50].objects] == [0, 1, 2, 3]
    assert not any(f.objects[2].inside_camera_view for f in without_ball.motion_trajectory)
    assert max(abs(v) for v in without_ball.motion_trajectory[-1].objects[0].location[:2]) < 1e-3
