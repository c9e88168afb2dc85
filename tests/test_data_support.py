"""The helper that finds the real data for the tests: ../shared/data first, then the data cache
that `taskqa data download` fills, each at the registry's names."""

from __future__ import annotations

from pathlib import Path

import pytest

import data_support
from data_support import needed_files, real_data, real_data_root

GRAPHS = "promqa/graphs.json"


def _put(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("{}")


@pytest.fixture
def places(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, Path]:
    """An empty ../shared/data stand-in and an empty data cache (``$TASKQA_DATA``)."""
    shared, cache = tmp_path / "shared" / "data", tmp_path / "cache"
    monkeypatch.setattr(data_support, "SHARED_DATA", shared)
    monkeypatch.setenv("TASKQA_DATA", str(cache))
    return shared, cache


def test_neither_place_has_the_files(places: tuple[Path, Path]) -> None:
    shared, cache = places
    assert real_data_root(GRAPHS) is None
    found = real_data(GRAPHS)
    assert found.found is None and found.root == shared
    assert found.mark.kwargs["reason"] == (
        f"needs {GRAPHS}: looked in ../shared/data ({shared}) and in the data cache ({cache}); "
        f"`taskqa data download {GRAPHS}` fills the cache"
    )
    assert found.mark.args == (True,)  # skipped


def test_the_cache_is_used_when_the_shared_folder_is_absent(places: tuple[Path, Path]) -> None:
    _, cache = places
    _put(cache, GRAPHS)
    assert real_data_root(GRAPHS) == cache
    found = real_data(GRAPHS)
    assert found.root == cache and found.mark.args == (False,)
    assert (found.root / GRAPHS).read_text() == "{}"


def test_the_shared_folder_comes_first_and_must_hold_everything(
    places: tuple[Path, Path],
) -> None:
    shared, cache = places
    _put(cache, GRAPHS, "clevrer_humans/train.json")
    _put(shared, GRAPHS)
    assert real_data_root(GRAPHS) == shared
    # a file ../shared/data lacks sends the whole lookup to the cache, never half from each
    assert real_data_root(GRAPHS, "clevrer_humans/train.json") == cache
    # a sample only ../shared/data has: the cache cannot stand in, and the reason says so
    sample = real_data("promqa/examples_sample.json")
    assert sample.found is None
    assert sample.reason.endswith("only ../shared/data has the samples")


def test_a_registry_group_needs_each_of_its_files(places: tuple[Path, Path]) -> None:
    _, cache = places
    files = needed_files("captaincook4d/task_graphs")
    assert len(files) == 24 and all(f.startswith("captaincook4d/task_graphs/") for f in files)
    _put(cache, *files[:-1])
    assert real_data_root("captaincook4d/task_graphs") is None  # one graph missing
    _put(cache, files[-1])
    assert real_data_root("captaincook4d/task_graphs") == cache
