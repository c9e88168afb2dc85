"""``taskqa render --out s3://...``: workers upload the videos to object storage (a moto S3
server on 127.0.0.1), byte for byte what a local ``--out`` gets, the manifest goes there too,
``--resume`` redoes only shards whose objects are missing or changed, and a missing extra or a
refused endpoint is one line."""

from __future__ import annotations

import builtins
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from execution_support import (
    TASKQA,
    Interrupt,
    recorded_shards,
    stop_after,
    tiny_corpus_fixture,  # noqa: F401  (the tests request it as tiny_corpus)
    tree_bytes,
)
from storage_support import (
    FAKE_CREDENTIALS,
    free_port,
    new_bucket,
    s3_endpoint_fixture,  # noqa: F401  (the tests request it as s3_endpoint)
)
from taskqa.cli import app

SMALL = ["--limit", "2", "--size", "64", "--fps", "1"]


def _taskqa(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def _objects(fs: Any, prefix: str) -> dict[str, bytes]:
    return {name[len(prefix) + 1 :]: fs.cat_file(name) for name in sorted(fs.find(prefix))}


def test_render_out_takes_a_path_a_file_url_or_an_object_storage_url() -> None:
    from taskqa.household.cli import render_target

    assert render_target(None) is None
    assert render_target(Path("out/videos")) == Path("out/videos")
    assert render_target(Path("C:/videos")) == Path("C:/videos")
    assert render_target(Path("file:///shared/videos")) == Path("/shared/videos")
    assert render_target(Path("s3://bucket/videos")) == "s3://bucket/videos"
    assert render_target(Path("gs://bucket/a/b/")) == "gs://bucket/a/b"


def test_render_to_s3_is_byte_identical_to_a_local_out(
    s3_endpoint: str, tmp_path: Path, tiny_corpus: Path
) -> None:
    fs = new_bucket("identical")
    for name in ("local", "remote"):
        shutil.copytree(tiny_corpus, tmp_path / name)
    _taskqa("render", tmp_path / "local", *SMALL, "--workers", "2")
    url = "s3://identical/videos"
    _taskqa("render", tmp_path / "remote", *SMALL, "--out", url, "--workers", "2")
    local = {
        name.removeprefix("videos/"): data
        for name, data in tree_bytes(tmp_path / "local").items()
        if name.startswith("videos/")
    }
    uploaded = _objects(fs, "identical/videos")
    assert uploaded == local and len([n for n in local if n.endswith(".mp4")]) >= 4
    manifest = json.loads(uploaded["manifest.json"])["files"]
    assert set(manifest) == set(local) - {"manifest.json"}
    # the corpus points at the uploaded objects by URL; nothing else in it changed
    remote_corpus = tree_bytes(tmp_path / "remote")
    assert not any(name.startswith("videos/") for name in remote_corpus)
    assert not any(p.name.endswith(".shards") for p in (tmp_path / "remote").iterdir())
    lines = (tmp_path / "remote" / "recordings.jsonl").read_bytes()
    expected = (tmp_path / "local" / "recordings.jsonl").read_bytes()
    assert lines == expected.replace(b'"uri":"videos/', f'"uri":"{url}/'.encode())
    refs = [v["uri"] for v in json.loads(lines.splitlines()[0])["videos"]]
    assert refs and all(r.startswith(f"{url}/") for r in refs)
    # validate cannot reach object storage offline: it says so, and neither passes nor fails them
    result = CliRunner().invoke(app, ["validate", str(tmp_path / "remote")])
    assert result.exit_code == 0, result.output
    assert f"video reference(s) at URLs (such as {refs[0]}) not checked" in result.output


def test_render_on_ray_uploads_the_same_objects(
    s3_endpoint: str, tmp_path: Path, tiny_corpus: Path
) -> None:
    """A private Ray instance started by the command: its workers upload from their own
    processes, with the endpoint and credentials they inherit from the driver's environment."""
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        ray.shutdown()  # an instance started before the endpoint was set: its workers lack it
    fs = new_bucket("on-ray")
    for name in ("local", "ray"):
        shutil.copytree(tiny_corpus, tmp_path / name)
    _taskqa("render", tmp_path / "local", *SMALL, "--out", "s3://on-ray/local")
    ray_args = ["--executor", "ray", "--workers", "2"]
    _taskqa("render", tmp_path / "ray", *SMALL, "--out", "s3://on-ray/ray", *ray_args)
    local = _objects(fs, "on-ray/local")
    assert local == _objects(fs, "on-ray/ray") and "manifest.json" in local
    recordings = (tmp_path / "local" / "recordings.jsonl").read_bytes()
    assert (
        recordings.replace(b"s3://on-ray/local/", b"s3://on-ray/ray/")
        == (tmp_path / "ray" / "recordings.jsonl").read_bytes()
    )


def test_resume_after_an_interrupted_upload_redoes_only_missing_or_changed_objects(
    s3_endpoint: str, tmp_path: Path, tiny_corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from taskqa.execution import Execution
    from taskqa.household.cli import journal_for
    from taskqa.household.corpus_videos import render_corpus
    from taskqa.household.options import RenderOptions

    fs = new_bucket("resumed")
    small = RenderOptions(fps=1.0, width=64, height=64)
    for name in ("fresh", "resumed"):
        shutil.copytree(tiny_corpus, tmp_path / name)
    render_corpus(tmp_path / "fresh", options=small, limit=3)
    corpus, url = tmp_path / "resumed", "s3://resumed/videos"
    journal = journal_for(corpus, url)
    with pytest.raises(Interrupt):
        render_corpus(corpus, url, small, limit=3, on_progress=stop_after(2), journal=journal)
    assert recorded_shards(journal) == 2 and not fs.exists("resumed/videos/manifest.json")
    # one journaled shard's object changed since: that shard, and the one never done, run again
    second = sorted(n for n in fs.find("resumed/videos") if n.endswith("third.mp4"))[1]
    fs.pipe_file(second, b"not the video")
    resumed = Execution(workers=2, resume=True)
    render_corpus(corpus, url, small, limit=3, execution=resumed, journal=journal)
    assert "resuming: 1 of 3 shards" in capsys.readouterr().err
    fresh = {
        name.removeprefix("videos/"): data
        for name, data in tree_bytes(tmp_path / "fresh").items()
        if name.startswith("videos/")
    }
    assert _objects(fs, "resumed/videos") == fresh and not journal.exists()


def test_object_storage_without_the_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tiny_corpus: Path
) -> None:
    real_import = builtins.__import__

    def no_fsspec(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] in ("fsspec", "s3fs"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_fsspec)
    corpus = tmp_path / "corpus"
    shutil.copytree(tiny_corpus, corpus)
    result = CliRunner().invoke(app, ["render", str(corpus), *SMALL, "--out", "s3://b/videos"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == ["taskqa: --out s3://b/videos needs fsspec/s3fs: pip install 'taskqa[cloud]'"]
    assert tree_bytes(corpus) == tree_bytes(tiny_corpus)


def test_a_refused_endpoint_is_one_line_naming_the_url(tmp_path: Path, tiny_corpus: Path) -> None:
    pytest.importorskip("s3fs")
    corpus = tmp_path / "corpus"
    shutil.copytree(tiny_corpus, corpus)
    closed = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    env = {**os.environ, **FAKE_CREDENTIALS, "AWS_ENDPOINT_URL": closed}
    result = subprocess.run(
        [*TASKQA, "render", str(corpus), *SMALL, "--out", "s3://nowhere/videos"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("taskqa: object storage s3://nowhere/videos failed:")
    assert closed in lines[0] and "Traceback" not in result.stderr
    assert tree_bytes(corpus) == tree_bytes(tiny_corpus)
