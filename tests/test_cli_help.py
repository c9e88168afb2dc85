"""Every command's --help reads as a person would write it: arguments in capitals, flags without
a value, no Python types (typer 0.27 to 0.29 showed all three wrong; pyproject pins it below)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from taskqa.cli import app


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    # groups have subcommands (typer's own click copy, so no isinstance on click.Group)
    for name, child in sorted(getattr(command, "commands", {}).items()):
        yield from _commands(child, (*path, name))


ROOT = typer.main.get_command(app)
COMMANDS = [path for path in _commands(ROOT) if path]


def test_every_command_group_is_walked() -> None:
    names = {" ".join(path) for path in COMMANDS}
    assert {"build", "simulate", "render videos", "procedural import-released"} <= names


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path))
def test_help_shows_no_internal_types(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = result.output
    assert "<bool>" not in text
    assert not re.search(r"<(list|dict|tuple)\[", text), text
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert not re.search(r"(?<!:)\{", usage), usage  # NAME:{a|b} lists a choice; {name} is wrong
    assert not re.search(r"\[OPTIONS\].* [a-z_]+( |$)", usage.split("Usage:")[1]), usage
