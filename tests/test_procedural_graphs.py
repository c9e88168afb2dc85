"""Recipe graphs from both sources, DOT export with distinct nodes, and status graphs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from data_support import real_data
from taskqa.problems import InvalidInputError
from taskqa.procedural.cli import app
from taskqa.procedural.dot import (
    ERROR_MARK,
    NodeStatus,
    StepStatus,
    merged_texts,
    quote,
    recipe_dot,
    status_dot,
    step_statuses,
)
from taskqa.procedural.recipes import RecipeGraph, graphs_from_json, load_recipe_graphs
from taskqa.procedural.render import graphviz_program, layers, render_status_png

# ../shared/data, else the cache `taskqa data download` fills (tests/data_support.py)
REAL = real_data("promqa/graphs.json", "captaincook4d/task_graphs")
PROMQA = REAL.root / "promqa"
CC4D = REAL.root / "captaincook4d"
realdata = REAL.mark
RELEASED = real_data("promqa/examples_sample.json")  # a sample only ../shared/data has

# "Flip" occurs twice: the released export would merge the two flips into one node.
FLIP = RecipeGraph(
    7,
    'Flip "Toast"',
    {0: "START", 1: "Toast-Toast bread", 2: "Flip-Flip it", 3: "Butter-Butter it",
     4: "Flip-Flip it", 5: "END"},
    ((0, 1), (1, 2), (2, 3), (3, 4), (4, 5)),
)  # fmt: skip


def test_graph_queries() -> None:
    assert FLIP.predecessors[3] == {2}
    assert FLIP.ancestors[4] == {0, 1, 2, 3}
    assert FLIP.descendants[1] == {2, 3, 4, 5}
    assert FLIP.topological_order() == [0, 1, 2, 3, 4, 5]
    assert FLIP.node_order == (0, 1, 2, 3, 4, 5)
    assert layers(FLIP) == {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5}


def test_dot_keeps_repeated_texts_as_distinct_nodes() -> None:
    dot = recipe_dot(FLIP)
    assert '"2. Flip-Flip it" -> "3. Butter-Butter it";' in dot
    assert '"3. Butter-Butter it" -> "4. Flip-Flip it";' in dot
    assert merged_texts(FLIP) == {"Flip-Flip it": [2, 4]}
    assert quote('say "hi" \\ now\n') == '"say \\"hi\\" \\\\ now\\n"'


def test_status_marks() -> None:
    record = {
        "previous_steps": [{"step_id": 1, "description": "x", "errors": [{"tag": "t"}]}],
        "current_step": {"step_id": 2, "description": "y"},
    }
    statuses = step_statuses(FLIP, record)
    assert statuses[0] == NodeStatus(StepStatus.PASSED)
    assert statuses[1] == NodeStatus(StepStatus.PASSED, has_error=True)
    assert statuses[2] == NodeStatus(StepStatus.CURRENT)
    assert statuses[3] == NodeStatus(StepStatus.NOT_PASSED)
    dot = status_dot(FLIP, statuses)
    assert (
        f'"1" [color="forestgreen", fontcolor="firebrick", label="1. Toast-Toast bread", style="solid", xlabel="{ERROR_MARK}"];'
        in dot
    )
    assert '"2" [color="darkorange", label="2. Flip-Flip it", style="diagonals, bold"];' in dot
    assert '"3" [label="3. Butter-Butter it", style="dotted"];' in dot


@pytest.mark.parametrize("engine", ["matplotlib", "graphviz"])
def test_status_png_is_deterministic(engine: str) -> None:
    if engine == "graphviz" and graphviz_program() is None:
        pytest.skip("no Graphviz program (install graphviz-pure)")
    statuses = {step: NodeStatus(StepStatus.NOT_PASSED) for step in FLIP.steps}
    statuses[2] = NodeStatus(StepStatus.CURRENT, has_error=True)
    dot = status_dot(FLIP, statuses)
    first, used = render_status_png(FLIP, statuses, dot, engine)  # type: ignore[arg-type]
    again, _ = render_status_png(FLIP, statuses, dot, engine)  # type: ignore[arg-type]
    assert used == engine
    assert first.startswith(b"\x89PNG") and first == again


def test_bad_graph_names_the_record_path() -> None:
    data = {"1": {"name": "Toast", "steps": {"0": "START", "1": "END"}, "edges": [[0, 2]]}}
    with pytest.raises(InvalidInputError) as caught:
        graphs_from_json(data, "graphs.json")
    assert str(caught.value.problems[0]) == (
        'graphs.json["1"].edges[0]: edge [0, 2] names an unknown step id'
    )
    cyclic = {"1": {"name": "T", "steps": {"0": "START", "1": "a", "2": "b", "3": "END"},
                    "edges": [[0, 1], [1, 2], [2, 1], [2, 3]]}}  # fmt: skip
    with pytest.raises(InvalidInputError, match="the edges form a cycle"):
        graphs_from_json(cyclic, "graphs.json")


@realdata
def test_both_sources_give_the_same_graphs() -> None:
    from_json = load_recipe_graphs(PROMQA / "graphs.json")
    from_folder = load_recipe_graphs(CC4D)
    assert len(from_json) == 24
    assert from_json == from_folder
    assert {str(k): g.as_json() for k, g in from_json.items()} == json.loads(
        (PROMQA / "graphs.json").read_text()
    )


@realdata
def test_agrees_with_the_foundation_reader() -> None:
    from taskqa.sources.captaincook4d import load_task_graphs

    ours = load_recipe_graphs(PROMQA / "graphs.json")
    for activity, model in load_task_graphs(PROMQA / "graphs.json").items():
        assert RecipeGraph.from_task_graph(activity, model) == ours[activity]


@realdata
def test_recipes_whose_nodes_the_release_merges() -> None:
    graphs = load_recipe_graphs(PROMQA / "graphs.json")
    merged = {g.name: len(merged_texts(g)) for g in graphs.values() if merged_texts(g)}
    assert merged == {"Dressed Up Meatballs": 2, "Pinwheels": 1, "Sauted Mushrooms": 1}
    for graph in graphs.values():
        statements = recipe_dot(graph).splitlines()[1:-1]
        nodes = {line for line in statements if "->" not in line}
        assert len(nodes) == len(graph.steps)
        assert len(statements) == len(graph.steps) + len(graph.edges)


@realdata
@RELEASED.mark
def test_graph_command_writes_dot_and_status_png(tmp_path: Path) -> None:
    records = tmp_path / "samples.json"
    released = json.loads((RELEASED.root / "promqa" / "examples_sample.json").read_text())
    records.write_text(json.dumps(released))
    run = CliRunner().invoke(
        app,
        ["graph", "--graphs", str(PROMQA / "graphs.json"), "--activity", "1", "--out",
         str(tmp_path / "g"), "--records", str(records), "--question-id", "1_36_10_timing",
         "--engine", "matplotlib"],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    status = (tmp_path / "g" / "1_36_10_timing.dot").read_text()
    assert '"10" [color="darkorange", fontcolor="firebrick"' in status
    assert (tmp_path / "g" / "1_36_10_timing.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "g" / "recipe.dot").read_text().startswith("digraph recipe {")
