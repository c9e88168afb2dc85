"""Egocentric videos of EgoTV kitchen episodes: frame counts and segment boundaries line up."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from taskqa.render.video import read_frames, video_info
from taskqa.verify.benchmark import build_trial, sample_trial
from taskqa.verify.cli import app
from taskqa.verify.evaluation import load_benchmark
from taskqa.verify.kitchen import Episode
from taskqa.verify.kitchen_timeline import segment_times, timeline
from taskqa.verify.render import KitchenRenderOptions, KitchenVideo


def test_build_render_writes_videos_whose_frames_match_the_records(tmp_path: Path) -> None:
    out = tmp_path / "egotv"
    args = ["build", "--out", str(out), "--trials", "1", "--render", "--fps", "4", "--size", "96"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(episodes) == 5  # one trial per split
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["render"] == {"fps": 4.0, "size": 96}
    assert len(load_benchmark(out)) == 10  # `verify evaluate` reads the richer records
    for episode in episodes[:2]:
        video = out / episode["video"]
        frames, fps, _ = video_info(video)
        assert fps == 4.0 and frames == episode["frames"]
        segments = episode["segments"]
        assert segments[0]["start"] == 0.0 and segments[0]["start_frame"] == 0
        for before, after in pairwise(segments):
            assert before["end"] == after["start"] and before["end_frame"] == after["start_frame"]
        for segment in segments:
            assert segment["start_frame"] == round(segment["start"] * 4)
            assert segment["end_frame"] == round(segment["end"] * 4)
        assert segments[-1]["end_frame"] == frames
        first, last = read_frames(video, [0, frames - 1])
        assert first.shape == (96, 96, 3) and not np.array_equal(first, last)


def _heating_episode() -> Episode:
    for index in range(40):
        episode, _ = build_trial(sample_trial("train", index, 0), 0)
        if any(s.action.startswith("HeatObject") for s in episode.segments):
            return episode
    raise AssertionError("no heating episode among 40 trials")


def test_heating_shows_as_tint_and_steam_on_the_target() -> None:
    episode = _heating_episode()
    steps = timeline(episode)
    heat = next(s for s in steps if s.action.startswith("HeatObject"))
    assert "hot" not in heat.before.states and "hot" in heat.after.states
    options = KitchenRenderOptions(fps=4.0, size=96)
    with KitchenVideo(episode, options) as video:
        assert video.frame_count() == round(segment_times(episode)[-1][1] * 4)
        pictures = list(video.pictures())
        target, steam = video.target.whole, set(video.target.steam)
    redness: dict[bool, list[float]] = {False: [], True: []}
    for index, picture in enumerate(pictures):
        time = index / options.fps
        if heat.start <= time < heat.end:
            continue
        after = time >= heat.end
        # steam shows exactly when the object is hot (it is never out of the picture for long)
        shown = set(np.unique(picture.instances).tolist())
        if shown & steam:
            assert after, index
        mask = picture.instances == target
        if mask.sum() >= 10:
            rgb = picture.rgb[mask].astype(float).mean(axis=0)
            redness[after].append(rgb[0] - rgb[2])
    assert redness[False] and redness[True]
    assert min(redness[True]) > max(redness[False]) + 20  # tinted red-orange once hot
    with KitchenVideo(episode, options) as again:
        same = zip((p.rgb for p in pictures), again.frames(), strict=True)
        assert all(np.array_equal(a, b) for a, b in same)


def test_a_held_object_sits_on_a_hand_and_a_door_handle_swings_with_its_door() -> None:
    """A viewer sees a held thing in a hand, never floating; a door's handle goes with it."""
    episode = _heating_episode()
    steps = timeline(episode)
    options = KitchenRenderOptions(fps=4.0, size=96)
    held_frames = free_frames = 0
    with KitchenVideo(episode, options) as video:
        palm, _ = video.hands[1.0]
        target = video.target.whole
        for index, picture in enumerate(video.pictures()):
            time = index / options.fps
            step = next((s for s in steps if s.start <= time < s.end), steps[-1])
            moment = step.after if time >= (step.start + step.end) / 2 else step.before
            shown = picture.instances
            if moment.target_at == "agent" and step.action.startswith("GotoLocation"):
                if (shown == target).sum() >= 5 and (shown == palm).sum() >= 5:
                    rows_target = np.nonzero(shown == target)[0].mean()
                    rows_palm = np.nonzero(shown == palm)[0].mean()
                    assert rows_palm > rows_target, index  # the hand is under the object
                    held_frames += 1
            elif moment.target_at != "agent" and moment.knife_at != "agent":
                assert not (shown == palm).any(), index  # no hand while nothing is held
                free_frames += 1
        assert held_frames >= 2 and free_frames >= 2
        # every door and drawer has a handle, and it moves with the door as it opens
        assert set(video.handles) == set(video.doors)
        opening = next(s for s in steps if s.action.startswith("OpenObject"))
        handle = video.handles[opening.action.split()[1]]
        first = round(opening.start * options.fps)
        last = round(opening.end * options.fps) - 1
        pictures = list(video.pictures())
        spots = [np.argwhere(pictures[i].instances == handle) for i in (first, last)]
    assert all(len(spot) for spot in spots)
    assert np.linalg.norm(spots[0].mean(axis=0) - spots[1].mean(axis=0)) > 3  # pixels
