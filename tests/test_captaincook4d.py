"""The CaptainCook4D reader and validator: a small synthetic release, broken copies, real data."""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from data_support import real_data
from problem_text import by_name
from taskqa.model import ErrorTag, Recording, Source, TaskGraph
from taskqa.problems import InvalidInputError, Problem
from taskqa.sources.captaincook4d import (
    FPS,
    StepLocalizer,
    detect_captaincook4d,
    load_task_graphs,
    read_captaincook4d,
    validate_captaincook4d_file,
)

# ../shared/data, else the cache `taskqa data download` fills (tests/data_support.py)
REAL = real_data("captaincook4d/annotation_json", "captaincook4d/task_graphs", "captaincook4d/metadata",
                 "promqa/graphs.json", "promqa/cleaned_error_annotations.json")  # fmt: skip
CC4D = REAL.root / "captaincook4d"
PROMQA = REAL.root / "promqa"
realdata = REAL.mark

Json = Any

# --- a small synthetic release -------------------------------------------------------------------
# One recipe, "Flip Toast", whose "Flip" step occurs twice in the graph: local 5 comes before
# local 3, so the first flip of a recording must map to 5 and the second to 3.

GRAPH: Json = {
    "steps": {
        "0": "START",
        "1": "Slice-Slice the bread",
        "2": "Toast-Toast the slice",
        "3": "Flip-Flip the slice",
        "4": "Butter-Butter the toast",
        "5": "Flip-Flip the slice",
        "6": "END",
    },
    "edges": [[0, 1], [1, 2], [2, 5], [5, 4], [4, 3], [3, 6]],
}
CATALOG = {
    "11": "Slice-Slice the bread",
    "12": "Toast-Toast the slice",
    "13": "Flip-Flip the slice",
    "14": "Butter-Butter the toast",
}


def _step(global_id: int, start: float, end: float, **extra: Any) -> Json:
    return {"description": CATALOG[str(global_id)], "step_id": global_id, **extra} | {
        "start_time": start,
        "end_time": end,
    }


def _error_annotations() -> Json:
    technique = [{"tag": "Technique Error", "description": "flipped with a fork"}]
    missing = [{"tag": "Missing Step", "description": "Skipped this step"}]
    return [
        {
            "recording_id": "1_1",
            "activity_id": 1,
            "is_error": True,
            "step_annotations": [  # not in time order, as in the release
                _step(14, 30.0, 40.0),
                _step(11, 0.5, 10.0),
                _step(12, 10.0, 20.0),
                _step(13, 20.0, 25.0),
                _step(13, 41.0, 45.0, errors=technique, modified_description="Flip-with a fork"),
            ],
        },
        {
            "recording_id": "1_2",
            "activity_id": 1,
            "is_error": True,
            "step_annotations": [
                _step(11, 0.0, 8.0),
                _step(12, -1, -1, errors=missing, modified_description="Skipped this step"),
                _step(13, -1, -1),  # skipped without the tag, as activity 18 does
            ],
        },
    ]


def _complete(errors: Json) -> Json:
    return {
        record["recording_id"]: {
            "recording_id": record["recording_id"],
            "activity_id": record["activity_id"],
            "activity_name": "Flip Toast",
            "person_id": 3,
            "environment": 8,
            "steps": [
                {k: s[k] for k in ("step_id", "start_time", "end_time", "description")}
                | {"has_errors": "errors" in s}
                for s in record["step_annotations"]
            ],
        }
        for record in errors
    }


def write_release(root: Path, edit: Callable[[dict[str, Json]], None] | None = None) -> Path:
    """Write the synthetic release; ``edit`` may change the JSON of any file before writing."""
    errors = _error_annotations()
    complete = _complete(errors)
    files: dict[str, Json] = {
        "annotation_json/error_annotations.json": errors,
        "annotation_json/complete_step_annotations.json": complete,
        "annotation_json/step_annotations.json": {
            key: {"recording_id": key, "steps": value["steps"]} for key, value in complete.items()
        },
        "annotation_json/step_idx_description.json": CATALOG,
        "task_graphs/fliptoast.json": GRAPH,
    }
    files = json.loads(json.dumps(files))  # edits must not reach the module's constants
    if edit is not None:
        edit(files)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content, indent=1))
    metadata = root / "metadata"
    metadata.mkdir(exist_ok=True)
    (metadata / "video_information.csv").write_text(
        "recording_id,environment_id,person_id,duration(min),duration(sec)\n1_1,8,3,0.75,44.99\n"
    )
    return root


