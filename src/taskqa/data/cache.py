"""Where downloaded data lives, and whether a cached copy is the pinned file.

The cache is ``<user cache dir>/taskqa`` by the platform's convention (``~/.cache/taskqa`` on
Linux), ``$TASKQA_DATA`` when set, or a folder given on the command line (``--dir``); an entry
lies at ``<cache>/<name>``.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path

from taskqa.atomic import sha256_file
from taskqa.data.registry import Entry

DIR_VARIABLE = "TASKQA_DATA"
URL_VARIABLE = "TASKQA_DATA_URL"


def cache_dir(override: Path | None = None) -> Path:
    """The cache folder: ``override``, else ``$TASKQA_DATA``, else the user cache folder."""
    if override is not None:
        return override.expanduser()
    configured = os.environ.get(DIR_VARIABLE)
    if configured:
        return Path(configured).expanduser()
    import platformdirs  # only here: most commands never look at the cache

    return Path(platformdirs.user_cache_dir("taskqa", appauthor=False))


class State(StrEnum):
    CACHED = "cached"  # present and, where pinned, its sha256 matches
    MISSING = "missing"
    CORRUPT = "corrupt"  # present but not the pinned bytes


def cached_path(root: Path, entry: Entry) -> Path:
    return root / entry.name


def quick_state(root: Path, entry: Entry) -> State:
    """Present and of the pinned size (no digest: cheap enough for listing every entry)."""
    path = cached_path(root, entry)
    if not path.is_file():
        return State.MISSING
    if entry.size is not None and path.stat().st_size != entry.size:
        return State.CORRUPT
    return State.CACHED


def verified_state(root: Path, entry: Entry) -> State:
    """Present and, where a sha256 is pinned, equal to it."""
    state = quick_state(root, entry)
    pinned = entry.sha256
    if state is State.CACHED and pinned and sha256_file(cached_path(root, entry)) != pinned:
        return State.CORRUPT
    return state
