"""EgoTaskQA / LEMMA world-state files: exact round trips, the raw shape, and broken inputs."""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from problem_text import by_name
from taskqa.model import (
    ATTRIBUTE_VALUES,
    MULTI_AGENT_RELATIONS,
    SPATIAL_RELATIONS,
    UNKNOWN,
    ActionSegment,
    ActionSlots,
    Agent,
    AgentRole,
    Attribute,
    EntityTransition,
    Recording,
    Relation,
    RelationKind,
    Snapshot,
    Source,
    VideoRef,
    View,
    allowed_values,
)
from taskqa.problems import InvalidInputError
from taskqa.sources.egotaskqa import (
    LENGTHS,
    META,
    PARSED,
    PER_ACT_INTERVALS,
    detect_egotaskqa,
    read_egotaskqa,
    validate_egotaskqa,
    write_egotaskqa,
)

FPS = 24.0
VID = "27k-22-11-2"
SPATIAL = RelationKind.SPATIAL
ACTING = RelationKind.ACTING
MULTI = RelationKind.MULTI_AGENT
A = Attribute


def at(frame: int) -> float:
    """Seconds of a frame on the 1/24 s grid, as the simulator computes them."""
    return frame / FPS


def rel(subject: str, relation: str, obj: str | None, kind: RelationKind = SPATIAL) -> Relation:
    return Relation(subject=subject, relation=relation, object=obj, kind=kind)


def snap(attributes: dict[Attribute, str], *relations: Relation) -> Snapshot:
    return Snapshot(attributes=attributes, relations=list(relations))


def juice_recording(vid: str = VID) -> Recording:
    """Two people making orange juice: P1 fetches and cuts, P2 (helper) runs the juicer."""
    orange = {A.EDIBILITY: "edible", A.CUTTABILITY: "cuttable", A.CLEANLINESS: "clean"}
    seen_by_both = {A.VISIBILITY_TO_ME: "visible", A.VISIBILITY_TO_OTHER: "visible"}
    get = ActionSegment(
        id="get-oranges",
        agent="P1",
        start=at(24),
        end=at(70),
        verb="get",
        slots=ActionSlots(patient=["orange1", "orange2"], source=["fridge"]),
        tasks=["make juice"],
        step="fetch",
        transitions=[
            EntityTransition(
                entity="orange1",
                before=snap(
                    {**orange, A.SHAPE: "whole", A.VISIBILITY_TO_ME: "invisible"},
                    rel("orange1", "in", "fridge"),
                ),
                after=snap(
                    {**orange, A.SHAPE: "whole", **seen_by_both},
                    rel("orange1", "held-by", "P1"),
                ),
            ),
            EntityTransition(
                entity="fridge",
                before=snap({A.OPENNESS: "open", A.OPENABILITY: "openable", A.POWEREDNESS: "on"}),
                after=snap({A.OPENNESS: "open", A.OPENABILITY: "openable", A.POWEREDNESS: "on"}),
            ),
            EntityTransition(
                entity="P1",
                is_agent=True,
                before=snap({}, rel("P1", "next-to", "fridge")),
                after=snap(
                    {},
                    rel("P1", "getting", "orange1", ACTING),
                    rel("P1", "getting", "orange2", ACTING),
                    rel("P1", "next-to", "fridge"),
                    rel("P1", "looking-at", "P2", MULTI),
                ),
            ),
        ],
    )
    plug = ActionSegment(
        id="plug-juicer",
        agent="P2",
        start=at(48),
        end=at(96),
        verb="put",
        slots=ActionSlots(patient=["juicer"], destination=["juicer-base"]),
        tasks=["make juice", "clean up"],
        transitions=[
            EntityTransition(
                entity="juicer",
                before=snap(
                    {A.SWITCHABILITY: "switchable", A.POWEREDNESS: "off", A.EMPTINESS: "empty"},
                    rel("juicer", "on-top-of", "counter"),
                ),
                after=snap(
                    {
                        A.SWITCHABILITY: "switchable",
                        A.POWEREDNESS: "off",
                        A.EMPTINESS: "empty",
                        A.VISIBILITY_TO_ME: "visible",
                        A.VISIBILITY_TO_OTHER: UNKNOWN,
                    },
                    rel("juicer", "attached-to", "juicer-base"),
                    rel("juicer", "plugged-in", None),
                ),
            ),
            EntityTransition(
                entity="P2",
                is_agent=True,
                before=snap({}),
                after=snap(
                    {},
                    rel("P2", "putting", "juicer", ACTING),
                    rel("P2", "aware-of-other-action", None, MULTI),
                ),
            ),
        ],
    )
    cut = ActionSegment(
        id="cut-oranges",
        agent="P1",
        start=at(100),
        end=at(172),
        verb="cut",
        slots=ActionSlots(patient=["orange1", "orange2"], instrument=["knife"]),
        tasks=["make juice"],
        step="cut",
        transitions=[
            EntityTransition(
                entity="orange1",
                before=snap({**orange, A.SHAPE: "whole", A.COOKEDNESS: "raw"}),
                after=snap({**orange, A.SHAPE: "diced", A.COOKEDNESS: UNKNOWN}),
            ),
            EntityTransition(
                entity="knife",
                before=snap({A.CLEANLINESS: "clean"}, rel("knife", "on-top-of", "cutting-board")),
                after=snap({A.CLEANLINESS: "dirty"}, rel("knife", "held-by", "P1")),
            ),
        ],
    )
    pour = ActionSegment(
        id="pour-juice",
        agent="P2",
        start=at(180),
        end=at(230),
        verb="pour",
        slots=ActionSlots(source=["juicer"], destination=["cup"]),
        tasks=["make juice"],
        transitions=[
            EntityTransition(
                entity="cup",
                before=snap({A.EMPTINESS: "empty", A.TEMPERATURE: "room temperature"}),
                after=snap({A.EMPTINESS: "full", A.MIXTURE: "not mixing", A.SHAPE: "fluid"}),
            ),
        ],
    )
    return Recording(
        id=vid,
        source=Source.SIMULATED,
        duration=at(240),
        fps=FPS,
        environment="kitchen-2",
        agents=[Agent(id="P1"), Agent(id="P2", role=AgentRole.HELPER)],
        videos=[
            VideoRef(uri="videos/p1.mp4", agent="P1"),
            VideoRef(uri="top.mp4", view=View.THIRD_PERSON),
        ],
        tasks=["make juice", "clean up"],
        actions=[get, plug, cut, pour],
        metadata={"seed": 7, "domain": "kitchen", "noisy": False, "temperature": 0.5},
    )