def messages(problems: list[Problem]) -> list[str]:
    return [by_name(p) for p in problems]


def read_problems(root: Path) -> list[str]:
    with pytest.raises(InvalidInputError) as caught:
        read_captaincook4d(root)
    return messages(caught.value.problems)


# --- reading -------------------------------------------------------------------------------------


def test_reads_the_synthetic_release(tmp_path: Path) -> None:
    first, second = read_captaincook4d(write_release(tmp_path))
    assert (first.id, first.source, first.fps, first.environment) == (
        "1_1",
        Source.CAPTAINCOOK4D,
        FPS,
        "8",
    )
    assert [a.id for a in first.agents] == ["person-3"]
    assert first.videos[0].uri == "gopro/resolution_360p/1_1_360p.mp4"
    assert first.videos[0].agent == "person-3"
    assert first.tasks == ["Flip Toast"]
    assert first.metadata == {"activity_id": 1, "person_id": 3, "is_error": True}
    procedure = first.procedures[0]
    assert procedure.task_graph.start == "0" and procedure.task_graph.end == "6"
    # Time order; the first flip is the graph's earlier copy (5), the second the later one (3).
    assert [(s.step, s.source_step_id) for s in procedure.steps] == [
        ("1", 11),
        ("2", 12),
        ("5", 13),
        ("4", 14),
        ("3", 13),
    ]
    assert procedure.steps[-1].tags == [ErrorTag.TECHNIQUE]
    assert procedure.steps[-1].modified_description == "Flip-with a fork"
    assert [(a.id, a.verb, a.step, a.start, a.end) for a in first.actions] == [
        ("step-11", "slice", "1", 0.5, 10.0),
        ("step-12", "toast", "2", 10.0, 20.0),
        ("step-13", "flip", "5", 20.0, 25.0),
        ("step-14", "butter", "4", 30.0, 40.0),
        ("step-13-2", "flip", "3", 41.0, 45.0),
    ]
    assert all(a.agent == "person-3" and a.tasks == ["Flip Toast"] for a in first.actions)
    assert first.duration == 45.0  # the CSV's 44.99 s is extended to the last step's end
    assert second.duration == 8.0  # not in the CSV: the last step's end


def test_missing_steps_have_no_times_and_no_action(tmp_path: Path) -> None:
    _, second = read_captaincook4d(write_release(tmp_path))
    steps = second.procedures[0].steps
    assert [(s.step, s.start, s.end) for s in steps] == [
        ("2", None, None),
        ("5", None, None),
        ("1", 0.0, 8.0),
    ]
    assert steps[0].tags == [ErrorTag.MISSING_STEP]
    assert steps[1].tags == []  # times of -1 alone make a step missing; no tag is invented
    assert [s.is_missing for s in steps] == [True, True, False]
    assert [a.id for a in second.actions] == ["step-11"]


def test_a_missing_step_tag_drops_annotated_times(tmp_path: Path) -> None:
    def tag_with_times(files: dict[str, Json]) -> None:
        step = files["annotation_json/error_annotations.json"][0]["step_annotations"][0]
        step["errors"] = [{"tag": "Missing Step", "description": "Skipped this step"}]

    first, _ = read_captaincook4d(write_release(tmp_path, tag_with_times))
    butter = next(s for s in first.procedures[0].steps if s.source_step_id == 14)
    assert (butter.start, butter.end) == (None, None)
    assert "step-14" not in [a.id for a in first.actions]


