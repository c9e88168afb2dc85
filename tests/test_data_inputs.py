"""``data:NAME`` in the commands that read the public files (procedural, verify, physics, validate)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from data_support import RealData, real_data
from taskqa.cli import app
from taskqa.data import registry, resolve_input
from taskqa.problems import InvalidInputError

runner = CliRunner()
# each test's real files: ../shared/data, else the data cache of the machine (tests/data_support.py)
GRAPHS = real_data("promqa/graphs.json")
CANDIDATE_INPUTS = real_data(
    "promqa/cleaned_error_annotations.json",
    "promqa/graphs.json",
    "captaincook4d/recordings_with_4k_video.json",
)
HUMANS = real_data("clevrer_humans/train.json")
EGOTV_SAMPLE = real_data("egotv/descriptions_sample.tsv")  # a sample only ../shared/data has
CC4D = real_data("captaincook4d/annotation_json", "captaincook4d/task_graphs",
                 "captaincook4d/metadata")  # fmt: skip


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("TASKQA_DATA", str(folder))
    return folder


def _fill(cache: Path, real: RealData, *names: str) -> None:
    """Put the real copies of ``names`` (files or folders) where a download would."""
    for name in names:
        source = real.root / name
        if source.is_dir():
            shutil.copytree(source, cache / name)
        else:
            (cache / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, cache / name)


def _invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_plain_paths_pass_through(cache: Path) -> None:
    assert resolve_input("out/x.json") == Path("out/x.json")
    assert resolve_input(Path("data/graphs.json")) == Path("data/graphs.json")  # no colon


def test_unknown_and_missing_names(cache: Path) -> None:
    with pytest.raises(InvalidInputError) as caught:
        resolve_input("data:promqa/nothing.json")
    assert [str(p) for p in caught.value.problems] == [
        "data:promqa/nothing.json: no such data file or group; `taskqa data list` shows the names"
    ]
    with pytest.raises(InvalidInputError) as caught:
        resolve_input("data:promqa/graphs.json")
    assert [str(p) for p in caught.value.problems] == [
        f"data:promqa/graphs.json: not downloaded in the data cache {cache}; run "
        "`taskqa data download promqa/graphs.json`"
    ]


def test_a_command_names_the_download_it_needs(cache: Path, tmp_path: Path) -> None:
    code, _, err = _invoke(
        "procedural", "candidates", "--annotations", "data:promqa/cleaned_error_annotations.json",
        "--graphs", "data:promqa/graphs.json", "--out", str(tmp_path / "c.json"),
    )  # fmt: skip
    assert code == 1
    assert err.strip().splitlines() == [
        "✗ data:promqa/cleaned_error_annotations.json: not downloaded in the data cache "
        f"{cache}; run `taskqa data download promqa/cleaned_error_annotations.json`"
    ]


@GRAPHS.mark
def test_a_damaged_cached_file_is_refused(cache: Path) -> None:
    _fill(cache, GRAPHS, "promqa/graphs.json")
    with (cache / "promqa/graphs.json").open("a") as stream:
        stream.write(" ")
    with pytest.raises(InvalidInputError) as caught:
        resolve_input("data:promqa/graphs.json")
    assert "not the pinned file in the data cache" in str(caught.value.problems[0])


@CANDIDATE_INPUTS.mark
def test_procedural_candidates_from_the_cache(cache: Path, tmp_path: Path) -> None:
    _fill(
        cache,
        CANDIDATE_INPUTS,
        "promqa/cleaned_error_annotations.json",
        "promqa/graphs.json",
        "captaincook4d/recordings_with_4k_video.json",
    )
    out = tmp_path / "candidates.json"
    code, stdout, err = _invoke(
        "procedural", "candidates", "--annotations", "data:promqa/cleaned_error_annotations.json",
        "--graphs", "data:promqa/graphs.json",
        "--recordings", "data:captaincook4d/recordings_with_4k_video.json", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert stdout.startswith("11781 candidates from 363 recordings")


@HUMANS.mark
def test_physics_commands_from_the_cache(cache: Path, tmp_path: Path) -> None:
    _fill(cache, HUMANS, "clevrer_humans/train.json")
    code, stdout, err = _invoke("physics", "validate", "data:clevrer_humans/train.json")
    assert code == 0, err
    assert str(cache / "clevrer_humans/train.json") in "".join(stdout.split())  # rich wraps
    by_name = _invoke(
        "physics", "real-ceg", "data:clevrer_humans/train.json", "--out", str(tmp_path / "a")
    )
    by_path = _invoke(
        "physics",
        "real-ceg",
        str(HUMANS.root / "clevrer_humans/train.json"),
        "--out",
        str(tmp_path / "b"),
    )
    assert by_name[0] == 0 and by_name == by_path
    assert (tmp_path / "a/real_ceg.md").read_text() == (tmp_path / "b/real_ceg.md").read_text()


@EGOTV_SAMPLE.mark
def test_verify_parse_score_from_the_cache(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The full proscript_data.tsv is not in ../shared/data; its 20% sample stands in for it, so
    # the registry entry is pointed at the sample's size and digest.
    sample = EGOTV_SAMPLE.root / "egotv/descriptions_sample.tsv"
    real = registry.load_registry()
    files = tuple(
        entry.model_copy(
            update={
                "size": sample.stat().st_size,
                "sha256": hashlib.sha256(sample.read_bytes()).hexdigest(),
            }
        )
        if entry.name == "egotv/proscript_data.tsv"
        else entry
        for entry in real.files
    )
    monkeypatch.setattr(registry, "load_registry", lambda: real.model_copy(update={"files": files}))
    (cache / "egotv").mkdir(parents=True)
    shutil.copyfile(sample, cache / "egotv/proscript_data.tsv")
    by_name = _invoke("verify", "parse-score", "data:egotv/proscript_data.tsv")
    by_path = _invoke("verify", "parse-score", str(sample))
    assert by_name[0] == 0, by_name[2]
    assert by_name == by_path
    assert "exact" in by_name[1]


@CC4D.mark
def test_validate_reads_a_cached_folder(cache: Path) -> None:
    code, _, err = _invoke("validate", "data:captaincook4d")
    assert code == 1 and "run `taskqa data download captaincook4d`" in err
    _fill(cache, CC4D, "captaincook4d")
    code, stdout, err = _invoke("validate", "data:captaincook4d")
    assert code == 0, err
    assert f"{cache / 'captaincook4d'}(CaptainCook4D/ProMQA):valid" in "".join(stdout.split())