def write_and_load(tmp_path: Path, *recordings: Recording) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path / "egotaskqa"
    write_egotaskqa(list(recordings), folder)
    return folder, json.loads((folder / PARSED).read_text())


def problem_lines(path: Path) -> list[str]:
    return [by_name(p) for p in validate_egotaskqa(path)]


# -- round trips --------------------------------------------------------------------------------


def test_write_then_read_gives_the_same_recordings(tmp_path: Path) -> None:
    recordings = [juice_recording(), juice_recording("sim-0002")]
    folder, _ = write_and_load(tmp_path, *recordings)
    assert read_egotaskqa(folder) == recordings
    assert validate_egotaskqa(folder) == []


def test_actions_are_blocks_in_start_order(tmp_path: Path) -> None:
    _, parsed = write_and_load(tmp_path, juice_recording())
    headers = [block[0] for block in parsed[VID]["all_segments"]]
    assert headers == [
        [0, "P1", ["Get [orange1, orange2] from [fridge] using [hand]"], 24, 70],
        [1, "P2", ["Put [juicer] to [juicer-base] using [hand]"], 48, 96],
        [2, "P1", ["Cut [orange1, orange2] using [knife]"], 100, 172],
        [3, "P2", ["Pour from [juicer] to [cup] using [hand]"], 180, 230],
    ]
    assert all(block[1] is None for block in parsed[VID]["all_segments"])


def test_fluents_are_written_as_raw_yes_no_values(tmp_path: Path) -> None:
    _, parsed = write_and_load(tmp_path, juice_recording())
    blocks = parsed[VID]["all_segments"]
    orange_after = blocks[0][2][1]
    assert (orange_after["pid"], orange_after["obj"], orange_after["type"]) == (
        "P1",
        "orange1",
        "after",
    )
    state = orange_after["state"]
    assert state["edible"] == "yes"
    assert state["shape"] == "whole"
    assert state["visible_to_P1"] == "yes"
    assert state["openable"] == "N/A"  # not applicable to an orange
    juicer_before, juicer_after = blocks[1][2][0]["state"], blocks[1][2][1]["state"]
    assert juicer_before["turnable"] == "yes"
    assert juicer_before["on"] == "no"
    assert juicer_before["emptiness"] == "yes"
    # P2 acts: visibility to me is P2's view, and "unknown" is spelled as the released files do.
    assert juicer_after["visible_to_P2"] == "yes"
    assert juicer_after["visible_to_P1"] == "unknow"
    assert blocks[2][2][1]["state"]["shape"] == "diced"
    assert blocks[2][2][1]["state"]["cooked"] == "unknow"
    assert blocks[3][2][0]["state"]["boiled"] == "no"
    assert blocks[3][2][1]["state"]["mixing"] == "no"
    # Every object segment lists all fifteen fluents; a person's lists only what applies.
    assert all(len(segment["state"]) == 15 for segment in blocks[0][2][:4])
    assert blocks[0][2][4]["state"] == {}