def test_a_typo_is_mapped_through_the_step_catalog(tmp_path: Path) -> None:
    def typo(files: dict[str, Json]) -> None:
        files["annotation_json/error_annotations.json"][0]["step_annotations"][0]["description"] = (
            "Butter-Buter the toast"
        )

    first, _ = read_captaincook4d(write_release(tmp_path, typo))
    butter = next(s for s in first.procedures[0].steps if s.source_step_id == 14)
    assert (butter.step, butter.description) == ("4", "Butter-Buter the toast")


def test_load_task_graphs_from_a_folder_and_from_graphs_json(tmp_path: Path) -> None:
    root = write_release(tmp_path / "cc4d")
    graphs_json = tmp_path / "graphs.json"
    graphs_json.write_text(json.dumps({"1": {"name": "Flip Toast", **GRAPH}}))
    from_root = load_task_graphs(root)
    assert from_root == load_task_graphs(root / "task_graphs") == load_task_graphs(graphs_json)
    graph = from_root[1]
    assert graph.name == "Flip Toast"
    assert [s.id for s in graph.steps] == ["0", "1", "2", "3", "4", "5", "6"]
    assert ("2", "5") in graph.edges and (graph.start, graph.end) == ("0", "6")
    assert load_task_graphs(root / "task_graphs", {7: "Flip Toast"}).keys() == {7}


def test_localizer_orders_repeated_copies_by_precedence() -> None:
    graph = load_graph_dict(GRAPH)
    localizer = StepLocalizer(graph)
    assert localizer.repeated_texts() == {"Flip-Flip the slice": ["5", "3"]}
    flips = [(13, "Flip-Flip the slice")] * 3
    assert localizer.localize(flips) == ["5", "3", "3"]  # extra repeats stay on the last copy
    assert localizer.localize([(99, "Nothing-like this")]) == [None]


def load_graph_dict(raw: Json) -> TaskGraph:
    from taskqa.sources.captaincook4d.graphs import check_graph_data

    graph, problems = check_graph_data(raw, "Flip Toast", "fliptoast.json")
    assert problems == [] and graph is not None
    return graph


# --- broken files --------------------------------------------------------------------------------


def test_truncated_json_is_reported_by_file(tmp_path: Path) -> None:
    root = write_release(tmp_path)
    path = root / "annotation_json" / "error_annotations.json"
    path.write_text(path.read_text()[:500])
    (problem,) = validate_captaincook4d_file(path)
    assert problem.file == str(path) and problem.location == ""  # the path as given
    assert problem.message.startswith("invalid JSON: Expecting")
    assert problem.message.endswith("(the file looks truncated)")
    assert read_problems(root) == [by_name(problem)]


def test_wrong_types_and_missing_fields(tmp_path: Path) -> None:
    def break_types(files: dict[str, Json]) -> None:
        record = files["annotation_json/error_annotations.json"][0]
        record["is_error"] = "yes"
        record["step_annotations"][1]["start_time"] = "10.5"
        del record["step_annotations"][2]["end_time"]
        record["step_annotations"][3]["modified_descripton"] = "typo in the key"
        files["annotation_json/error_annotations.json"][1]["step_annotations"] = {"0": {}}

    root = write_release(tmp_path, break_types)
    found = messages(
        validate_captaincook4d_file(root / "annotation_json" / "error_annotations.json")
    )
    assert found == [
        'error_annotations.json[0].is_error: Input should be a valid boolean (got "yes")',
        "error_annotations.json[0].step_annotations[1].start_time: "
        'Input should be a valid number (got "10.5")',
        "error_annotations.json[0].step_annotations[2].end_time: field required",
        "error_annotations.json[0].step_annotations[3].modified_descripton: "
        "extra inputs are not permitted",
        "error_annotations.json[1].step_annotations: Input should be a valid list",
    ]
    assert read_problems(root) == found


def test_a_repeated_recording(tmp_path: Path) -> None:
    def repeat(files: dict[str, Json]) -> None:
        errors = files["annotation_json/error_annotations.json"]
        errors.append(errors[0])

    assert read_problems(write_release(tmp_path, repeat)) == [
        "error_annotations.json[2].recording_id: recording '1_1' repeats "
        "error_annotations.json[0].recording_id; expected it once"
    ]


