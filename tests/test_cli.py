from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from data_support import real_data
from taskqa.cli import app

runner = CliRunner()
# ../shared/data, else the cache `taskqa data download` fills (tests/data_support.py)
REAL = real_data("captaincook4d/annotation_json", "captaincook4d/task_graphs", "captaincook4d/metadata",
                 "promqa/graphs.json", "promqa/cleaned_error_annotations.json")  # fmt: skip


def test_help_lists_the_commands() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("simulate", "validate", "stats", "schema", "convert"):
        assert command in result.output


def test_simulate_then_validate(tmp_path: Path) -> None:
    out = tmp_path / "corpus"
    result = runner.invoke(app, ["simulate", "--episodes", "5", "--seed", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote 5 recordings" in result.output
    manifest = json.loads((out / "corpus.json").read_text())
    assert manifest["seed"] == 1 and manifest["recordings"] == 5
    result = runner.invoke(app, ["validate", str(out)])
    assert result.exit_code == 0, result.output
    assert "valid" in result.output


def test_validate_fails_on_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "domain.yaml"
    broken.write_text("name: x\nfps: -1\nrooms: {}\nobjects: {}\nactions: {}\ntasks: {}\n")
    result = runner.invoke(app, ["validate", str(broken)])
    assert result.exit_code == 1
    assert "domain.yaml.fps: Input should be greater than 0" in result.output


def test_validate_reports_unrecognised_paths(tmp_path: Path) -> None:
    stray = tmp_path / "notes.txt"
    stray.write_text("hello")
    result = runner.invoke(app, ["validate", str(stray), str(tmp_path / "absent")])
    assert result.exit_code == 1
    assert "not a format taskqa reads" in result.output
    assert f"✗ {tmp_path / 'absent'}: not found" in result.output


def test_schema_writes_json_schema(tmp_path: Path) -> None:
    target = tmp_path / "recording.schema.json"
    result = runner.invoke(app, ["schema", "--out", str(target)])
    assert result.exit_code == 0
    schema = json.loads(target.read_text())
    assert schema["title"] == "Recording"
    assert "ActionSegment" in schema["$defs"]


def test_simulate_takes_config_overrides(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"unknown_rate": 0.0, "episode_types": {"2x2": 1.0}}))
    out = tmp_path / "corpus"
    args = ["simulate", "--episodes", "3", "--config", str(config), "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = (out / "recordings.jsonl").read_text().splitlines()
    assert all('"episode_type":"2x2"' in line for line in lines)
    assert all('"unknown"' not in line for line in lines)


def test_simulate_rejects_a_bad_config(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps({"unknown_rate": 2, "colour": "red", "episode_types": {"3x1": 1.0}})
    )
    args = ["simulate", "--config", str(config), "--out", str(tmp_path / "o")]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert (
        "config.json.unknown_rate: Input should be less than or equal to 1 (got 2)" in result.output
    )
    assert "config.json.colour: extra inputs are not permitted" in result.output
    assert "config.json.episode_types: unknown episode types ['3x1']" in result.output
    assert not (tmp_path / "o").exists()
    config.write_text(json.dumps({"rooms": {"garage": 1.0}}))
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert "config.rooms.garage: the 'household' domain has no tasks in this room" in result.output
    assert not (tmp_path / "o").exists()


def test_simulate_rejects_a_bad_domain(tmp_path: Path) -> None:
    bad = tmp_path / "mine.yaml"
    bad.write_text("name: [unclosed")
    result = runner.invoke(
        app, ["simulate", "--episodes", "1", "--domain", str(bad), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 1
    assert "mine.yaml: invalid YAML" in result.output
    assert not (tmp_path / "o").exists()


@REAL.mark
def test_real_annotations_validate_and_convert(tmp_path: Path) -> None:
    cc4d, promqa = REAL.root / "captaincook4d", REAL.root / "promqa"
    result = runner.invoke(app, ["validate", str(cc4d), str(promqa)])
    assert result.exit_code == 0, result.output
    assert result.output.count("valid") == 2
    out = tmp_path / "cc4d"
    result = runner.invoke(app, ["convert", str(cc4d), "--to", "taskqa", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote 384 recordings" in result.output
    result = runner.invoke(app, ["validate", str(out)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["stats", str(out), "--out", str(tmp_path / "stats")])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "stats" / "stats.json").read_text())
    assert summary["actions"] == 5409  # 5,700 steps less the 291 missing ones
