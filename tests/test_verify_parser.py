"""The description parser: EgoTV's real graphs, the DSL round trip, GED, errors and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from data_support import real_data
from taskqa.problems import InvalidInputError
from taskqa.verify.cli import app
from taskqa.verify.graph import Query, QueryGraph, SubTask, graph_edit_distance, parse_dsl
from taskqa.verify.parse_eval import read_gold_graphs, score_parser, without_presliced
from taskqa.verify.parser import DescriptionError, parse_description

REAL = real_data("egotv/descriptions_sample.tsv")  # a sample only ../shared/data has
EGOTV = REAL.root / "egotv" / "descriptions_sample.tsv"
realdata = REAL.mark


@pytest.mark.realdata
@realdata
def test_parser_reaches_the_target_on_the_real_egotv_graphs() -> None:
    score = score_parser(read_gold_graphs(EGOTV))
    assert score.rows == 1072 and score.unparsed == 0
    # Every graph is recovered up to the pre-sliced object name the text cannot show ...
    assert score.exact_text_determined >= 0.95
    assert score.exact_text_determined == 1.0
    assert score.mean_ged_text_determined == 0.0
    # ... and strictly on all rows whose object was not a pre-sliced piece (144 of 1072 were).
    assert score.exact_strict == pytest.approx(928 / 1072)


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        (
            "tomato is cleaned in a SinkBasin after slicing",
            '"Step 1 StateQuery(tomato,slice)";"Step 2 StateQuery(tomato,clean)";"Step 1 StateQuery(tomato,slice)" -> "Step 2 StateQuery(tomato,clean)";',
        ),
        ("apple is picked", '"Step 1 RelationQuery(apple,agent,pick)";'),
        ("lettuce is located and picked", '"Step 1 RelationQuery(lettuce,agent,pick)";'),
        (
            "potato is heated and cleaned in a SinkBasin, then placed in a fridge",
            '"Step 1 StateQuery(potato,clean)";"Step 2 StateQuery(potato,heat)";"Step 3 RelationQuery(potato,fridge,place)";'
            '"Step 1 StateQuery(potato,clean)" -> "Step 3 RelationQuery(potato,fridge,place)";"Step 2 StateQuery(potato,heat)" -> "Step 3 RelationQuery(potato,fridge,place)";',
        ),
        (
            "a clean, hot potato placed in a countertop",
            '"Step 1 StateQuery(potato,heat)";"Step 2 StateQuery(potato,clean)";"Step 3 RelationQuery(potato,countertop,place)";',
        ),
        ("a slice of bread", '"Step 1 StateQuery(bread,slice)";'),
        (
            "mug is picked, then heated, then placed",
            '"Step 1 StateQuery(mug,heat)";"Step 2 RelationQuery(mug,any,place)";"Step 1 StateQuery(mug,heat)" -> "Step 2 RelationQuery(mug,any,place)";',
        ),
    ],
)
def test_templates_parse_to_egotv_graphs(description: str, expected: str) -> None:
    assert parse_description(description).to_dsl() == expected


@pytest.mark.parametrize("text", ["", "apple is juggled", "apple is heated, then heated"])
def test_unparseable_descriptions_are_rejected(text: str) -> None:
    with pytest.raises(DescriptionError):
        parse_description(text)


def test_dsl_round_trip_and_graph_edit_distance() -> None:
    text = '"Step 1 StateQuery(a,clean)";"Step 2 StateQuery(a,heat)";"Step 1 StateQuery(a,clean)" -> "Step 2 StateQuery(a,heat)";'
    graph = parse_dsl(text)
    assert graph.to_dsl() == text
    swapped = QueryGraph.from_blocks([[Query(SubTask.HEAT, "a")], [Query(SubTask.CLEAN, "a")]])
    assert graph_edit_distance(graph, graph) == 0
    assert graph_edit_distance(graph, swapped) == 2  # delete one edge, insert the reverse
    assert graph_edit_distance(graph, QueryGraph(())) == 3  # two nodes and one edge
    assert without_presliced("StateQuery(applesliced,clean)") == "StateQuery(apple,clean)"
    with pytest.raises(ValueError, match="Step k"):
        parse_dsl('"Step 1 StateQuery(a,clean)" junk')
    with pytest.raises(ValueError, match="unknown query"):
        parse_dsl('"Step 1 StateQuery(a,fry)";')


def test_gold_file_errors_name_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "gold.tsv"
    bad.write_text('apple is heated\tx\t"Step 1 StateQuery(apple,heat)";\nonly two\tcolumns\n')
    with pytest.raises(InvalidInputError, match=r"gold.tsv\[1\]: expected 3 TAB"):
        read_gold_graphs(bad)


def test_parse_command_writes_one_graph_per_line(tmp_path: Path) -> None:
    source = tmp_path / "descriptions.txt"
    source.write_text("apple is sliced, then heated\na cold tomato\n")
    out = tmp_path / "graphs.txt"
    result = CliRunner().invoke(app, ["parse", str(source), "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert lines == [
        '"Step 1 StateQuery(apple,slice)";"Step 2 StateQuery(apple,heat)";"Step 1 StateQuery(apple,slice)" -> "Step 2 StateQuery(apple,heat)";',
        '"Step 1 StateQuery(tomato,cool)";',
    ]
    source.write_text("apple is sliced\napple is juggled\n")
    failed = CliRunner().invoke(app, ["parse", str(source), "--out", str(out)])
    assert failed.exit_code == 1
    assert "descriptions.txt[1]" in failed.output


@pytest.mark.realdata
@realdata
def test_parse_score_command_reports_both_rates(tmp_path: Path) -> None:
    out = tmp_path / "score.json"
    result = CliRunner().invoke(app, ["parse-score", str(EGOTV), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "exact_match_text_determined: 1.0000" in result.output
    assert '"exact_match_strict": 0.865' in out.read_text()