def test_top_level_shape(tmp_path: Path) -> None:
    path = tmp_path / "error_annotations.json"
    path.write_text('{"recording_id": "1_1"}')
    assert messages(validate_captaincook4d_file(path)) == [
        "error_annotations.json: expected a JSON list of recordings (got an object)"
    ]


def test_times(tmp_path: Path) -> None:
    def break_times(files: dict[str, Json]) -> None:
        steps = files["annotation_json/error_annotations.json"][0]["step_annotations"]
        steps[0]["start_time"], steps[0]["end_time"] = 20.0, 10.5
        steps[1]["start_time"] = -1
        steps[2]["end_time"] = -3.0

    root = write_release(tmp_path, break_times)
    expected = [
        "error_annotations.json[0].step_annotations[0].end_time: end_time 10.5 is before "
        "start_time 20.0; expected end_time >= start_time",
        "error_annotations.json[0].step_annotations[1].start_time: start_time is -1 but the "
        "other time is 10.0; expected both times -1 for a missing step, or both >= 0",
        "error_annotations.json[0].step_annotations[2].end_time: end_time -3.0 is negative; "
        "expected seconds >= 0, or -1 for a missing step",
    ]
    assert (
        messages(validate_captaincook4d_file(root / "annotation_json" / "error_annotations.json"))
        == expected
    )
    assert read_problems(root) == expected


def test_unknown_step_ids_tags_and_descriptions(tmp_path: Path) -> None:
    def break_ids(files: dict[str, Json]) -> None:
        files["annotation_json/step_idx_description.json"]["15"] = "Eat-Eat the toast"
        steps = files["annotation_json/error_annotations.json"][0]["step_annotations"]
        steps[1]["step_id"] = 99
        steps[2].update(step_id=15, description="Eat-Eat the toast")
        steps[3]["errors"] = [{"tag": "Order error", "description": "too early"}]
        steps[4]["description"] = "no verb here"  # still mapped, through its id's catalog text

    root = write_release(tmp_path, break_ids)
    expected = [
        "error_annotations.json[0].step_annotations[3].errors[0].tag: unknown error tag "
        '\'Order error\'; expected one of "Preparation Error", "Measurement Error", '
        '"Order Error", "Timing Error", "Technique Error", "Temperature Error", '
        '"Missing Step", "Other"',
        "error_annotations.json[0].step_annotations[4].description: 'no verb here' has no verb "
        'before a "-"; expected "<Verb>-<text>"',
        "error_annotations.json[0].step_annotations[1].step_id: unknown global step id 99; "
        "expected an id of step_idx_description.json",
        "error_annotations.json[0].step_annotations[2].description: 'Eat-Eat the toast' "
        "(global step id 15) is not a step of the task graph 'Flip Toast' (fliptoast.json); "
        "expected the exact text of one of its steps",
    ]
    found = messages(
        validate_captaincook4d_file(root / "annotation_json" / "error_annotations.json")
    )
    assert found == expected
    assert read_problems(root) == expected


def test_a_cycle_in_a_task_graph(tmp_path: Path) -> None:
    def add_cycle(files: dict[str, Json]) -> None:
        files["task_graphs/fliptoast.json"]["edges"] += [[4, 2]]

    root = write_release(tmp_path, add_cycle)
    expected = [
        "fliptoast.json.edges: the edges form a cycle 2 -> 5 -> 4 -> 2 (edges[2], edges[3], "
        "edges[6]); expected a DAG (a -> b: a before b)"
    ]
    assert (
        messages(validate_captaincook4d_file(root / "task_graphs" / "fliptoast.json")) == expected
    )
    assert read_problems(root) == expected
    with pytest.raises(InvalidInputError) as caught:
        load_task_graphs(root)
    assert messages(caught.value.problems) == expected


