"""Scene facts: how the things an action does not touch stood while it ran, on simulated clips."""

from __future__ import annotations

from taskqa.causal import CausalStructure
from taskqa.model import UNKNOWN, Recording
from taskqa.programs import parse_program
from taskqa.programs.clips import cut_clips
from taskqa.programs.executor import result
from taskqa.programs.records import ClipView, build_view
from taskqa.programs.scene import SCENE, UNSEEN


def _views(recordings: list[Recording]) -> list[tuple[Recording, ClipView]]:
    return [
        (recording, build_view(recording, clip, CausalStructure(recording.id, [])))
        for recording in recordings
        for clip in cut_clips(recording)
    ]


def _annotated(recording: Recording, obj: str, at: float, side: str) -> dict[str, str] | None:
    """``obj``'s attributes as the next action touching it after ``at`` found them (``side`` =
    before), or as the last one touching it before ``at`` left them (``side`` = after)."""
    touching = [a for a in recording.actions if a.transition(obj) is not None]
    if side == "before":
        later = sorted((a for a in touching if a.start >= at), key=lambda a: a.start)
        chosen = later[0] if later else None
    else:
        earlier = sorted((a for a in touching if a.end <= at), key=lambda a: a.end)
        chosen = earlier[-1] if earlier else None
    if chosen is None:
        return None
    transition = chosen.transition(obj)
    assert transition is not None
    snapshot = transition.before if side == "before" else transition.after
    return {a.value: v for a, v in snapshot.attributes.items()}


def test_scene_values_agree_with_the_actions_before_and_after(
    small_corpus: list[Recording],
) -> None:
    checked = 0
    for recording, view in _views(small_corpus[:25]):
        for interval in view.observed:
            for fact in interval.facts:
                if fact.kind != SCENE:
                    continue
                obj, attribute, value = (fact.fields[k] for k in ("obj", "attribute", "value"))
                assert attribute not in UNSEEN
                # the thing is untouched by the action itself
                assert obj not in interval.value("obj")
                for side, at in (("after", interval.start), ("before", interval.end)):
                    seen = _annotated(recording, obj, at, side)
                    if seen is not None and seen.get(attribute) not in (None, UNKNOWN):
                        assert seen[attribute] == value, (recording.id, interval.id, obj)
                        checked += 1
    assert checked > 1000


def test_no_scene_fact_for_a_thing_someone_handles_meanwhile(
    small_corpus: list[Recording],
) -> None:
    found = 0
    for recording, view in _views(small_corpus[:25]):
        for interval in view.observed:
            scene = {f.fields["obj"] for f in interval.facts if f.kind == SCENE}
            for action in recording.actions:
                if action.start < interval.end and action.end > interval.start:
                    handled = {t.entity for t in action.transitions if not t.is_agent}
                    assert not (scene & handled), (interval.id, action.id)
                    found += bool(handled - set(interval.value("obj")))
    assert found > 0  # two people do overlap on the things of a clip


def test_the_last_action_scene_holds_to_the_end_of_the_clip(
    small_corpus: list[Recording],
) -> None:
    for recording, view in _views(small_corpus[:25]):
        last = view.observed[-1]
        end = view.clip.prediction_start
        scene = {f.fields["obj"] for f in last.facts if f.kind == SCENE}
        for action in recording.actions:
            if last.end <= action.start < end:
                handled = {t.entity for t in action.transitions if not t.is_agent}
                assert not (scene & handled), (view.clip.id, action.id)


def test_stopped_being_is_answered_by_either_persons_change(
    small_corpus: list[Recording],
) -> None:
    answers = {"yes": 0, "no": 0}
    for _, view in _views(small_corpus):
        first = view.observed[0]
        for fact in first.facts:
            if fact.kind != SCENE or fact.fields["attribute"] != "openness":
                continue
            obj, value = fact.fields["obj"], fact.fields["value"]
            program = parse_program(
                f"exist(change, obj@{obj}, attribute@openness, before@{value}, localize(after, "
                f"only(filter(scene, obj@{obj}, attribute@openness, value@{value}, "
                "iterate_until(forward, video))), everyone))"
            )
            answer = result(program, view)
            if answer is None:
                continue  # nothing after the first action
            changed = any(
                f.kind == "change"
                and f.fields["obj"] == obj
                and f.fields["attribute"] == "openness"
                and f.fields["before"] == value
                for i in (*view.observed[1:], *view.others)
                if i.start >= first.end
                for f in i.facts
            )
            assert answer == ("yes" if changed else "no"), (view.clip.id, obj)
            answers[answer] += 1
    assert answers["yes"] > 10 and answers["no"] > 10
