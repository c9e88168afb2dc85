"""Candidate examples: the prefix rule on small recordings, and conformance on the real data."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from data_support import real_data
from taskqa.jsonio import dumps_indented
from taskqa.problems import InvalidInputError
from taskqa.procedural.annotations import (
    AnnotatedRecording,
    AnnotatedStep,
    StepError,
    load_cleaned_annotations,
    load_recording_ids,
    recordings_from_json,
    restrict,
)
from taskqa.procedural.candidates import build_candidates, clock, recording_candidates
from taskqa.procedural.cli import app
from taskqa.procedural.recipes import RecipeGraph, load_recipe_graphs

# ../shared/data, else the cache `taskqa data download` fills (tests/data_support.py)
REAL = real_data("promqa/cleaned_error_annotations.json", "promqa/graphs.json",
                 "captaincook4d/recordings_with_4k_video.json")  # fmt: skip
PROMQA = REAL.root / "promqa"
CC4D = REAL.root / "captaincook4d"
realdata = REAL.mark
RELEASED = real_data("promqa/examples_sample.json")  # a sample only ../shared/data has

# A toast recipe: 1 slice -> 2 toast -> 4 butter, 1 -> 3 get plate -> 4; 5 = END.
GRAPH = RecipeGraph(
    1,
    "Toast",
    {0: "START", 1: "Slice-Slice bread", 2: "Toast-Toast it", 3: "Get-Get a plate",
     4: "Butter-Butter the toast", 5: "END"},
    ((0, 1), (1, 2), (1, 3), (2, 4), (3, 4), (4, 5)),
)  # fmt: skip
START = AnnotatedStep(-1, "Start-Start cooking.", 0.0, 6.0)


def _recording(*steps: AnnotatedStep) -> AnnotatedRecording:
    return AnnotatedRecording("1_1", 1, "Toast", (START, *steps))


def _step(step_id: int, start: float, end: float, *tags: str) -> AnnotatedStep:
    errors = tuple(StepError(tag, f"{tag} here") for tag in tags)
    return AnnotatedStep(step_id, GRAPH.steps[step_id], start, end, errors)


def _ids(recording: AnnotatedRecording) -> list[str]:
    return [c["question_id"] for c in recording_candidates(recording, GRAPH)]


def test_start_gets_only_next_and_steps_get_next_and_missing() -> None:
    found = list(recording_candidates(_recording(_step(1, 6.0, 20.0)), GRAPH))
    assert [c["question_id"] for c in found] == ["1_1_-1_next", "1_1_1_next", "1_1_1_missing"]
    start, after_slice, _ = found
    assert start["next_steps"] == [{"step_id": 1, "description": "Slice-Slice bread"}]
    assert start["previous_steps"] == [] and start["current_step"]["step_id"] == -1
    assert [s["step_id"] for s in after_slice["next_steps"]] == [2, 3]
    assert after_slice["end_time"] == "00:00:20"


def test_targets_follow_the_graph() -> None:
    # Toast then butter without a plate: the plate is missing; nothing is next but END.
    recording = _recording(_step(1, 6, 20), _step(2, 21, 40), _step(4, 41, 60))
    last = [c for c in recording_candidates(recording, GRAPH) if c["example_id"] == "1_1_4"]
    assert last[0]["next_steps"] == []
    assert last[1]["missing_steps"] == [{"step_id": 3, "description": "Get-Get a plate"}]


def test_skips_missing_steps_short_clips_and_repeats() -> None:
    missing = AnnotatedStep(3, GRAPH.steps[3], -1, -1, (StepError("Missing Step", "Skipped"),))
    recording = AnnotatedRecording(
        "1_1",
        1,
        "Toast",
        (AnnotatedStep(-1, "Start-Start cooking.", 0, 3.0), missing, _step(1, 3.0, 4.5),
         _step(2, 10, 20), _step(1, 21, 30), _step(4, 31, 40)),
    )  # fmt: skip
    ids = _ids(recording)
    # START and the first slice end before 5 s; the second slice repeats step 1 and is asked
    # about (it is the first clear prefix for step 1); the missing plate never is.
    assert ids == ["1_1_2_next", "1_1_2_missing", "1_1_1_next", "1_1_1_missing",
                   "1_1_4_next", "1_1_4_missing"]  # fmt: skip
    histories = {c["example_id"]: [s["step_id"] for s in c["previous_steps"]] for c in
                 recording_candidates(recording, GRAPH)}  # fmt: skip
    # A step ending before 5 s is dropped outright, from the history too, as in the release
    # (which logs a warning there); in the real data only START ends that early.
    assert histories["1_1_2"] == []
    assert histories["1_1_4"] == [2, 1]


def test_a_repeated_step_is_asked_about_once() -> None:
    recording = _recording(_step(1, 6, 20), _step(2, 21, 30), _step(1, 31, 40), _step(4, 41, 50))
    assert Counter(_ids(recording))["1_1_1_next"] == 1


def test_overlapping_later_step_suppresses_questions_beyond_the_margin() -> None:
    # Step 2 starts 1.5 s before step 1 ends: within the 2 s margin, so step 1 is clear.
    within = _recording(_step(1, 6, 20), _step(2, 18.5, 30))
    assert "1_1_1_next" in _ids(within)
    # Starting 3 s before the end overlaps: no questions at step 1, but it enters history.
    beyond = _recording(_step(1, 6, 20), _step(2, 17, 30))
    assert "1_1_1_next" not in _ids(beyond)
    later = [c for c in recording_candidates(beyond, GRAPH) if c["example_id"] == "1_1_2"]
    assert later[0]["previous_steps"][0]["step_id"] == 1
    # A step of 2 s or less may overlap by up to 90% of its length: 1 s long, starting 0.85 s
    # before the clip ends, is tolerated; starting 0.95 s before is not.
    assert "1_1_1_next" in _ids(_recording(_step(1, 6, 20), _step(2, 19.15, 20.15)))
    assert "1_1_1_next" not in _ids(_recording(_step(1, 6, 20), _step(2, 19.05, 20.05)))


def test_error_types_and_type_specific_noise() -> None:
    recording = _recording(
        _step(1, 6, 20, "Order Error"),
        _step(2, 21, 40, "Timing Error", "Technique Error"),
    )
    found = {c["question_id"]: c for c in recording_candidates(recording, GRAPH)}
    assert [q for q in found if q.startswith("1_1_2")] == [
        "1_1_2_next", "1_1_2_missing", "1_1_2_timing", "1_1_2_technique",
    ]  # fmt: skip
    assert found["1_1_2_timing"]["error_description"] == "Timing Error here"
    assert found["1_1_1_order"]["is_noisy"] is False
    # The history holds an Order Error: noisy for every type but order.
    assert found["1_1_2_next"]["is_noisy"] and found["1_1_2_timing"]["is_noisy"]
    assert found["1_1_2_missing"]["is_noisy"]
    assert found["1_1_2_next"]["previous_steps"][0]["errors"] == [
        {"tag": "Order Error", "description": "Order Error here"}
    ]


def test_clock_truncates_to_seconds() -> None:
    assert clock(3725.99) == "01:02:05" and clock(59.999) == "00:00:59"


def test_bad_annotations_name_the_record_path() -> None:
    data = [{"recording_id": "1_1", "activity_id": 1, "activity_name": "Toast",
             "step_annotations": [{"step_id": 1, "description": "x", "start_time": 0,
                                   "end_time": "late"}]}]  # fmt: skip
    with pytest.raises(InvalidInputError) as caught:
        recordings_from_json(data, "cleaned_error_annotations.json")
    assert str(caught.value.problems[0]) == (
        "cleaned_error_annotations.json[0].step_annotations[0].end_time: "
        "expected a number (got 'late')"
    )


def test_unknown_activity_is_reported() -> None:
    recording = AnnotatedRecording("9_1", 9, "Soup", (START,))
    with pytest.raises(InvalidInputError, match="no task graph for activity 9"):
        build_candidates([recording], {1: GRAPH})


def test_indented_writer_matches_the_standard_library() -> None:
    shared = {"step_id": 1, "description": 'say "hi" \u2013 ok', "errors": [{"tag": "t"}]}
    value = [{"a": [shared, shared], "b": True, "c": None, "d": 1.5, "e": [], "f": {}},
             {"a": [shared], "n": -3, 1: {True: None, None: 2.5}}]  # fmt: skip
    assert dumps_indented(value) == json.dumps(value, indent=4)


# --- the real data -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_candidates() -> list[dict[str, Any]]:
    recordings = restrict(
        load_cleaned_annotations(PROMQA / "cleaned_error_annotations.json"),
        load_recording_ids(CC4D / "recordings_with_4k_video.json"),
    )
    assert len(recordings) == 363
    return build_candidates(recordings, load_recipe_graphs(PROMQA / "graphs.json"))


@realdata
def test_conformance_counts(real_candidates: list[dict[str, Any]]) -> None:
    assert len(real_candidates) == 11_781
    assert Counter(c["type"] for c in real_candidates) == {
        "next": 5024, "missing": 4813, "order": 664, "technique": 443,
        "preparation": 346, "measurement": 302, "timing": 136, "temperature": 53,
    }  # fmt: skip
    assert len({c["question_id"] for c in real_candidates}) == 11_781


@realdata
@RELEASED.mark
def test_released_sample_records_are_reproduced(real_candidates: list[dict[str, Any]]) -> None:
    by_id = {c["question_id"]: c for c in real_candidates}
    released = json.loads((RELEASED.root / "promqa" / "examples_sample.json").read_text())
    assert len(released) == 25
    for record in released:
        ours = by_id[record["question_id"]]
        expected = {key: record[key] for key in ours}
        assert ours == expected, record["question_id"]
        assert list(ours) == list(record)[: len(ours)]  # same fields in the same order


@realdata
def test_cli_writes_the_release_layout(tmp_path: Path, real_candidates: list[Any]) -> None:
    out = tmp_path / "candidates.json"
    result = CliRunner().invoke(
        app,
        ["candidates", "--annotations", str(PROMQA / "cleaned_error_annotations.json"),
         "--graphs", str(PROMQA / "graphs.json"),
         "--recordings", str(CC4D / "recordings_with_4k_video.json"), "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "11781 candidates from 363 recordings" in result.output
    text = out.read_text()
    assert text == json.dumps(real_candidates, indent=4) + "\n"


def test_cli_reports_bad_input_with_its_path(tmp_path: Path) -> None:
    broken = tmp_path / "annotations.json"
    broken.write_text('[{"recording_id": "1_1"}]')
    graphs = tmp_path / "graphs.json"
    graphs.write_text(json.dumps({"1": GRAPH.as_json()}))
    result = CliRunner().invoke(
        app,
        ["candidates", "--annotations", str(broken), "--graphs", str(graphs),
         "--out", str(tmp_path / "out.json")],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "annotations.json[0].activity_id: missing; expected a integer" in result.output
    assert not (tmp_path / "out.json").exists()