def test_unknown_endpoints_and_missing_terminals(tmp_path: Path) -> None:
    graph = json.loads(json.dumps(GRAPH))
    graph["steps"]["0"] = "BEGIN"
    graph["steps"]["6"] = "Eat-Eat the toast"
    graph["steps"]["x"] = "Wait-Wait"
    graph["edges"] += [[3, 12], [0, 1], [5]]
    path = tmp_path / "task_graphs" / "fliptoast.json"
    path.parent.mkdir()
    path.write_text(json.dumps(graph))
    assert messages(validate_captaincook4d_file(path)) == [
        "fliptoast.json.edges[8]: an edge with 1 ids; expected a pair [from, to]"
    ]
    graph["edges"].pop()
    path.write_text(json.dumps(graph))
    assert messages(validate_captaincook4d_file(path)) == [
        "fliptoast.json.steps.x: step id 'x' is not a number; expected a non-negative "
        'integer like "3"',
        "fliptoast.json.edges[6]: edge [3, 12] names unknown step id 12; expected ids from steps",
        "fliptoast.json.edges[7]: edge [0, 1] repeats edges[0]; expected each edge once",
        'fliptoast.json.steps["0"]: step 0 is \'BEGIN\'; expected "START" (0 is the START node)',
        'fliptoast.json.steps["6"]: the highest id 6 is \'Eat-Eat the toast\'; expected "END" '
        "(END has the highest id)",
    ]


def test_unreachable_steps(tmp_path: Path) -> None:
    graph = json.loads(json.dumps(GRAPH))
    graph["steps"].update({"6": "Eat-Eat", "7": "Wait-Wait", "8": "END"})
    graph["edges"] = [[0, 1], [1, 2], [2, 5], [5, 4], [4, 3], [3, 8], [6, 0]]
    path = tmp_path / "recipe.json"
    path.write_text(json.dumps(graph))
    assert messages(validate_captaincook4d_file(path)) == [
        "recipe.json.edges[6]: edge [6, 0] leads into START; expected START first and END last",
        'recipe.json.steps["6"]: step 6 is not reachable from START (0); expected every step '
        "on a START-END path",
        'recipe.json.steps["7"]: step 7 is not reachable from START (0) and does not lead to '
        "END (8); expected every step on a START-END path",
    ]


def test_problems_of_all_files_are_reported_together(tmp_path: Path) -> None:
    def break_everything(files: dict[str, Json]) -> None:
        files["task_graphs/fliptoast.json"]["edges"] += [[3, 1]]
        steps = files["annotation_json/error_annotations.json"][0]["step_annotations"]
        steps[0]["start_time"], steps[0]["end_time"] = 50.0, 40.0
        files["annotation_json/complete_step_annotations.json"]["1_2"]["person_id"] = "3"
        files["annotation_json/step_idx_description.json"]["x"] = "Wait-Wait"

    found = read_problems(write_release(tmp_path, break_everything))
    assert [f.split(":")[0] for f in found] == [
        "error_annotations.json[0].step_annotations[0].end_time",
        "step_idx_description.json.x",
        'complete_step_annotations.json["1_2"].person_id',
        "fliptoast.json.edges",
    ]


def test_cross_file_references(tmp_path: Path) -> None:
    def break_references(files: dict[str, Json]) -> None:
        errors = files["annotation_json/error_annotations.json"]
        errors[0]["activity_id"] = 2
        errors[1]["recording_id"] = "1_9"
        del files["annotation_json/complete_step_annotations.json"]["1_2"]

    assert read_problems(write_release(tmp_path, break_references)) == [
        "error_annotations.json[0].activity_id: activity 2 differs from 1, the activity "
        "complete_step_annotations.json gives '1_1'; expected the same",
        "error_annotations.json[1].recording_id: recording '1_9' is not in "
        "complete_step_annotations.json; expected its activity name, person and environment there",
        "error_annotations.json[0].activity_id: no task graph for activity 2; expected one of 1",
    ]


def test_a_missing_graph_file(tmp_path: Path) -> None:
    root = write_release(tmp_path)
    (root / "task_graphs" / "fliptoast.json").unlink()
    assert read_problems(root) == [
        "fliptoast.json: file not found; expected the task graph of activity 1 ('Flip Toast') in "
        "task_graphs/, named after the activity in lower case without spaces"
    ]