def test_helper_view_of_an_object_in_the_actors_action(tmp_path: Path) -> None:
    _, parsed = write_and_load(tmp_path, juice_recording())
    state = parsed[VID]["all_segments"][0][2][1]["state"]  # orange1 after P1's get
    assert state["visible_to_P2"] == "yes"
    assert parsed[VID]["all_segments"][0][2][0]["state"]["visible_to_P2"] == "N/A"


def test_relations_go_to_their_lists(tmp_path: Path) -> None:
    _, parsed = write_and_load(tmp_path, juice_recording())
    blocks = parsed[VID]["all_segments"]
    person_after = blocks[0][2][5]
    assert person_after["obj"] == "P1"
    assert person_after["rel"] == {
        "a_rel": [
            {"o1": "P1", "rel": "getting", "o2": "orange1"},
            {"o1": "P1", "rel": "getting", "o2": "orange2"},
        ],
        "s_rel": [{"o1": "P1", "rel": "next-to", "o2": "fridge"}],
        "m_rel": [{"o1": "P1", "rel": "looking-at", "o2": "P2"}],
    }
    juicer_after = blocks[1][2][1]["rel"]
    assert juicer_after["s_rel"] == [
        {"o1": "juicer", "rel": "attached-to", "o2": "juicer-base"},
        {"o1": "juicer", "rel": "plugged-in"},
    ]
    assert blocks[1][2][3]["rel"]["m_rel"] == [{"o1": "P2", "rel": "knows-the-other-person-action"}]


def test_side_files(tmp_path: Path) -> None:
    folder, _ = write_and_load(tmp_path, juice_recording())
    intervals = json.loads((folder / PER_ACT_INTERVALS).read_text())
    assert intervals == {
        VID: {
            "P1": [
                ["Get [orange1, orange2] from [fridge] using [hand]", 24, 70, "make juice"],
                ["Cut [orange1, orange2] using [knife]", 100, 172, "make juice"],
            ],
            "P2": [
                ["Put [juicer] to [juicer-base] using [hand]", 48, 96, "make juice,clean up"],
                ["Pour from [juicer] to [cup] using [hand]", 180, 230, "make juice"],
            ],
        }
    }
    assert json.loads((folder / LENGTHS).read_text()) == {VID: {"P1": 240, "P2": 240}}
    assert json.loads((folder / "metadata" / "hois.json").read_text())[-1] == "NULL"
    meta = json.loads((folder / META).read_text())
    assert meta["recordings"][VID]["actions"][0] == {"id": "get-oranges", "step": "fetch"}


def test_templates_shape_the_action_strings(tmp_path: Path) -> None:
    templates = {
        "pour": "{verb} from {source} into {destination} using {instrument}",
        "cut": "{verb} {patient} with {instrument}",
    }
    recording = juice_recording()
    folder = tmp_path / "out"
    write_egotaskqa([recording], folder, templates)
    parsed = json.loads((folder / PARSED).read_text())
    texts = [block[0][2][0] for block in parsed[VID]["all_segments"]]
    assert texts[2:] == [
        "Cut [orange1, orange2] with [knife]",
        "Pour from [juicer] into [cup] using [hand]",
    ]
    assert read_egotaskqa(folder) == [recording]


def test_other_agent_ids_become_p1_and_p2(tmp_path: Path) -> None:
    names = {"P1": "bob", "P2": "alice"}
    data = json.loads(juice_recording().model_dump_json())
    text = json.dumps(data)
    for pid, name in names.items():
        text = text.replace(f'"{pid}"', f'"{name}"')
    renamed = Recording.model_validate_json(text)
    # alice is listed first but is the helper, so bob (the actor) becomes P1.
    renamed = renamed.model_copy(update={"agents": list(reversed(renamed.agents))})
    folder, parsed = write_and_load(tmp_path, renamed)
    blocks = parsed[VID]["all_segments"]
    assert [block[0][1] for block in blocks] == ["P1", "P2", "P1", "P2"]
    assert blocks[0][2][1]["rel"]["s_rel"] == [{"o1": "orange1", "rel": "held-by", "o2": "P1"}]
    assert blocks[0][2][5]["rel"]["m_rel"] == [{"o1": "P1", "rel": "looking-at", "o2": "P2"}]
    assert read_egotaskqa(folder) == [renamed]


