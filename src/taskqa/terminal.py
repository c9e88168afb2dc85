"""What every command group prints with: consoles, progress bars and problem lists."""

from __future__ import annotations

from collections.abc import Sequence

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from taskqa.problems import Problem

console = Console()
errors = Console(stderr=True)  # progress and problems go here, so stdout stays clean for pipes
PROBLEM_LIMIT = 200


def progress(transient: bool = False) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=transient,
    )


def print_problems(problems: Sequence[Problem], limit: int = PROBLEM_LIMIT) -> None:
    for problem in problems[:limit]:
        errors.print(f"[red]✗[/red] {problem}", highlight=False, soft_wrap=True)
    if len(problems) > limit:
        errors.print(f"... and {len(problems) - limit} more", highlight=False)


def fail(problems: Sequence[Problem]) -> typer.Exit:
    """Print the problems and give the exit a command raises (status 1)."""
    print_problems(problems)
    return typer.Exit(code=1)