def test_other_files(tmp_path: Path) -> None:
    def break_others(files: dict[str, Json]) -> None:
        plain = files["annotation_json/step_annotations.json"]
        plain["1_1"]["recording_id"] = "1_3"
        plain["1_2"]["steps"][0]["step_id"] = 77
        complete = files["annotation_json/complete_step_annotations.json"]
        complete["1_2"]["activity_name"] = "French Toast"

    root = write_release(tmp_path, break_others)
    assert messages(
        validate_captaincook4d_file(root / "annotation_json/step_annotations.json")
    ) == [
        "step_annotations.json[\"1_1\"].recording_id: recording_id '1_3' differs from its key "
        "'1_1'; expected equal",
        'step_annotations.json["1_2"].steps[0].step_id: unknown global step id 77; expected an '
        "id of step_idx_description.json",
    ]
    found = validate_captaincook4d_file(root / "annotation_json/complete_step_annotations.json")
    assert messages(found) == [
        'complete_step_annotations.json["1_2"].activity_name: activity 1 is named \'French '
        "Toast' here but 'Flip Toast' in complete_step_annotations.json['1_1']; expected one "
        "name per activity"
    ]
    csv = root / "metadata" / "video_information.csv"
    csv.write_text("recording_id,duration(sec)\n1_1,abc\n1_2,3\n1_2,4\n")
    assert messages(validate_captaincook4d_file(csv)) == [
        'video_information.csv[0]["duration(sec)"]: expected a duration in seconds >= 0 '
        "(got 'abc') on line 2",
        "video_information.csv[2].recording_id: recording '1_2' is listed twice (line 4); "
        "expected once",
    ]


def test_graphs_json_and_cleaned_annotations(tmp_path: Path) -> None:
    (tmp_path / "graphs.json").write_text(
        json.dumps({"1": {"name": "Flip Toast", **GRAPH}, "two": {"name": "X", "steps": {}}})
    )
    assert messages(validate_captaincook4d_file(tmp_path / "graphs.json")) == [
        "graphs.json.two.edges: field required"
    ]
    (tmp_path / "graphs.json").write_text(json.dumps({"1": {"name": "Flip Toast", **GRAPH}}))
    start = {"description": "Start-Start cooking.", "step_id": -1, "start_time": 0, "end_time": 1}
    cleaned = [
        {
            "recording_id": "1_1",
            "activity_id": 1,
            "is_error": False,
            "activity_name": "Flip Toast",
            "step_annotations": [
                start,
                {
                    "description": "Slice-Slice the bread",
                    "step_id": 1,
                    "start_time": 1,
                    "end_time": 2,
                },
                {
                    "description": "Slice-Slice the bread",
                    "step_id": 2,
                    "start_time": 2,
                    "end_time": 3,
                },
                {"description": "Eat-Eat", "step_id": 9, "start_time": 3, "end_time": 4},
            ],
        }
    ]
    (tmp_path / "cleaned_error_annotations.json").write_text(json.dumps(cleaned))
    assert messages(validate_captaincook4d_file(tmp_path / "cleaned_error_annotations.json")) == [
        "cleaned_error_annotations.json[0].step_annotations[2].description: 'Slice-Slice the "
        "bread' differs from the graph's text 'Toast-Toast the slice' for step 2; expected the "
        "graph's text",
        "cleaned_error_annotations.json[0].step_annotations[3].step_id: step id 9 is not a step "
        "of task graph 'Flip Toast'; expected one of its local ids 1, 2, 3, 4, 5 or -1 (START)",
    ]
    assert validate_captaincook4d_file(tmp_path) != []  # the folder: each recognised file


def test_detection(tmp_path: Path) -> None:
    root = write_release(tmp_path / "cc4d")
    assert detect_captaincook4d(root)
    assert detect_captaincook4d(root / "task_graphs")
    assert detect_captaincook4d(root / "task_graphs" / "fliptoast.json")
    assert detect_captaincook4d(root / "annotation_json" / "error_annotations.json")
    renamed = tmp_path / "mine.json"
    renamed.write_text(json.dumps(_error_annotations()))
    assert detect_captaincook4d(renamed)
    assert validate_captaincook4d_file(renamed) == []
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps(CATALOG))
    assert detect_captaincook4d(catalog)
    other = tmp_path / "other.json"
    other.write_text('{"questions": [], "name": "x"}')
    assert not detect_captaincook4d(other)
    assert not detect_captaincook4d(tmp_path / "absent.json")
    assert messages(validate_captaincook4d_file(other))[0].startswith(
        "other.json: not one of the CaptainCook4D/ProMQA files taskqa checks"
    )


