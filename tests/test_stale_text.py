"""What the commands print matches what they wrote (issue 35, item 11: stale text)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

import test_benchmark_export
from taskqa.cli import app

bench = test_benchmark_export.bench  # six unrendered episodes, built (module fixture)


def test_lmms_export_names_every_task_it_wrote(bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "lmms"
    command = ["export", "lmms-eval", str(bench), "-o", str(out), "--allow-missing-videos"]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    written = sorted(path.stem for path in out.glob("*.yaml"))
    # one open and one multiple-choice task per split family, never only the first two
    assert len(written) >= 4 and "taskqa_normal_mc" in written
    said = " ".join(result.output.split())  # rich folds long lines
    assert f"{len(written)} tasks: {', '.join(written)}" in said
