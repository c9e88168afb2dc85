"""Corpus statistics: exact counts on a hand-built corpus, and stable files on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table

from taskqa.model import (
    ActionSegment,
    Agent,
    Attribute,
    EntityTransition,
    ErrorTag,
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
from taskqa.stats import (
    CorpusStats,
    compute_stats,
    render_markdown,
    render_stats_tables,
    write_stats,
)
from taskqa.stats.report import _binned

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
EXPECTED_FILES = [
    "stats.json",
    "stats.md",
    "relationships.png",
    "attribute_values.png",
    "attribute_changes.png",
    "actions_per_recording.png",
    "verbs.png",
]

A = Attribute
SPATIAL, ACTING, MULTI = RelationKind.SPATIAL, RelationKind.ACTING, RelationKind.MULTI_AGENT


def rel(subject: str, relation: str, obj: str | None, kind: RelationKind = SPATIAL) -> Relation:
    return Relation(subject=subject, relation=relation, object=obj, kind=kind)


def snap(attributes: dict[Attribute, str] | None = None, *relations: Relation) -> Snapshot:
    return Snapshot(attributes=attributes or {}, relations=list(relations))


def obj(entity: str, before: Snapshot, after: Snapshot) -> EntityTransition:
    return EntityTransition(entity=entity, before=before, after=after)


def agent(entity: str, *relations: Relation) -> EntityTransition:
    """An agent whose relations hold on both sides of the action."""
    return EntityTransition(
        entity=entity, is_agent=True, before=snap(None, *relations), after=snap(None, *relations)
    )


def action(
    id: str, who: str, start: float, verb: str, *transitions: EntityTransition
) -> ActionSegment:
    return ActionSegment(
        id=id, agent=who, start=start, end=start + 2, verb=verb, transitions=list(transitions)
    )


def kitchen_recording() -> Recording:
    """Two agents: P1 opens the fridge and gets a cup (unknown -> full), P2 washes the cup."""
    return Recording(
        id="r1",
        source=Source.SIMULATED,
        duration=20.0,
        fps=10.0,
        environment="kitchen",
        agents=[Agent(id="P1"), Agent(id="P2")],
        metadata={"episode_type": "2x1"},
        actions=[
            action(
                "a0",
                "P1",
                0,
                "open",
                obj(
                    "fridge",
                    snap({A.OPENNESS: "closed", A.VISIBILITY_TO_ME: "invisible"}),
                    snap({A.OPENNESS: "open", A.VISIBILITY_TO_ME: "visible"}),
                ),
                agent(
                    "P1",
                    rel("P1", "opening", "fridge", ACTING),
                    rel("P1", "looking-at", "P2", MULTI),
                ),
            ),
            action(
                "a1",
                "P1",
                3,
                "get",
                obj(
                    "cup",
                    snap(
                        {A.VISIBILITY_TO_ME: "visible", A.EMPTINESS: "unknown"},
                        rel("cup", "in", "fridge"),
                    ),
                    snap(
                        {A.VISIBILITY_TO_ME: "visible", A.EMPTINESS: "full"},
                        rel("cup", "held-by", "P1"),
                    ),
                ),
                agent("P1", rel("P1", "getting", "cup", ACTING)),
            ),
            action(
                "a2",
                "P2",
                6,
                "wash",
                obj(
                    "cup",
                    # A relation listed twice in one snapshot still counts once.
                    snap(
                        {A.CLEANLINESS: "dirty"},
                        rel("cup", "held-by", "P1"),
                        rel("cup", "held-by", "P1"),
                    ),
                    snap({A.CLEANLINESS: "clean"}, rel("cup", "held-by", "P1")),
                ),
                agent("P2", rel("P2", "washing", "cup", ACTING)),
            ),
        ],
    )


def cooking_recording() -> Recording:
    """One cut, and a procedure with a mistaken step and two missing ones."""
    steps = [TaskStep(id=i, text=i) for i in ("START", "s1", "s2", "s3", "END")]
    graph = TaskGraph(name="salad", steps=steps, start="START", end="END")
    errors = [StepError(tag=ErrorTag.TECHNIQUE), StepError(tag=ErrorTag.MEASUREMENT)]
    return Recording(
        id="r2",
        source=Source.CAPTAINCOOK4D,
        duration=10.0,
        fps=30.0,
        agents=[Agent(id="P1")],
        actions=[
            action(
                "a0",
                "P1",
                0,
                "cut",
                obj(
                    "tomato",
                    snap(
                        {A.SHAPE: "whole", A.CUTTABILITY: "cuttable"},
                        rel("tomato", "on-top-of", "board"),
                    ),
                    snap(
                        {A.SHAPE: "part", A.CUTTABILITY: "cuttable"},
                        rel("tomato", "on-top-of", "board"),
                    ),
                ),
            )
        ],
        procedures=[
            Procedure(
                task_graph=graph,
                steps=[
                    StepExecution(step="s1", description="cut", start=0, end=2, errors=errors),
                    StepExecution(
                        step="s2",
                        description="rinse",
                        errors=[StepError(tag=ErrorTag.MISSING_STEP)],
                    ),
                    StepExecution(step="s3", description="season"),
                ],
            )
        ],
    )


@pytest.fixture(scope="module")
def stats() -> CorpusStats:
    return compute_stats([kitchen_recording(), cooking_recording()])


def test_recording_level_counts(stats: CorpusStats) -> None:
    assert (stats.recordings, stats.actions) == (2, 4)
    assert stats.sources == {"captaincook4d": 1, "simulated": 1}
    assert stats.environments == {"kitchen": 1}
    assert stats.episode_types == {"2x1": 1}
    assert stats.agents_per_recording.histogram == {1: 1, 2: 1}
    per_recording = stats.actions_per_recording
    assert (per_recording.total, per_recording.mean, per_recording.min, per_recording.max) == (
        4,
        2.0,
        1,
        3,
    )
    assert per_recording.histogram == {1: 1, 3: 1}
    duration = stats.duration_seconds
    assert (duration.total, duration.mean, duration.min, duration.max) == (30.0, 15.0, 10.0, 20.0)
    # Ties in count are broken by name.
    assert list(stats.verbs.items()) == [("cut", 1), ("get", 1), ("open", 1), ("wash", 1)]


def test_relations_count_once_per_snapshot(stats: CorpusStats) -> None:
    assert [(r.relation, r.kind, r.count) for r in stats.relations] == [
        ("held-by", SPATIAL, 3),
        ("on-top-of", SPATIAL, 2),
        ("getting", ACTING, 2),
        ("opening", ACTING, 2),
        ("washing", ACTING, 2),
        ("looking-at", MULTI, 2),
        ("in", SPATIAL, 1),
    ]
    assert stats.relation_kinds == {SPATIAL: 6, ACTING: 6, MULTI: 2}
    top = stats.top_relation_triples[0]
    assert (top.subject, top.relation, top.object, top.count) == ("cup", "held-by", "P1", 3)


def test_attribute_values_and_changes(stats: CorpusStats) -> None:
    by_attribute = {row.attribute: row for row in stats.attribute_values}
    assert list(by_attribute) == list(Attribute)  # every attribute, in vocabulary order
    visibility = by_attribute[A.VISIBILITY_TO_ME]
    assert visibility.counts == {"visible": 3, "invisible": 1, "unknown": 0}
    assert visibility.ratios == {"visible": 0.75, "invisible": 0.25, "unknown": 0.0}
    assert by_attribute[A.EMPTINESS].counts == {"empty": 0, "full": 1, "unknown": 1}
    assert by_attribute[A.CUTTABILITY].annotations == 2
    assert by_attribute[A.TEMPERATURE].annotations == 0
    assert by_attribute[A.TEMPERATURE].ratios == {
        "boiled": 0.0,
        "room temperature": 0.0,
        "unknown": 0.0,
    }
    changed = {a: n for a, n in stats.attribute_changes.items() if n}
    # unknown -> full is not a change; cuttable -> cuttable neither.
    assert changed == {A.VISIBILITY_TO_ME: 1, A.OPENNESS: 1, A.CLEANLINESS: 1, A.SHAPE: 1}
    assert stats.spatial_relation_changes == 1  # only the cup leaving the fridge


def test_unknown_share_and_snapshots(stats: CorpusStats) -> None:
    notes = stats.annotations
    assert (notes.object_snapshots, notes.agent_snapshots) == (8, 6)
    assert (notes.attribute_annotations, notes.unknown_annotations) == (14, 1)
    assert notes.unknown_share == round(1 / 14, 6)


def test_procedure_errors_and_missing_steps(stats: CorpusStats) -> None:
    procedures = stats.procedures
    assert (procedures.procedures, procedures.steps, procedures.missing_steps) == (1, 3, 2)
    assert (procedures.steps_with_errors, procedures.recordings_with_errors) == (2, 1)
    assert list(procedures.error_tags) == list(ErrorTag)
    assert {t: n for t, n in procedures.error_tags.items() if n} == {
        ErrorTag.TECHNIQUE: 1,
        ErrorTag.MEASUREMENT: 1,
        ErrorTag.MISSING_STEP: 1,
    }


@pytest.fixture(scope="module")
def written(stats: CorpusStats, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    first, second = tmp_path_factory.mktemp("first"), tmp_path_factory.mktemp("second")
    for out in (first, second):
        paths = write_stats(stats, out)
        assert [p.name for p in paths] == EXPECTED_FILES
        assert all(p.parent == out for p in paths)
    return first, second


def test_write_stats_files(stats: CorpusStats, written: tuple[Path, Path]) -> None:
    out = written[0]
    assert sorted(p.name for p in out.iterdir()) == sorted(EXPECTED_FILES)  # no temp files left
    for name in EXPECTED_FILES:
        if name.endswith(".png"):
            data = (out / name).read_bytes()
            assert data.startswith(PNG_MAGIC), name
            assert len(data) > 5_000, name
            assert b"matplotlib" not in data, name  # the version-naming Software chunk is gone
    raw = json.loads((out / "stats.json").read_text(encoding="utf-8"))
    assert raw["format"] == "taskqa-stats"
    assert raw["attribute_changes"]["openness"] == 1
    assert raw["procedures"]["error_tags"]["Missing Step"] == 1
    assert CorpusStats.model_validate_json((out / "stats.json").read_text()) == stats
    markdown = (out / "stats.md").read_text(encoding="utf-8")
    assert markdown == render_markdown(stats)
    assert "| held-by | spatial | 3 |" in markdown
    assert "| Technique Error | 1 |" in markdown


def test_write_stats_is_byte_identical(written: tuple[Path, Path]) -> None:
    first, second = written
    for name in EXPECTED_FILES:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_empty_corpus(tmp_path: Path) -> None:
    empty = compute_stats([])
    assert (empty.recordings, empty.actions, empty.annotations.unknown_share) == (0, 0, 0.0)
    assert empty.actions_per_recording.histogram == {}
    paths = write_stats(empty, tmp_path)
    assert all(p.stat().st_size > 0 for p in paths)


def test_terminal_tables(stats: CorpusStats) -> None:
    tables = render_stats_tables(stats)
    assert tables and all(isinstance(t, Table) for t in tables)
    console = Console(record=True, width=200)
    for table in tables:
        console.print(table)
    text = console.export_text()
    assert "held-by" in text
    assert "Missing Step" in text


def test_markdown_bins_long_histograms() -> None:
    assert _binned({1: 1, 3: 2}) == [("1", 1), ("3", 2)]
    rows = _binned({value: 1 for value in range(3, 53)})  # 50 values -> ranges of 3
    assert rows[0] == ("3-5", 3)
    assert rows[-1] == ("51-52", 2)
    assert sum(n for _, n in rows) == 50
