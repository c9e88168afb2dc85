"""Predictions of a state are asked only where the clip points to the person's next step."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from taskqa.causal import build_structure
from taskqa.model import Recording
from taskqa.programs.clips import Clip, cut_clips
from taskqa.programs.records import build_view
from taskqa.questions import visible
from taskqa.questions.config import GenerationConfig
from taskqa.questions.foreseen import next_step_foreseen
from taskqa.questions.generate import questions_for_recording
from taskqa.questions.template import load_templates
from taskqa.questions.visible import BLENDED_AHEAD, CLEAN_AHEAD, FILL_OR_WASH, NEXT_UNFORESEEN
from taskqa.simulation.domain import Domain

RECORDINGS = 30
NEXT_STATE = "predictive/world/next-state"


def _ready_steps(recording: Recording, task: str, clip: Clip, step: str) -> set[str]:
    """The steps of the clip person's ``task`` (the procedure where they do ``step``) not done by
    the prediction point whose predecessors in the graph all are (read with networkx)."""
    for procedure in recording.procedures:
        if procedure.task_graph.name != task or not any(
            s.step == step and s.agent in (None, clip.agent) for s in procedure.steps
        ):
            continue
        graph = procedure.task_graph.digraph()
        done = {procedure.task_graph.start} | {
            s.step for s in procedure.steps if s.end is not None and s.end <= clip.prediction_start
        }
        return {
            step
            for step in graph.nodes
            if step not in done
            and step != procedure.task_graph.end
            and set(graph.predecessors(step)) <= done
        }
    return set()


def _kind(recording: Recording, clip: Clip) -> str:
    """How the next action follows the last one shown: continues its step, starts the one step
    the task leaves ready, starts one of several, or serves another task or none."""
    by_id = {a.id: a for a in recording.actions}
    upcoming, last = by_id[clip.future[0]], by_id[clip.observed[-1]]
    shared = set(upcoming.tasks) & set(last.tasks)
    if upcoming.step is None or not shared:
        return "elsewhere"
    if upcoming.step == last.step:
        return "continues"
    ready = [_ready_steps(recording, task, clip, upcoming.step) for task in sorted(shared)]
    return "only ready" if {upcoming.step} in ready else "several ready"


@pytest.fixture(scope="module")
def clips(small_corpus: list[Recording]) -> list[tuple[Recording, Clip]]:
    return [
        (recording, clip)
        for recording in small_corpus[:RECORDINGS]
        for clip in cut_clips(recording)
        if clip.future and clip.observed
    ]


def test_the_next_step_is_foreseen_where_the_task_points_to_it(
    clips: list[tuple[Recording, Clip]],
) -> None:
    kinds: Counter[str] = Counter()
    for recording, clip in clips:
        kind = _kind(recording, clip)
        kinds[kind] += 1
        assert next_step_foreseen(recording, clip) == (kind in ("continues", "only ready")), (
            clip.id,
            kind,
        )
    # the corpus holds every case, so each branch of the rule is exercised
    assert all(kinds[k] >= 3 for k in ("continues", "only ready", "several ready", "elsewhere"))


def test_a_next_action_outside_any_step_is_not_foreseen(
    clips: list[tuple[Recording, Clip]],
) -> None:
    recording, clip = next((r, c) for r, c in clips if _kind(r, c) == "continues")
    assert next_step_foreseen(recording, clip)
    upcoming = clip.future[0]
    stepless = recording.model_copy(
        update={
            "actions": [
                a.model_copy(update={"step": None}) if a.id == upcoming else a
                for a in recording.actions
            ]
        }
    )
    assert not next_step_foreseen(stepless, clip)


def test_annotations_without_a_task_graph_keep_their_predictions(
    clips: list[tuple[Recording, Clip]],
) -> None:
    recording, clip = next((r, c) for r, c in clips if _kind(r, c) == "several ready")
    assert not next_step_foreseen(recording, clip)
    assert next_step_foreseen(recording.model_copy(update={"procedures": []}), clip)


def test_a_predicted_state_is_asked_only_where_the_next_step_is_foreseen_nor_of_dirt(
    small_corpus: list[Recording], domain: Domain
) -> None:
    templates = load_templates()
    rejected: Counter[str] = Counter()
    asked = 0
    for recording in small_corpus[:RECORDINGS]:
        clip_of = {c.id: c for c in cut_clips(recording)}
        by_id = {a.id: a for a in recording.actions}
        for question in questions_for_recording(
            recording, templates, GenerationConfig(), domain.templates, rejected
        ):
            if "predictive" in question.types:
                # nor how hot or how clean a thing will be (the world's rules, not the frames)
                assert "temperature" not in question.program, question.question
                assert "cleanliness" not in question.program, question.question
            if question.template.startswith(NEXT_STATE):
                asked += 1
                clip = clip_of[question.clip]
                kind = _kind(recording, clip)
                assert kind in ("continues", "only ready"), (question.question, kind)
                # nor how full a thing being washed will be (it looks filled), nor the shape of
                # a thing going into the blender (the world calls it liquid)
                upcoming = by_id[clip.future[0]].verb
                assert not ("emptiness" in question.program and upcoming == "wash"), question
                assert not ("shape" in question.program and upcoming == "blend"), question
    assert asked >= 5
    assert rejected[NEXT_UNFORESEEN] >= 5  # and the rules did drop some
    assert rejected[CLEAN_AHEAD] >= 1


@pytest.mark.parametrize(
    ("attribute", "verb", "dropped"),
    [
        ("emptiness", "wash", FILL_OR_WASH),
        ("emptiness", "fill", None),
        ("shape", "blend", BLENDED_AHEAD),
        ("shape", "cut", None),
    ],
)
def test_no_prediction_of_fullness_under_the_tap_nor_of_shape_in_the_blender(
    small_corpus: list[Recording], domain: Domain, attribute: str, verb: str, dropped: str | None
) -> None:
    """A pot washed under the tap looks filled, and blended fruit is "liquid" to the world but
    still cut to a viewer: "will the pot be full after the person's next action?" is not asked
    where that action washes, nor "will the orange be cut ...?" where it blends. Too rare on the
    test corpus to meet, so a clip's next action is set to each verb here."""
    template = next(t for t in load_templates() if t.id == f"{NEXT_STATE}-verify")
    recording = small_corpus[0]
    clip = next(c for c in cut_clips(recording) if c.future)
    view = build_view(recording, clip, build_structure(recording, domain=domain))
    upcoming = replace(view.future[0], fields={**view.future[0].fields, "verb": (verb,)})
    view = replace(view, future=(upcoming, *view.future[1:]))
    on_screen = visible.Clip(view, {}, frozenset(), frozenset(), True)
    values = {"o": "pot", "f": attribute, "fv": "full" if attribute == "emptiness" else "cut"}
    assert visible.unseen(template, values, "no", on_screen, domain) == dropped
