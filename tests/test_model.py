from __future__ import annotations

import pytest
from pydantic import ValidationError

from taskqa.model import (
    ActionSegment,
    ActionSlots,
    Agent,
    Attribute,
    EntityTransition,
    ErrorTag,
    Outcome,
    Procedure,
    Recording,
    Relation,
    RelationKind,
    Snapshot,
    Source,
    StepError,
    StepExecution,
    TaskGraph,
    TaskStep,
)
from taskqa.schema import json_schema


def _graph(edges: list[tuple[str, str]]) -> TaskGraph:
    steps = [
        TaskStep(id=i, text=t) for i, t in [("0", "START"), ("1", "a"), ("2", "b"), ("3", "END")]
    ]
    return TaskGraph(name="r", steps=steps, edges=edges, start="0", end="3")


def test_attribute_values_are_checked_and_unknown_is_always_allowed() -> None:
    Snapshot(attributes={Attribute.SHAPE: "diced", Attribute.COOKEDNESS: "unknown"})
    with pytest.raises(ValidationError, match="expected one of whole \\| part \\| diced"):
        Snapshot(attributes={Attribute.SHAPE: "mashed"})


def test_action_times_must_not_be_reversed() -> None:
    with pytest.raises(ValidationError, match="end 1.0 is before start 2.0"):
        ActionSegment(id="a", agent="P1", start=2.0, end=1.0, verb="get")


def test_action_frames_follow_the_recording_fps() -> None:
    action = ActionSegment(id="a", agent="P1", start=1.5, end=2.25, verb="get")
    assert (action.start_frame(24), action.end_frame(24)) == (36, 54)


def test_slots_list_objects_once_in_slot_order() -> None:
    slots = ActionSlots(patient=["juicer"], destination=["juicer-base"], instrument=["juicer"])
    assert slots.objects() == ["juicer", "juicer-base"]


def test_transition_relations_must_be_about_the_entity() -> None:
    stray = Relation(subject="cup", relation="in", object="sink")
    with pytest.raises(ValidationError, match="expected the entity 'plate'"):
        EntityTransition(entity="plate", before=Snapshot(relations=[stray]))


def test_changed_attributes_in_table_order() -> None:
    transition = EntityTransition(
        entity="kettle",
        before=Snapshot(
            attributes={Attribute.TEMPERATURE: "room temperature", Attribute.POWEREDNESS: "on"}
        ),
        after=Snapshot(attributes={Attribute.TEMPERATURE: "boiled", Attribute.POWEREDNESS: "off"}),
    )
    assert transition.changed_attributes() == [Attribute.TEMPERATURE, Attribute.POWEREDNESS]


def test_task_graph_rejects_cycles_and_unknown_steps() -> None:
    assert _graph([("0", "1"), ("1", "2"), ("2", "3")]).digraph().number_of_edges() == 3
    with pytest.raises(ValidationError, match="cycle: 1 -> 2 -> 1"):
        _graph([("0", "1"), ("1", "2"), ("2", "1")])
    with pytest.raises(ValidationError, match="unknown step id '9'"):
        _graph([("0", "9")])


def test_missing_steps_and_errors() -> None:
    procedure = Procedure(
        task_graph=_graph([("0", "1"), ("1", "2"), ("2", "3")]),
        steps=[
            StepExecution(
                step="2",
                description="b",
                start=3.0,
                end=4.0,
                errors=[StepError(tag=ErrorTag.TIMING, description="too long")],
            ),
            StepExecution(
                step="1",
                description="a",
                errors=[StepError(tag=ErrorTag.MISSING_STEP, description="Skipped")],
            ),
        ],
    )
    assert [s.step for s in procedure.missing_steps()] == ["1"]
    assert [s.step for s in procedure.performed_in_order()] == ["2"]
    assert procedure.has_errors
    with pytest.raises(ValidationError, match="not a step of task graph"):
        Procedure(task_graph=procedure.task_graph, steps=[StepExecution(step="7", description="x")])


def test_recording_checks_agents_and_duration() -> None:
    action = ActionSegment(id="a", agent="P2", start=0.0, end=1.0, verb="get")
    with pytest.raises(ValidationError, match="'P2' is not one of the agents"):
        Recording(
            id="r",
            source=Source.SIMULATED,
            duration=5,
            fps=24,
            agents=[Agent(id="P1")],
            actions=[action],
        )
    late = ActionSegment(id="a", agent="P1", start=0.0, end=9.0, verb="get")
    with pytest.raises(ValidationError, match="after the recording's duration"):
        Recording(
            id="r",
            source=Source.SIMULATED,
            duration=5,
            fps=24,
            agents=[Agent(id="P1")],
            actions=[late],
        )


def test_relation_kinds_and_text() -> None:
    relation = Relation(
        subject="P1", relation="getting-with", object="fork", kind=RelationKind.ACTING
    )
    assert str(relation) == "P1 [getting-with] fork"


def test_json_schema_describes_the_whole_model() -> None:
    schema = json_schema("recording")
    definitions = schema["$defs"]
    for name in ("ActionSegment", "EntityTransition", "Procedure", "TaskGraph", "PhysicalScene"):
        assert name in definitions
    assert "visibility to me" in definitions["Attribute"]["enum"]
    assert len(definitions["Attribute"]["enum"]) == 15
    assert definitions["Outcome"]["enum"] == ["done", "failed", "partial"]
    assert "initial_state" in schema["properties"]


def test_outcome_defaults_to_done_and_reads_back() -> None:
    action = ActionSegment(id="a", agent="P1", start=0.0, end=1.0, verb="open")
    assert action.outcome is Outcome.DONE
    failed = action.model_copy(update={"outcome": Outcome.FAILED})
    assert ActionSegment.model_validate_json(failed.model_dump_json()).outcome is Outcome.FAILED
    with pytest.raises(ValidationError, match="outcome"):
        ActionSegment.model_validate({**failed.model_dump(), "outcome": "stuck"})