def test_the_release_folder_validates_clean(tmp_path: Path) -> None:
    root = write_release(tmp_path)
    assert validate_captaincook4d_file(root) == []
    assert validate_captaincook4d_file(root / "annotation_json") == []
    for path in sorted(root.rglob("*.*")):
        assert validate_captaincook4d_file(path) == [], path


# --- the real release ----------------------------------------------------------------------------

# ProMQA's hand-written table for the texts its three graphs repeat (activity -> copies in the
# order a recording's occurrences take them), from kimihiroh/promqa's preprocessing
# (adjust_step_id); taskqa derives the same order from the graphs' precedence.
PROMQA_REPEATS = {
    2: {
        "Microwave-Microwave the plate, covered, on high for 1.5 minutes": ["13", "8"],
        "Stir-Stir the contents in the microwave with a spoon": ["7", "5"],
    },
    10: {"slicing-Continue slicing with floss to create 1 more pinwheel": ["14", "1", "3"]},
    20: {"cook-cook the pan, often stirring, for 1 minute": ["3", "13"]},
}


@pytest.fixture(scope="module")
def recordings() -> list[Recording]:
    return read_captaincook4d(CC4D)


@pytest.fixture(scope="module")
def raw_errors() -> Json:
    return json.loads((CC4D / "annotation_json" / "error_annotations.json").read_text())


@realdata
def test_real_counts(recordings: list[Recording], raw_errors: Json) -> None:
    assert len(recordings) == 384
    assert len({r.tasks[0] for r in recordings}) == 24
    assert len({r.procedures[0].task_graph.name for r in recordings}) == 24
    steps = [s for r in recordings for s in r.procedures[0].steps]
    assert len(steps) == 5700
    raw_steps = [s for record in raw_errors for s in record["step_annotations"]]
    assert sum(s["start_time"] == s["end_time"] == -1 for s in raw_steps) == 287
    # Missing: the 287 at -1 plus 4 tagged "Missing Step" with times (4_43, 12_6, 12_38, 28_25).
    assert sum(s.start is None for s in steps) == 291
    assert sum(len(r.actions) for r in recordings) == 5700 - 291
    tags = Counter(tag.value for s in steps for tag in s.tags)
    assert tags == {
        "Order Error": 795,
        "Technique Error": 502,
        "Preparation Error": 410,
        "Measurement Error": 331,
        "Missing Step": 285,
        "Timing Error": 177,
        "Temperature Error": 66,
        "Other": 8,
    }
    assert sum(bool(s.errors) for s in steps) == 1964
    assert sum(s.modified_description is not None for s in steps) == 1348
    assert sum(bool(r.metadata["is_error"]) for r in recordings) == 220
    assert len({r.agents[0].id for r in recordings}) == 8
    assert len({r.environment for r in recordings}) == 10


@realdata
def test_real_recordings_are_consistent(recordings: list[Recording]) -> None:
    listed = {
        row["recording_id"]: float(row["duration(sec)"])
        for row in csv.DictReader((CC4D / "metadata" / "video_information.csv").open())
    }
    extended = 0
    for recording in recordings:
        actions = recording.actions
        assert [(a.start, a.end) for a in actions] == sorted((a.start, a.end) for a in actions)
        assert all(0 <= a.start <= a.end <= recording.duration for a in actions)
        assert all(a.verb and a.verb == a.verb.strip().lower() for a in actions)
        graph_ids = {s.id for s in recording.procedures[0].task_graph.real_steps()}
        assert {s.step for s in recording.procedures[0].steps} <= graph_ids
        extended += recording.duration > listed[recording.id]
    assert extended == 9  # the CSV rounds durations; nine last steps end a few ms later
    assert {a.verb for r in recordings for a in r.actions} >= {"cut", "add", "microwave", "stir"}


