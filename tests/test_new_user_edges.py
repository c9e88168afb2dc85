"""What a new user hit trying the README: empty inputs that went through, tracebacks, cut paths
and half messages, report labels that needed explaining, and an internal error's 50 lines."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from problem_text import problem_lines, run
from taskqa.cli import app
from taskqa.questions.config import GenerationConfig
from taskqa.terminal import INTERNAL_ERROR
from test_evaluation_fixture import benchmark_dir  # noqa: F401 (a pytest fixture)


@pytest.fixture
def empty_corpus(small_corpus_dir: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "empty"
    folder.mkdir()
    manifest = json.loads((small_corpus_dir / "corpus.json").read_text())
    manifest.pop("recordings"), manifest.pop("actions")
    (folder / "corpus.json").write_text(json.dumps(manifest))
    (folder / "recordings.jsonl").write_text("")
    shutil.copy(small_corpus_dir / "domain.yaml", folder)  # the manifest names it
    return folder


@pytest.mark.parametrize("command", ["validate", "build", "stats", "generate"])
def test_an_empty_corpus_is_refused_where_it_enters(
    command: str, empty_corpus: Path, tmp_path: Path
) -> None:
    args = {
        "validate": [],
        "build": ["--out", str(tmp_path / "bench")],
        "stats": ["--out", str(tmp_path / "stats")],
        "generate": ["--out", str(tmp_path / "q.jsonl")],
    }[command]
    code, output = run(command, str(empty_corpus), *args)
    assert code == 1
    assert problem_lines(output) == [
        f"✗ {empty_corpus}/recordings.jsonl: holds no recordings; expected one JSON object per line"
    ]
    assert not (tmp_path / "bench").exists()


def test_a_file_where_a_corpus_folder_belongs_is_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    code, output = run("stats", str(empty), "--out", str(tmp_path / "stats"))
    assert code == 1 and "Traceback" not in output
    assert output.strip() == (
        f"✗ {empty}: is a file; expected a corpus folder holding corpus.json and recordings.jsonl"
    )


def test_a_missing_folder_is_named_as_given(tmp_path: Path) -> None:
    code, output = run("stats", "nope/", "--out", str(tmp_path / "stats"))
    assert code == 1 and output.strip() == "✗ nope: not found"


def test_invalid_json_says_the_whole_reason(small_corpus_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    shutil.copytree(small_corpus_dir, folder)
    (folder / "recordings.jsonl").write_text('{"id": "x\n')
    code, output = run("validate", str(folder))
    assert code == 1
    assert problem_lines(output) == [
        f"✗ {folder}/recordings.jsonl[0]: invalid JSON: Unterminated string starting at "
        "line 1, column 8"
    ]


def test_build_refuses_candidates_without_questions(small_corpus_dir: Path, tmp_path: Path) -> None:
    candidates = tmp_path / "none.jsonl"
    candidates.write_text("")
    summary = {"config": GenerationConfig().model_dump(mode="json"), "templates": {}}
    (tmp_path / "none.summary.json").write_text(json.dumps(summary))
    (tmp_path / "none.clips.jsonl").write_text("")
    code, output = run(
        "build",
        str(small_corpus_dir),
        "--out",
        str(tmp_path / "b"),
        "--candidates",
        str(candidates),
    )
    assert code == 1 and problem_lines(output) == [
        f"✗ {small_corpus_dir}: no question could be generated from these recordings"
    ]
    missing = tmp_path / "lonely.jsonl"
    missing.write_text("")
    code, output = run(
        "build", str(small_corpus_dir), "--out", str(tmp_path / "b"), "--candidates", str(missing)
    )
    assert code == 1 and "expected the output of `taskqa generate`" in output


def _emptied(bench: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "bench"
    shutil.copytree(bench, copy)
    for split in (copy / "splits").rglob("*.jsonl"):
        split.write_text("")
    return copy


def test_baseline_and_export_refuse_a_benchmark_without_questions(
    benchmark_dir: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    empty = _emptied(benchmark_dir, tmp_path)
    code, output = run("baseline", "oracle", "-b", str(empty), "-o", str(tmp_path / "p.jsonl"))
    assert code == 1 and problem_lines(output) == [
        f"✗ {empty}/splits/normal/test.jsonl: holds no questions to predict"
    ]
    assert not (tmp_path / "p.jsonl").exists()
    code, output = run("export", "hf", str(empty), "--out", str(tmp_path / "hf"))
    assert code == 1 and problem_lines(output) == [f"✗ {empty}: holds no questions to export"]


def test_evaluate_refuses_an_empty_predictions_file(
    benchmark_dir: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    predictions = tmp_path / "empty.jsonl"
    predictions.write_text("\n")
    code, output = run(
        "evaluate", "-b", str(benchmark_dir), "-p", str(predictions), "-o", str(tmp_path / "e")
    )
    assert code == 1 and problem_lines(output) == [
        f"✗ {predictions}: no predictions; expected one JSON object per line with question_id "
        "and prediction"
    ]


def test_reports_name_types_and_explain_the_noisy_oracle(
    benchmark_dir: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    out = tmp_path / "noisy.jsonl"
    assert (
        run("baseline", "noisy-oracle", "--flip", "0.1", "-b", str(benchmark_dir), "-o", str(out))[
            0
        ]
        == 0
    )
    code, _ = run("evaluate", "-b", str(benchmark_dir), "-p", str(out), "-o", str(tmp_path / "e"))
    assert code == 0
    report = (tmp_path / "e" / "report.md").read_text()
    assert "10% of the state facts were flipped" in report and "not a model" in report
    help_text = CliRunner().invoke(app, ["baseline", "--help"], env={"COLUMNS": "300"}).output
    assert "facts, not answers" in help_text


def test_an_internal_error_is_one_line_and_a_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import taskqa.validate

    def broken(_path: Path) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(taskqa.validate, "validate_path", broken)
    with pytest.raises(SystemExit) as exited:
        app(["validate", str(tmp_path)], prog_name="taskqa")
    assert exited.value.code == INTERNAL_ERROR
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("taskqa: internal error (ZeroDivisionError: a bug); the full traceback")
    report = Path(line.rsplit(" ", 1)[1])
    text = report.read_text()
    assert "Traceback" in text and "ZeroDivisionError: a bug" in text
    report.unlink()


def test_a_most_likely_file_is_not_listed_twice(
    benchmark_dir: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    out = tmp_path / "most-likely.jsonl"
    assert run("baseline", "most-likely", "-b", str(benchmark_dir), "-o", str(out))[0] == 0
    code, _ = run("evaluate", "-b", str(benchmark_dir), "-p", str(out), "-o", str(tmp_path / "e"))
    results = json.loads((tmp_path / "e" / "results.json").read_text())
    assert code == 0 and [m["name"] for m in results["models"]] == ["most-likely"]