def test_fields_the_lemma_files_cannot_hold_survive(tmp_path: Path) -> None:
    recording = juice_recording()
    get, plug, cut, pour = recording.actions
    odd = [
        # Off the frame grid, and before `get` in the list although it starts later.
        cut.model_copy(update={"start": 4.1234, "end": 7.0001}),
        # A two-word verb whose string does not parse back, and a task with a comma.
        plug.model_copy(update={"verb": "pick up", "tasks": ["juice, fresh"]}),
        get.model_copy(
            update={
                "transitions": [
                    EntityTransition(
                        entity="P1",
                        is_agent=True,
                        after=snap(
                            {},
                            rel("P1", "next-to", "fridge"),
                            rel("P1", "getting", "orange1", ACTING),
                            rel("P1", "aware-of-other-action", None, MULTI),
                            rel("P1", "in", "kitchen"),
                        ),
                    )
                ]
            }
        ),
        pour,
    ]
    changed = recording.model_copy(
        update={"actions": odd, "duration": 10.01, "agents": [], "videos": []}
    )
    folder, parsed = write_and_load(tmp_path, changed)
    assert [block[0][3] for block in parsed[VID]["all_segments"]] == [24, 48, 99, 180]
    assert read_egotaskqa(folder) == [changed]


def test_single_agent_recording(tmp_path: Path) -> None:
    recording = juice_recording()
    alone = recording.model_copy(
        update={
            "agents": [Agent(id="P1")],
            "videos": [],
            "actions": [recording.actions[2].model_copy(update={"agent": "P1"})],
        }
    )
    folder, _ = write_and_load(tmp_path, alone)
    assert json.loads((folder / PER_ACT_INTERVALS).read_text())[VID].keys() == {"P1"}
    assert read_egotaskqa(folder) == [alone]


def test_writing_replaces_the_folder_whole(tmp_path: Path) -> None:
    folder, _ = write_and_load(tmp_path, juice_recording())
    (folder / "stale.txt").write_text("old")
    write_egotaskqa([juice_recording("other")], folder)
    assert not (folder / "stale.txt").exists()
    assert [r.id for r in read_egotaskqa(folder)] == ["other"]


# -- recordings the writer refuses --------------------------------------------------------------


def test_writer_lists_every_recording_it_cannot_write(tmp_path: Path) -> None:
    good = juice_recording()
    crowd = good.model_copy(
        update={"id": "crowd", "agents": [*good.agents, Agent(id="P3")], "videos": []}
    )
    cut = good.actions[2]
    clash = cut.model_copy(
        update={
            "slots": ActionSlots(patient=["orange1"], destination=["P2"]),
            "transitions": [cut.transitions[0], cut.transitions[0]],
        }
    )
    lonely = good.model_copy(
        update={"id": "lonely", "agents": [Agent(id="P1")], "videos": [], "actions": [clash]}
    )
    folder = tmp_path / "out"
    with pytest.raises(InvalidInputError) as raised:
        write_egotaskqa([good, crowd, lonely, good], folder)
    assert [by_name(p) for p in raised.value.problems] == [
        "recordings[1].agents: EgoTaskQA files hold at most two people (P1, P2); got 3: P1, P2, P3",
        "recordings[2].actions[0].slots: 'P2' names a person in EgoTaskQA files but is not "
        "an agent of this recording",
        "recordings[2].actions[0].transitions[1]: a second transition of 'orange1' in one "
        "action; EgoTaskQA files hold one before and one after segment per entity and action",
        "recordings[3].id: repeats the id of recordings[0] ('27k-22-11-2'); the id is the "
        "video key of every file",
    ]
    assert not folder.exists()


# -- reading EgoTaskQA's own files --------------------------------------------------------------


def lemma_segment(
    pid: str, obj: str, moment: str, state: dict[str, str], **rel: Any
) -> dict[str, Any]:
    """A segment as the released files have it, with the keys EgoTaskQA drops."""
    return {
        "pid": pid,
        "obj": obj,
        "type": moment,
        "state": state,
        "rel": {"a_rel": [], "s_rel": [], **rel},
        "insert": False,
        "swap": False,
        "a_idx": 0,
        "anno_id": 17,
    }