@realdata
def test_real_task_graphs() -> None:
    graphs = load_task_graphs(CC4D)
    assert len(graphs) == 24
    assert min(len(g.steps) for g in graphs.values()) == 9
    assert max(len(g.steps) for g in graphs.values()) == 27
    assert min(len(g.edges) for g in graphs.values()) == 10
    assert max(len(g.edges) for g in graphs.values()) == 36
    assert load_task_graphs(PROMQA / "graphs.json") == graphs
    chocolate = graphs[8]
    assert (chocolate.name, chocolate.start, chocolate.end) == ("Spiced Hot Chocolate", "0", "9")
    assert "4" not in {s.id for s in chocolate.steps}
    repeats = {
        activity: StepLocalizer(graph).repeated_texts()
        for activity, graph in graphs.items()
        if StepLocalizer(graph).repeated_texts()
    }
    assert repeats == PROMQA_REPEATS


@realdata
def test_real_files_validate_clean() -> None:
    paths = [
        CC4D,
        *sorted((CC4D / "task_graphs").glob("*.json")),
        *(
            CC4D / "annotation_json" / name
            for name in (
                "error_annotations.json",
                "step_annotations.json",
                "complete_step_annotations.json",
                "step_idx_description.json",
            )
        ),
        CC4D / "metadata" / "video_information.csv",
        PROMQA / "graphs.json",
        PROMQA / "cleaned_error_annotations.json",
    ]
    for path in paths:
        assert detect_captaincook4d(path), path
        assert validate_captaincook4d_file(path) == [], path


@realdata
def test_local_ids_agree_with_promqa(recordings: list[Recording], raw_errors: Json) -> None:
    """Each step in both files (same recording, description and start time) has ProMQA's id."""
    cleaned = json.loads((PROMQA / "cleaned_error_annotations.json").read_text())
    theirs: dict[tuple[str, str, float], list[int]] = defaultdict(list)
    for record in cleaned:
        for step in record["step_annotations"]:
            theirs[(record["recording_id"], step["description"], step["start_time"])].append(
                step["step_id"]
            )
    ours: dict[tuple[str, str, float], list[int]] = defaultdict(list)
    by_id = {r.id: r for r in recordings}
    for record in raw_errors:
        recording = by_id[record["recording_id"]]
        for step in recording.procedures[0].steps:
            start = -1.0 if step.start is None else step.start
            start = TAGGED_WITH_TIMES.get((recording.id, step.source_step_id), start)
            ours[(recording.id, step.description, start)].append(int(step.step))
    agree = 0
    absent: list[tuple[str, str, float]] = []
    for key, ids in ours.items():
        if key not in theirs:
            absent.extend([key] * len(ids))
        else:
            assert ids == theirs[key][: len(ids)], key
            agree += len(ids)
    assert agree == 5689
    assert sorted((rid, text[:20]) for rid, text, _ in absent) == PROMQA_CORRECTED


# Steps our reader makes missing from a tag while the raw file keeps times; the comparison
# looks them up by their raw start time.
TAGGED_WITH_TIMES = {
    ("4_43", 49): 335.8423187194679,
    ("12_6", 121): 332.42,
    ("12_38", 125): 11.691002187424427,
    ("28_25", 327): 6.212,
}

# The 11 steps ProMQA's manual corrections change, so that no step of the cleaned file has the
# same recording, description and start time (docs/sources/captaincook4d.md lists why).
PROMQA_CORRECTED = sorted(
    [
        ("1_36", "Microwave -Continue "),
        ("1_36", "Microwave -Microwave"),
        ("2_26", "Microwave-Microwave "),
        ("2_26", "Stir-Stir the conten"),
        ("4_43", "Microwave-Microwave "),
        ("5_2", "Discard-Discard the "),
        ("5_2", "drain-Let the coffee"),
        ("12_6", "Add-Add a drizzle of"),
        ("15_41", "Saute-Saute the garl"),
        ("17_49", "Add-1/2 teaspoon of "),
        ("28_25", "Add-1/4 cup mayonnai"),
    ]
)
