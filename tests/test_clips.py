from __future__ import annotations

import statistics

from taskqa.model import Recording
from taskqa.programs.clips import ClipConfig, cut_clips


def test_every_action_is_shown_in_exactly_one_clip(small_corpus: list[Recording]) -> None:
    for recording in small_corpus:
        clips = cut_clips(recording)
        for agent in recording.agents:
            own = [c for c in clips if c.agent == agent.id]
            shown = [a for c in own for a in c.observed]
            assert shown == [
                a.id for a in sorted(recording.actions_of(agent.id), key=lambda a: a.start)
            ]


def test_future_is_the_next_actions_and_never_shown(small_corpus: list[Recording]) -> None:
    for recording in small_corpus:
        by_id = {a.id: a for a in recording.actions}
        order = {a.id: i for i, a in enumerate(sorted(recording.actions, key=lambda a: a.start))}
        for clip in cut_clips(recording):
            assert len(clip.future) <= 3
            shown = [by_id[a] for a in clip.observed]
            assert all(clip.start <= a.start < clip.prediction_start for a in shown)
            assert all(a.end <= clip.prediction_start for a in shown)
            for future_id in clip.future:
                assert by_id[future_id].start >= clip.prediction_start
                assert by_id[future_id].agent == clip.agent
            if clip.future:
                assert order[clip.future[0]] > order[clip.observed[-1]]
                assert by_id[clip.future[0]].start == clip.prediction_start


def test_other_agents_overlapping_actions_are_attached(small_corpus: list[Recording]) -> None:
    """The other person's actions under way in the clip and done by its last frame; one the
    clip's end cuts off is left out (a viewer does not see it done)."""
    attached = cut_off = 0
    for recording in small_corpus:
        by_id = {a.id: a for a in recording.actions}
        for clip in cut_clips(recording):
            for other in clip.others:
                action = by_id[other]
                assert action.agent != clip.agent
                assert action.start < clip.prediction_start and action.end > clip.start
                assert action.end <= clip.prediction_start
                attached += 1
            cut_off += sum(
                1
                for a in recording.actions
                if a.agent != clip.agent and a.start < clip.prediction_start < a.end
            )
    assert attached > 0 and cut_off > 0


def test_clip_length_follows_the_configuration(small_corpus: list[Recording]) -> None:
    default = [c for r in small_corpus for c in cut_clips(r)]
    short = [c for r in small_corpus for c in cut_clips(r, ClipConfig(seconds=10))]
    long = [c for r in small_corpus for c in cut_clips(r, ClipConfig(seconds=30))]
    # 20 s by default (EgoTaskQA's released windows run 15 to 30 s)
    assert 17 < statistics.mean(c.duration for c in default) < 23
    assert 4 <= statistics.mean(len(c.observed) for c in default) <= 7
    assert len(short) > 2 * len(long) and len(long) < len(default) < len(short)


def test_clip_ids_are_egotaskqa_intervals_and_stable(small_corpus: list[Recording]) -> None:
    recording = small_corpus[0]
    clips = cut_clips(recording)
    assert clips == cut_clips(recording)
    ids = [c.id for c in clips]
    assert len(set(ids)) == len(ids)
    video, agent, start, prediction = ids[0].split("|")
    assert (video, agent) == (recording.id, clips[0].agent)
    assert int(start) == round(clips[0].start * recording.fps)
    assert int(prediction) == round(clips[0].prediction_start * recording.fps)