def lemma_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "lemma"
    (folder / "metadata").mkdir(parents=True)
    juicer = {"visible_to_P1": "yes", "visible_to_P2": "no", "turnable": "yes", "on": "no"}
    blocks = [
        [
            [0, "P2", ["Turn on [juicer] with [remote]"], 30, 90],
            None,
            [
                lemma_segment("P2", "juicer", "before", juicer),
                lemma_segment("P2", "juicer", "after", {**juicer, "on": "yes", "empty": "unknow"}),
                lemma_segment(
                    "P2",
                    "P2",
                    "after",
                    {},
                    a_rel=[{"o1": "P2", "rel": "turning-on", "o2": "juicer"}],
                    ma_rel=[{"o1": "P2", "rel": "knows-the-other-person-action"}],
                ),
            ],
        ],
        [
            [1, "P1", ["Get [meat1, meat2] from [fridge] using [hand]"], 40, 100],
            None,
            [
                lemma_segment(
                    "P1",
                    "meat1",
                    "before",
                    {"visible": "no", "cooked": "no", "shape": "part"},
                    s_rel=[{"o1": "meat1", "rel": "in", "o2": "fridge"}],
                ),
                lemma_segment("P1", "meat1", "after", {"visible": "yes", "visible_to_P1": "N/A"}),
            ],
        ],
    ]
    (folder / PARSED).write_text(json.dumps({VID: {"all_segments": blocks, "object_chains": {}}}))
    intervals = {
        VID: {
            "P1": [["Get [meat1, meat2] from [fridge] using [hand]", 40, 100, "cook meat"]],
            "P2": [["Turn on [juicer] with [remote]", 30, 90, "make juice,watch tv"]],
        }
    }
    (folder / PER_ACT_INTERVALS).write_text(json.dumps(intervals))
    (folder / LENGTHS).write_text(json.dumps({VID: {"P1": 480, "P2": 470}}))
    return folder


def test_reading_released_annotations(tmp_path: Path) -> None:
    [recording] = read_egotaskqa(lemma_folder(tmp_path))
    assert (recording.id, recording.source, recording.fps) == (VID, Source.EGOTASKQA, 24.0)
    assert (recording.duration, recording.environment) == (20.0, "kitchen")
    assert recording.agents == [Agent(id="P1"), Agent(id="P2", role=AgentRole.HELPER)]
    assert recording.tasks == ["make juice", "watch tv", "cook meat"]
    turn_on, get = recording.actions
    assert (turn_on.id, turn_on.agent, turn_on.verb, turn_on.start, turn_on.end) == (
        "a0",
        "P2",
        "turn-on",
        1.25,
        3.75,
    )
    assert turn_on.slots == ActionSlots(patient=["juicer"], instrument=["remote"])
    juicer = turn_on.transitions[0]
    # P2 acts, so visible_to_P2 is its own view.
    assert juicer.before.attributes == {
        A.VISIBILITY_TO_ME: "invisible",
        A.VISIBILITY_TO_OTHER: "visible",
        A.SWITCHABILITY: "switchable",
        A.POWEREDNESS: "off",
    }
    assert juicer.after.attributes[A.EMPTINESS] == UNKNOWN
    person = turn_on.transitions[1]
    assert (person.entity, person.is_agent, person.before) == ("P2", True, Snapshot())
    assert person.after.relations == [
        rel("P2", "turning-on", "juicer", ACTING),
        rel("P2", "aware-of-other-action", None, MULTI),
    ]
    assert get.slots == ActionSlots(patient=["meat1", "meat2"], source=["fridge"])
    meat = get.transitions[0]
    assert meat.before.attributes == {
        A.VISIBILITY_TO_ME: "invisible",
        A.COOKEDNESS: "raw",
        A.SHAPE: "part",
    }
    assert meat.after == Snapshot(attributes={A.VISIBILITY_TO_ME: "visible"})
    assert get.tasks == ["cook meat"]


def test_bare_parsed_json_reads_without_side_files(tmp_path: Path) -> None:
    folder = lemma_folder(tmp_path)
    lone = tmp_path / "alone" / PARSED
    lone.parent.mkdir()
    lone.write_text((folder / PARSED).read_text())
    [recording] = read_egotaskqa(lone)
    assert recording.duration == 100 / 24
    assert [a.tasks for a in recording.actions] == [[], []]


