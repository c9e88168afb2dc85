"""The ``taskqa physics`` commands end to end on a few simulated scenes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from data_support import real_data
from taskqa.physics.cli import app

runner = CliRunner()
REAL = real_data("clevrer_humans/train.json")  # ../shared/data, else the data cache
HUMANS = REAL.root / "clevrer_humans" / "train.json"
realdata = REAL.mark


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("physics") / "scenes"
    result = runner.invoke(app, ["simulate", "--scenes", "4", "--seed", "9", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_simulate_writes_one_annotation_per_scene(scenes: Path, tmp_path: Path) -> None:
    names = sorted(p.name for p in scenes.iterdir())
    assert names == [f"annotation_0000{i}.json" for i in range(4)] + ["scenes.json"]
    assert json.loads((scenes / "scenes.json").read_text())["seed"] == 9
    again = tmp_path / "again"
    runner.invoke(app, ["simulate", "--scenes", "4", "--seed", "9", "--out", str(again)])
    for name in names:
        assert (again / name).read_bytes() == (scenes / name).read_bytes()
    result = runner.invoke(
        app, ["validate", *(str(p) for p in sorted(scenes.glob("annotation_*")))]
    )
    assert result.exit_code == 0, result.output


def test_events_command(scenes: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["events", str(scenes), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "precision" in result.output
    records = json.loads((tmp_path / "events.json").read_text())
    assert [r["scene_index"] for r in records] == [0, 1, 2, 3]
    assert all(e["description"] for r in records for e in r["ground_truth"] + r["detected"])
    assert "Recall" in (tmp_path / "detector.md").read_text()


def test_ceg_then_score(scenes: Path, tmp_path: Path) -> None:
    out = tmp_path / "ceg"
    result = runner.invoke(
        app, ["ceg", str(scenes), "--out", str(out), "--choices", "2", "--seed", "1"]
    )
    assert result.exit_code == 0, result.output
    report = (out / "ceg.md").read_text()
    assert "SIMULATED, not human" in report and "P(Human \\| Y)" in report
    graphs = json.loads((out / "cegs.json").read_text())
    assert len(graphs) == 4
    result = runner.invoke(app, ["validate", str(out / "questions.json")])
    assert result.exit_code == 0, result.output
    questions = json.loads((out / "questions.json").read_text())
    # Answering every choice "correct" scores exactly the share of correct choices.
    predictions = [
        {
            "scene_index": s["scene_index"],
            "questions": [
                {
                    "question_id": q["question_id"],
                    "choices": [
                        {"choice_id": c["choice_id"], "answer": "correct"} for c in q["choices"]
                    ],
                }
                for q in s["questions"]
            ],
        }
        for s in questions
    ]
    (tmp_path / "pred.json").write_text(json.dumps(predictions))
    result = runner.invoke(
        app,
        [
            "score",
            "--questions",
            str(out / "questions.json"),
            "--predictions",
            str(tmp_path / "pred.json"),
            "--out",
            str(tmp_path / "score"),
        ],
    )
    assert result.exit_code == 0, result.output
    choices = [c for s in questions for q in s["questions"] for c in q["choices"]]
    share = sum(c["answer"] == "correct" for c in choices) / len(choices)
    assert f"{share:.3f}" in result.output
    assert (tmp_path / "score" / "score.html").is_file()


def test_score_needs_one_source_and_reports_bad_files(tmp_path: Path) -> None:
    bad = tmp_path / "q.json"
    bad.write_text('[{"scene_index": 0, "questions": [{"question_id": 0}]}]')
    result = runner.invoke(app, ["score", "--questions", str(bad)])
    assert result.exit_code == 2
    result = runner.invoke(app, ["score", "--questions", str(bad), "--baseline", "prior"])
    assert result.exit_code == 1
    assert "q.json[0].questions[0].question: field required" in result.output
    result = runner.invoke(app, ["validate", str(bad)])
    assert result.exit_code == 1


@realdata
def test_real_clevrer_humans_commands(tmp_path: Path) -> None:
    result = runner.invoke(app, ["real-ceg", str(HUMANS), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "285 graphs: 3.04 nodes and 1.90 edges" in result.output
    result = runner.invoke(
        app,
        ["score", "--questions", str(HUMANS), "--baseline", "text-only", "--out", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    assert "explanatory" in result.output
    assert json.loads((tmp_path / "predictions.json").read_text())


def test_ceg_with_imported_judgments(scenes: Path, tmp_path: Path) -> None:
    first = tmp_path / "first"
    assert runner.invoke(app, ["ceg", str(scenes), "--out", str(first)]).exit_code == 0
    graphs = json.loads((first / "cegs.json").read_text())
    edges = []
    for graph in graphs:
        names = [node["description"] for node in graph["nodes"]]
        for edge in graph["edges"]:
            for rater in ("ann", "bob", "cy"):
                # ann and bob rate exactly by the trace heuristic; cy rates everything 3.
                score = (5 if edge["heuristic"] else 1) if rater != "cy" else 3
                edges.append(
                    {
                        "rater": rater,
                        "scene_index": graph["scene_index"],
                        "cause": names[edge["cause"]],
                        "effect": names[edge["effect"]],
                        "score": score,
                    }
                )
    for rater, score in (("ann", 5), ("bob", 4), ("cy", 2)):
        edges.append(
            {
                "rater": rater,
                "scene_index": 500,
                "cause": "X hits Y",
                "effect": "Y moves",
                "score": score,
            }
        )
    checks = [{"scene_index": 500, "cause": "X hits Y", "effect": "Y moves", "expected": 5}]
    ratings = tmp_path / "ratings.json"
    ratings.write_text(json.dumps({"edge_judgments": edges, "quality_checks": checks}))
    out = tmp_path / "imported"
    result = runner.invoke(
        app, ["ceg", str(scenes), "--out", str(out), "--judgments", str(ratings)]
    )
    assert result.exit_code == 0, result.output
    report = (out / "ceg.md").read_text()
    assert "imported real judgments from ratings.json (2 raters accepted, 1 rejected" in report
    assert "| heuristic | 1.00 | 1.00 |" in report
    imported = json.loads((out / "cegs.json").read_text())
    scored = [e for g in imported for e in g["edges"]]
    assert scored and all(e["scores"] in ([5, 5], [1, 1]) for e in scored)
    assert all(e["positive"] == e["heuristic"] for e in scored)


def test_ceg_refuses_annotations_from_another_layout(scenes: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    runner.invoke(app, ["simulate", "--scenes", "4", "--seed", "10", "--out", str(other)])
    (other / "scenes.json").write_bytes((scenes / "scenes.json").read_bytes())
    result = runner.invoke(app, ["ceg", str(other), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert (
        "annotation_00000.json.object_property: objects differ from scene 0 of scenes.json"
        in result.output
    )
