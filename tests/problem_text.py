"""Problems as tests compare them: file names without the temporary folders they live in.

Problems keep paths as given (``/tmp/pytest-7/x/recordings.jsonl[2].start``); the tests
written before that compare ``recordings.jsonl[2].start``, which is what they are about.
"""

from __future__ import annotations

import re
from pathlib import Path

from taskqa.problems import Problem

_ABSOLUTE_FOLDERS = re.compile(r"(?<![\w.-])(?:/[^\s/'\"\[]+)+/")  # not relative paths


def by_name(problem: Problem) -> str:
    """The problem as the user sees it, less the folders of absolute paths in its text."""
    message = _ABSOLUTE_FOLDERS.sub("", problem.message)
    return f"{Path(problem.file).name}{problem.location}: {message}"