def test_reading_variants_of_the_side_files_and_fluent_keys(tmp_path: Path) -> None:
    folder = lemma_folder(tmp_path)
    (folder / LENGTHS).write_text(json.dumps({VID: 600}))
    parsed = json.loads((folder / PARSED).read_text())
    parsed[VID]["all_segments"][0][2][1]["state"]["emptiness"] = "no"  # beside "empty"
    (folder / PARSED).write_text(json.dumps(parsed))
    assert problem_lines(folder) == [
        'parsed.json["27k-22-11-2"].all_segments[0][2][1].state.emptiness: repeats '
        "'emptiness', already given as 'empty'"
    ]
    del parsed[VID]["all_segments"][0][2][1]["state"]["empty"]
    (folder / PARSED).write_text(json.dumps(parsed))
    [recording] = read_egotaskqa(folder)
    assert recording.duration == 25.0
    assert recording.actions[0].transitions[0].after.attributes[A.EMPTINESS] == "full"


def test_detect(tmp_path: Path) -> None:
    folder = lemma_folder(tmp_path)
    assert detect_egotaskqa(folder)
    assert detect_egotaskqa(folder / PARSED)
    renamed = tmp_path / "world.json"
    renamed.write_text((folder / PARSED).read_text())
    assert detect_egotaskqa(renamed)
    assert not detect_egotaskqa(folder / PER_ACT_INTERVALS)
    assert not detect_egotaskqa(tmp_path / "missing")


# -- broken files -------------------------------------------------------------------------------


def edit_parsed(folder: Path, edit: Any) -> None:
    parsed = json.loads((folder / PARSED).read_text())
    edit(parsed[VID]["all_segments"])
    (folder / PARSED).write_text(json.dumps(parsed))


