"""Problems as tests compare them: file names without the temporary folders they live in;
and the command line run in-process, with the problem lines it printed.

Problems keep paths as given (``/tmp/pytest-7/x/recordings.jsonl[2].start``); the tests
written before that compare ``recordings.jsonl[2].start``, which is what they are about.
"""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from taskqa.cli import app
from taskqa.problems import Problem

_ABSOLUTE_FOLDERS = re.compile(r"(?<![\w.-])(?:/[^\s/'\"\[]+)+/")  # not relative paths


def by_name(problem: Problem) -> str:
    """The problem as the user sees it, less the folders of absolute paths in its text."""
    message = _ABSOLUTE_FOLDERS.sub("", problem.message)
    return f"{Path(problem.file).name}{problem.location}: {message}"


def run(*args: str) -> tuple[int, str]:
    """``taskqa ARGS`` in-process: exit code and output; a traceback fails the test."""
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def problem_lines(output: str) -> list[str]:
    """The lines of ``output`` that report a problem (``✗ file[record]: ...``)."""
    return [line for line in output.splitlines() if line.startswith("✗")]


def run_ok(*args: str) -> str:
    """``taskqa ARGS`` in-process, which must succeed; its output."""
    code, output = run(*args)
    assert code == 0, output
    return output
