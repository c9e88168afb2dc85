"""What every command group prints with: consoles, progress bars and problem lists."""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from taskqa.problems import Problem, shorten

console = Console(soft_wrap=True)  # a result line stays one line in a log, however long
# Progress and problems go to stderr, so stdout stays clean for pipes; a message is one line
# however narrow the terminal (soft wrap), so that it can be grepped and copied whole.
errors = Console(stderr=True, soft_wrap=True)
PROBLEM_LIMIT = 200


def progress(transient: bool = False) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=transient,
    )


class RateColumn(ProgressColumn):
    """Throughput: units done per second (shards, recordings, episodes) over recent progress."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.1f}/s", style="progress.data.speed")


def print_problems(problems: Sequence[Problem], limit: int = PROBLEM_LIMIT) -> None:
    for problem in problems[:limit]:
        # escaped: a problem's text is data ("taskqa[studio]" is not a style to apply)
        errors.print(f"[red]✗[/red] {escape(str(problem))}", highlight=False, soft_wrap=True)
    if len(problems) > limit:
        errors.print(f"... and {len(problems) - limit} more", highlight=False)


def fail(problems: Sequence[Problem]) -> typer.Exit:
    """Print the problems and give the exit a command raises (status 1)."""
    print_problems(problems)
    return typer.Exit(code=1)


class GuardedTyper(typer.Typer):
    """A Typer app that never ends in a raw traceback.

    Bad input is every command's own business (one line per problem); anything that still
    escapes is a bug in taskqa. Then the user gets one line saying so and where the full
    traceback was written, which is what a bug report needs, instead of 50 lines on the terminal.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except Exception as error:  # the last line of defence, by design
            report = write_crash_report()
            errors.print(
                f"taskqa: internal error ({type(error).__name__}: {shorten(str(error))}); "
                f"the full traceback is in {report}",
                highlight=False,
                markup=False,
            )
            raise SystemExit(INTERNAL_ERROR) from None


INTERNAL_ERROR = 70  # EX_SOFTWARE of sysexits.h: distinct from bad input (1) and usage (2)


def write_crash_report() -> Path:
    """Write the exception being handled, with the command line, to a new temporary file."""
    descriptor, name = tempfile.mkstemp(prefix="taskqa-error-", suffix=".txt")
    with os.fdopen(descriptor, "w", encoding="utf-8", errors="backslashreplace") as stream:
        stream.write(f"command: {' '.join(sys.argv)}\n\n")
        stream.write(traceback.format_exc())
    return Path(name)