def test_truncated_parsed_json(tmp_path: Path) -> None:
    folder, _ = write_and_load(tmp_path, juice_recording())
    text = (folder / PARSED).read_text()
    (folder / PARSED).write_text(text[: text.index("},{", len(text) // 2) + 2])
    [line] = problem_lines(folder)
    assert line.startswith("parsed.json: invalid JSON: Expecting value at line 1, column ")
    assert line.endswith("(the file looks truncated)")


def test_a_wrong_value_is_pinned_to_its_record_path(tmp_path: Path) -> None:
    folder, _ = write_and_load(tmp_path, juice_recording())

    def edit(blocks: list[Any]) -> None:
        blocks[3][2][1]["state"]["cooked"] = "maybe"

    edit_parsed(folder, edit)
    assert problem_lines(folder) == [
        'parsed.json["27k-22-11-2"].all_segments[3][2][1].state.cooked: '
        'expected one of yes, no, N/A, unknow (got "maybe")'
    ]


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    folder, _ = write_and_load(tmp_path, juice_recording())

    def edit(blocks: list[Any]) -> None:
        del blocks[0][2][0]["type"]
        blocks[0][2][2]["state"]["shape"] = "yes"
        blocks[0][2][3]["state"]["wateredness"] = "yes"
        blocks[1][0][4] = 12
        blocks[2][2][0]["rel"]["s_rel"] = [{"o1": "plate", "rel": "in", "o2": "sink"}]
        blocks[2][2][1]["rel"]["x_list"] = []
        blocks[3][0][1] = "P3"

    edit_parsed(folder, edit)
    with pytest.raises(InvalidInputError) as raised:
        read_egotaskqa(folder)
    prefix = 'parsed.json["27k-22-11-2"].all_segments'
    assert [by_name(p) for p in raised.value.problems] == [
        f"{prefix}[0][2][0].type: missing",
        f"{prefix}[0][2][2].state.shape: expected one of whole, part, diced, fluid, N/A, "
        'unknow (got "yes")',
        f"{prefix}[0][2][3].state.wateredness: unknown fluent; expected one of visible_to_P1, "
        "visible_to_P2, edible, cuttable, openable, turnable, boiled, on, cooked, wrapped, "
        "emptiness, mixing, cleanliness, shape, opened, visible",
        f"{prefix}[1][0][4]: end frame 12 is before start frame 48",
        f"{prefix}[2][2][0].rel.s_rel[0].o1: expected the segment's obj 'orange1' (got 'plate')",
        f"{prefix}[2][2][1].rel.x_list: unknown relation list; expected a_rel, s_rel or m_rel "
        "(another *_rel list is read as multi-agent relations)",
        f'{prefix}[3][0][1]: expected one of P1, P2 (got "P3")',
    ]


def test_a_bad_action_string(tmp_path: Path) -> None:
    folder = lemma_folder(tmp_path)
    parsed = json.loads((folder / PARSED).read_text())
    parsed[VID]["all_segments"][1][0][2] = ["Get [meat1] zz [fridge]"]
    (folder / PARSED).write_text(json.dumps(parsed))
    assert problem_lines(folder) == [
        "parsed.json[\"27k-22-11-2\"].all_segments[1][0][2][0]: 'Get [meat1] zz [fridge]': "
        "unknown preposition 'zz' before [fridge]; expected one of at, from, in, into, on, "
        "onto, to, using, with"
    ]


def test_broken_side_files(tmp_path: Path) -> None:
    folder, _ = write_and_load(tmp_path, juice_recording())
    intervals = json.loads((folder / PER_ACT_INTERVALS).read_text())
    intervals[VID]["P1"][1][1] = "100"
    intervals[VID]["P2"][0] = ["Put [juicer]", 48]
    (folder / PER_ACT_INTERVALS).write_text(json.dumps(intervals))
    (folder / LENGTHS).write_text('{"27k-22-11-2": {"P1": -1}')
    meta = json.loads((folder / META).read_text())
    meta["recordings"][VID]["actions"].pop()
    meta["recordings"]["ghost"] = {"source": "simulated", "duration": 1, "fps": 24}
    (folder / META).write_text(json.dumps(meta))
    assert problem_lines(folder) == [
        'per_act_intervals.json["27k-22-11-2"].P1[1][1]: expected a frame number, a whole number '
        '>= 0 (got "100")',
        'per_act_intervals.json["27k-22-11-2"].P2[0]: expected 4 entries: action string, start, '
        "end, task (got 2)",
        "lengths.json: invalid JSON: Expecting ',' delimiter at line 1, column 27 "
        "(the file looks truncated)",
        'taskqa_meta.json.recordings["27k-22-11-2"].actions: has 3 entries; parsed.json has 4 '
        "blocks for this video (one entry per block expected)",
        "taskqa_meta.json.recordings.ghost: no video 'ghost' in parsed.json",
    ]


def test_missing_parsed_json(tmp_path: Path) -> None:
    assert problem_lines(tmp_path) == ["parsed.json: file not found"]


# -- property: any snapshot survives the round trip --------------------------------------------

OBJECTS = ("cup", "juicer-base", "meat1", "knife", "fridge")
PEOPLE = ("P1", "P2")


@st.composite
def attributes(draw: st.DrawFn) -> dict[Attribute, str]:
    chosen: set[Attribute] = draw(st.sets(st.sampled_from(list(Attribute))))
    return {
        a: draw(st.sampled_from(allowed_values(a)))
        for a in sorted(chosen, key=list(Attribute).index)
    }


@st.composite
def relations(draw: st.DrawFn, subject: str) -> list[Relation]:
    kinds = {
        SPATIAL: SPATIAL_RELATIONS,
        ACTING: ("getting", "putting", "cutting-with"),
        MULTI: MULTI_AGENT_RELATIONS,
    }
    found = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(list(kinds)))
        target = draw(st.none() | st.sampled_from(OBJECTS + PEOPLE))
        found.append(rel(subject, draw(st.sampled_from(kinds[kind])), target, kind))
    return found


@st.composite
def transitions(draw: st.DrawFn, entity: str, is_agent: bool) -> EntityTransition:
    before = Snapshot(attributes=draw(attributes()), relations=draw(relations(entity)))
    after = Snapshot(attributes=draw(attributes()), relations=draw(relations(entity)))
    return EntityTransition(entity=entity, is_agent=is_agent, before=before, after=after)


@st.composite
def recordings(draw: st.DrawFn) -> Recording:
    actions = []
    for index in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, 200))
        agent = draw(st.sampled_from(PEOPLE))
        entities = draw(st.lists(st.sampled_from(OBJECTS), max_size=3, unique=True))
        moved = [draw(transitions(e, is_agent=False)) for e in entities]
        moved += [draw(transitions(agent, is_agent=True))] if draw(st.booleans()) else []
        slots = ActionSlots(
            patient=draw(st.lists(st.sampled_from(OBJECTS), min_size=1, max_size=2, unique=True)),
            destination=draw(st.lists(st.sampled_from(OBJECTS), max_size=1)),
        )
        actions.append(
            ActionSegment(
                id=f"act-{index}",
                agent=agent,
                start=at(start),
                end=at(start + draw(st.integers(0, 48))),
                verb=draw(st.sampled_from(["get", "put", "cut", "wash"])),
                slots=slots,
                tasks=draw(st.lists(st.sampled_from(["cook", "clean"]), max_size=2, unique=True)),
                transitions=moved,
            )
        )
    agents = [Agent(id="P1"), Agent(id="P2", role=AgentRole.HELPER)]
    return Recording(
        id="generated",
        source=Source.SIMULATED,
        duration=at(260),
        fps=FPS,
        agents=agents,
        actions=actions,
    )


