"""``data:NAME`` wherever a command takes an input file: the cached copy of a registry entry.

Kept free of heavy imports: commands whose start-up time matters (``procedural candidates``)
attach :func:`data_paths` to their path options, and the registry is read only when a value
actually starts with ``data:``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from taskqa.problems import InvalidInputError, Problem

PREFIX = "data:"


def resolve_input(value: str | Path) -> Path:
    """``value`` as a path; ``data:NAME`` is the cached file (or group folder) NAME.

    Raises InvalidInputError (one problem, naming the value) when NAME is not in the registry,
    or not downloaded, or its cached copy is not the pinned file; the message gives the exact
    ``taskqa data download`` command.
    """
    text = str(value)
    if not text.startswith(PREFIX):
        return Path(value)
    return cached_input(text.removeprefix(PREFIX), shown=text)


def cached_input(name: str, root: Path | None = None, shown: str | None = None) -> Path:
    """The cached copy of entry or group ``name`` in ``root`` (default: the cache folder)."""
    from taskqa.data import registry
    from taskqa.data.cache import State, cache_dir, verified_state
    from taskqa.data.fetch import download_command

    name = name.strip("/")
    shown = shown or name
    entries = registry.load_registry().select(name)
    if not entries:
        message = "no such data file or group; `taskqa data list` shows the names"
        raise InvalidInputError([Problem(shown, "", message)])
    folder = cache_dir(root)
    states = {verified_state(folder, entry) for entry in entries}
    if states != {State.CACHED}:
        what = "not the pinned file" if State.CORRUPT in states else "not downloaded"
        message = f"{what} in the data cache {folder}; run `{download_command(name, root)}`"
        raise InvalidInputError([Problem(shown, "", message)])
    return folder / name


def data_paths(value: Any) -> Any:
    """Typer callback for path options and arguments (one, several, or None): ``data:NAME``
    becomes the cached file. A name that cannot be resolved raises InvalidInputError, which the
    command line prints as one line (``taskqa.terminal.GuardedTyper``)."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return [resolve_input(item) for item in value]
    return resolve_input(value)


def input_paths(value: Any) -> Any:
    """:func:`data_paths` for inputs that must exist: each missing one is a problem that names
    the path as given (``/no/such: not found``)."""
    resolved = data_paths(value)
    paths = resolved if isinstance(resolved, list) else [resolved]
    missing = [Problem(str(path), "", "not found") for path in paths if path and not path.exists()]
    if missing:
        raise InvalidInputError(missing)
    return resolved
