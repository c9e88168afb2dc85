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


def _bracketed(text: str) -> list[str]:
    """``[cloud]`` and the like as a reader should see them (rich's ``\\[`` escape undone)."""
    return re.findall(r"\[[\w.-]+\]", text.replace("\\[", "["))


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path))
def test_help_keeps_its_brackets(path: tuple[str, ...]) -> None:
    """Rich reads ``[cloud]`` as a style and drops it: `pip install 'taskqa'` installs nothing."""
    command: Any = ROOT
    for name in path:
        command = command.commands[name]
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "250"})
    text = result.output
    assert "'taskqa'" not in text, text
    written = [command.help or "", *(getattr(p, "help", None) or "" for p in command.params)]
    for token in (t for help_text in written for t in _bracketed(help_text)):
        assert token in text, f"{token} vanished from `taskqa {' '.join(path)} --help`"


def test_render_videos_help_names_the_cloud_extra() -> None:
    text = CliRunner().invoke(app, ["render", "videos", "--help"], env={"COLUMNS": "250"}).output
    assert "pip install 'taskqa[cloud]'" in text


def test_render_help_shows_the_options_of_render_corpus() -> None:
    """`taskqa render CORPUS --limit 3 ...` is the README's command: its help shows them."""
    result = CliRunner().invoke(app, ["render", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for option in ("--limit", "--fps", "--masks", "--size", "--views", "--out", "--recordings"):
        assert option in result.output, option
    assert "videos" in result.output and "sheet" in result.output  # and the commands


def test_evaluate_help_states_the_predictions_format() -> None:
    text = CliRunner().invoke(app, ["evaluate", "--help"], env={"COLUMNS": "200"}).output
    assert "JSON Lines" in text
    assert '"question_id"' in text and '"prediction"' in text
    assert "--allow-partial" in text


def test_repeated_options_say_how_to_repeat() -> None:
    text = CliRunner().invoke(app, ["render", "videos", "--help"], env={"COLUMNS": "250"}).output
    assert "--recordings A --recordings B" in " ".join(text.split())
