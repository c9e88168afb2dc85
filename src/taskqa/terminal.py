"""What every command group prints with: consoles, progress bars and problem lists."""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.filesize import decimal
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
from typer.core import TyperCommand, TyperGroup
from typer.models import CommandFunctionType

from taskqa.problems import InvalidInputError, Problem, shorten

console = Console(soft_wrap=True)  # a result line stays one line in a log, however long
# Progress and problems go to stderr, so stdout stays clean for pipes; a message is one line
# however narrow the terminal (soft wrap), so that it can be grepped and copied whole.
errors = Console(stderr=True, soft_wrap=True)
PROBLEM_LIMIT = 200


def progress(transient: bool = False, unit: str = "items") -> Progress:
    """A progress bar on stderr; its rate reads ``12.5 recordings/s`` (``unit`` per second).

    A task may name its own unit (``bars.add_task("rendering", total=n, unit="videos")``);
    ``unit="bytes"`` shows a transfer rate (``1.2 MB/s``).
    """
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(unit),
        TimeElapsedColumn(),
        console=errors,
        transient=transient,
        # a bar that vanishes when done leaves nothing but a blank line in a log or a pipe
        disable=transient and not errors.is_terminal,
    )


class RateColumn(ProgressColumn):
    """Throughput: units done per second since the task started.

    Averaged over the whole run rather than rich's recent samples: work that finishes in bursts
    (several workers handing back their recordings at once) would otherwise read as thousands
    per second.
    """

    def __init__(self, unit: str = "items") -> None:
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        elapsed = task.finished_time if task.finished else task.elapsed
        if not elapsed or not task.completed:
            return Text("")
        unit = str(task.fields.get("unit", self.unit))
        return Text(format_rate(task.completed / elapsed, unit), style="progress.data.speed")


def format_rate(speed: float, unit: str) -> str:
    """``3,277 frames/s``, ``12.5 recordings/s``, ``0.25 videos/s``; bytes as ``1.2 MB/s``."""
    if unit == "bytes":
        return f"{decimal(int(speed))}/s"
    if speed >= 100:
        number = f"{speed:,.0f}"
    elif speed >= 1:
        number = f"{speed:.1f}"
    else:
        number = f"{speed:.2g}"
    return f"{number} {unit}/s"


def print_problems(problems: Sequence[Problem], limit: int = PROBLEM_LIMIT) -> None:
    for problem in problems[:limit]:
        # escaped: a problem's text is data ("taskqa[studio]" is not a style to apply)
        errors.print(f"[red]✗[/red] {escape(str(problem))}", highlight=False, soft_wrap=True)
    if len(problems) > limit:
        errors.print(f"... and {len(problems) - limit} more", highlight=False)


@contextmanager
def problems_reported() -> Iterator[None]:
    """Bad input ends a command here: one line per problem on stderr, exit status 1."""
    try:
        yield
    except InvalidInputError as error:
        print_problems(error.problems)
        raise typer.Exit(code=1) from None


class _Guarded:
    """Making a context (parameter callbacks) and invoking (the body) report InvalidInputError
    through :func:`problems_reported`; mixed into a click command or group."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        with problems_reported():
            return super().make_context(*args, **kwargs)  # type: ignore[misc]

    def invoke(self, ctx: Any) -> Any:
        with problems_reported():
            return super().invoke(ctx)  # type: ignore[misc]


class GuardedCommand(_Guarded, TyperCommand):
    """A command whose InvalidInputError, from its parameters' callbacks or its body, is
    printed by :func:`problems_reported`."""


class GuardedGroup(_Guarded, TyperGroup):
    """A command group that guards its own callback and every command below it."""


class GuardedTyper(typer.Typer):
    """A Typer app that never ends in a raw traceback.

    Bad input is reported in one place: a command (or a parameter callback) raises
    InvalidInputError and the app prints one line per problem and exits with status 1 — for
    the commands of sub-apps too, and under typer's CliRunner, which calls the click command
    rather than this object. Anything else that escapes is a bug in taskqa: the user gets one
    line saying so and where the full traceback was written, which is what a bug report
    needs, instead of 50 lines on the terminal.
    """

    def __init__(self, *, cls: type[TyperGroup] | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("pretty_exceptions_enable", False)
        super().__init__(cls=cls or GuardedGroup, **kwargs)

    def command(
        self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any
    ) -> Callable[[CommandFunctionType], CommandFunctionType]:
        return super().command(name, cls=cls or GuardedCommand, **kwargs)

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