def _twin_steps() -> Recording:
    """Two zero-length gets of one cup by one person in one frame, one for a task and one for
    none (found by the property below): the LEMMA files have one tasks row for both."""
    twin = {"agent": "P1", "start": 0.0, "end": 0.0, "verb": "get"}
    return Recording(
        id="generated",
        source=Source.SIMULATED,
        duration=at(260),
        fps=FPS,
        agents=[Agent(id="P1"), Agent(id="P2", role=AgentRole.HELPER)],
        actions=[
            ActionSegment(id="act-0", slots=ActionSlots(patient=["cup"]), tasks=[], **twin),
            ActionSegment(id="act-1", slots=ActionSlots(patient=["cup"]), tasks=["cook"], **twin),
        ],
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recordings())
@example(_twin_steps())
def test_round_trip_property(recording: Recording) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "out"
        write_egotaskqa([recording], folder)
        assert read_egotaskqa(folder) == [recording]
        # The LEMMA files alone carry the world state; only the order of relations may differ.
        (folder / META).unlink()
        [plain] = read_egotaskqa(folder)
    in_start_order = sorted(recording.actions, key=lambda a: a.start_frame(FPS))
    # per_act_intervals.json keys tasks by person, action text, start and end frame: actions
    # alike in all four share one row, so without the meta file their tasks cannot differ
    rows = Counter(row_key(a) for a in in_start_order)
    assert [world_state(a, rows[row_key(a)] == 1) for a in plain.actions] == [
        world_state(a, rows[row_key(a)] == 1) for a in in_start_order
    ]


def row_key(action: ActionSegment) -> tuple[object, ...]:
    return (
        action.agent,
        action.start_frame(FPS),
        action.end_frame(FPS),
        action.verb,
        repr(action.slots),
    )


def world_state(action: ActionSegment, with_tasks: bool = True) -> tuple[object, ...]:
    def relations(snapshot: Snapshot) -> list[str]:
        return sorted(f"{r} ({r.kind})" for r in snapshot.relations)

    states = [
        (t.entity, t.is_agent, t.before.attributes, relations(t.before)) for t in action.transitions
    ] + [(t.entity, t.is_agent, t.after.attributes, relations(t.after)) for t in action.transitions]
    tasks = action.tasks if with_tasks else None
    return (action.agent, action.start, action.end, action.verb, action.slots, tasks, states)


def test_binary_fluents_follow_the_value_order_of_the_model() -> None:
    # yes is the first listed value and no the second; the writer relies on that order.
    assert ATTRIBUTE_VALUES[A.EMPTINESS][:2] == ("empty", "full")
    assert ATTRIBUTE_VALUES[A.OPENNESS][:2] == ("open", "closed")
    assert ATTRIBUTE_VALUES[A.TEMPERATURE][:2] == ("boiled", "room temperature")


def test_two_steps_alike_but_for_their_tasks_keep_their_tasks(tmp_path: Path) -> None:
    """per_act_intervals.json keys tasks by person, action text, start and end; two actions
    alike in all four (found by the round-trip property above) keep their own tasks through the
    meta file instead of sharing one row."""
    alike = {
        "agent": "P1",
        "start": 0.0,
        "end": 0.0,
        "verb": "get",
        "slots": ActionSlots(patient=["cup"]),
    }
    recording = Recording(
        id="twice",
        source=Source.SIMULATED,
        duration=10.0,
        fps=FPS,
        agents=[Agent(id="P1"), Agent(id="P2", role=AgentRole.HELPER)],
        actions=[
            ActionSegment(id="act-0", tasks=[], **alike),
            ActionSegment(id="act-1", tasks=["cook"], **alike),
        ],
    )
    write_egotaskqa([recording], tmp_path / "out")
    [read] = read_egotaskqa(tmp_path / "out")
    assert [a.tasks for a in read.actions] == [[], ["cook"]]
    assert read == recording
