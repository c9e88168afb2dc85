"""``taskqa data list | info | path | download`` against fixture copies on a loopback server."""

from __future__ import annotations

import hashlib
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

import data_support
from data_support import FIXTURES, DataServer
from taskqa.cli import app

data_server = data_support.data_server  # the loopback server fixture

runner = CliRunner()
CATEGORIES = "captaincook4d/annotation_json/error_category_idx.json"
GRAPH = "captaincook4d/task_graphs/spicedhotchocolate.json"
LICENCE = "licence: MIT (the repository's LICENSE file"
COMMIT = "a8a920a3293c4db27099a20ddbe3a3a9be1283e3"  # of CaptainCook4D/annotations


def _data(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["data", *args])
    return result.exit_code, result.stdout, result.stderr


def _cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def _files(folder: Path) -> list[str]:
    """Every file under ``folder`` (temporary ones included), relative to it."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_download_verifies_and_prints_the_licence_only_the_first_time(
    data_server: DataServer, tmp_path: Path
) -> None:
    data_server.serve_copies(FIXTURES)
    code, out, _ = _data("download", CATEGORIES, GRAPH)
    assert code == 0
    assert f"downloaded {CATEGORIES} (196 bytes, sha256 verified)" in out
    assert f"downloaded {GRAPH} (585 bytes, sha256 verified)" in out
    assert out.count(LICENCE) == 1  # once per source, not once per file
    cached = _cache(tmp_path) / CATEGORIES
    assert cached.read_bytes() == (FIXTURES / CATEGORIES).read_bytes()
    requests = len(data_server.requests)

    code, out, _ = _data("download", CATEGORIES)
    assert code == 0
    assert "licence" not in out
    assert "1 file in" in out and "0 downloaded, 0 made, 1 cached" in out
    assert len(data_server.requests) == requests  # a cache hit asks nothing of the server


def test_list_info_and_path(data_server: DataServer, tmp_path: Path) -> None:
    data_server.serve_copies(FIXTURES)
    code, out, _ = _data("list")
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"cache: {_cache(tmp_path)}"
    assert len(lines) == 1 + 50  # 48 pinned files and 2 derived ones
    assert all(line.startswith("missing") for line in lines[1:])
    assert any(line.split()[1:3] == ["promqa/examples.json", "2,755,248"] for line in lines)

    code, _, err = _data("path", CATEGORIES)
    assert code == 1
    assert err.strip().splitlines() == [
        f"✗ {CATEGORIES}: not downloaded in the data cache {_cache(tmp_path)}; run "
        f"`taskqa data download {CATEGORIES}`"
    ]
    assert _data("download", CATEGORIES)[0] == 0
    code, out, _ = _data("path", CATEGORIES)
    assert (code, out.strip()) == (0, str(_cache(tmp_path) / CATEGORIES))
    assert _data("path")[1].strip() == str(_cache(tmp_path))

    code, out, _ = _data("list")
    assert f"cached   {CATEGORIES}" in out

    code, out, _ = _data("info", CATEGORIES)
    commit = "a8a920a3293c4db27099a20ddbe3a3a9be1283e3"
    assert code == 0
    assert f"source:  CaptainCook4D/annotations @ {commit}" in out
    assert (
        f"url:     {data_server.base_url}/CaptainCook4D/annotations/{commit}/annotation_json/error_category_idx.json"
        in out
    )
    assert "sha256:  795d967f0955ad0ce7557688367c589b85e96dc927a01d4a1445ccd61556ce99" in out
    assert "cached; sha256 verified" in out
    assert "licence: MIT" in out


def test_a_failed_checksum_deletes_the_download(data_server: DataServer, tmp_path: Path) -> None:
    data_server.serve_copies(FIXTURES)
    data_server.corrupt.add(data_server.url_path(GRAPH))
    code, out, err = _data("download", GRAPH)
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"✗ {GRAPH}: the file downloaded from {data_server.base_url}/")
    assert "does not have the pinned sha256 06fdf99acfb85378" in lines[0]
    assert "the download was deleted and nothing was kept in the cache" in lines[0]
    assert "licence" not in out
    assert _files(_cache(tmp_path)) == []


def test_a_dropped_connection_leaves_no_partial_file(
    data_server: DataServer, tmp_path: Path
) -> None:
    data_server.serve_copies(FIXTURES)
    links = "captaincook4d-downloader/metadata/download_links.json"  # 45,820 bytes: several chunks
    data_server.drop.add(data_server.url_path(links))
    code, _, err = _data("download", links)
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"✗ {links}: the connection to {data_server.base_url}/")
    assert "broke after about" in lines[0] and "of 45,820 bytes" in lines[0]
    assert "nothing was kept in the cache" in lines[0]
    assert _files(_cache(tmp_path)) == []


def test_a_missing_file_on_the_server(data_server: DataServer, tmp_path: Path) -> None:
    code, _, err = _data("download", GRAPH)
    assert code == 1
    assert err.strip().endswith("answered HTTP 404 Not Found; nothing was downloaded")
    assert _files(_cache(tmp_path)) == []


def test_offline_uses_only_the_cache(data_server: DataServer, tmp_path: Path) -> None:
    data_server.serve_copies(FIXTURES)
    code, _, err = _data("download", GRAPH, "--offline")
    assert code == 1
    assert err.strip() == (
        f"✗ {GRAPH}: not in the cache {_cache(tmp_path)} (--offline uses only the cache); run "
        f"`taskqa data download {GRAPH}` where the network is reachable"
    )
    assert data_server.requests == []
    assert _data("download", GRAPH)[0] == 0
    requests = len(data_server.requests)
    code, out, _ = _data("download", GRAPH, "--offline")
    assert code == 0 and "0 downloaded, 0 made, 1 cached" in out
    assert len(data_server.requests) == requests


def test_a_damaged_cached_copy(data_server: DataServer, tmp_path: Path) -> None:
    data_server.serve_copies(FIXTURES)
    assert _data("download", GRAPH)[0] == 0
    cached = _cache(tmp_path) / GRAPH
    cached.write_bytes(cached.read_bytes().replace(b"START", b"BEGIN"))
    code, _, err = _data("download", GRAPH, "--offline")
    assert code == 1
    assert "the cached copy in" in err and "is not the pinned file" in err
    assert "it was deleted; run `taskqa data download" in err
    assert not cached.exists()

    cached.write_bytes(b"damaged")
    code, out, err = _data("download", GRAPH)
    assert code == 0
    assert "the cached copy was not the pinned file; deleted and downloaded again" in err
    assert hashlib.sha256(cached.read_bytes()).hexdigest().startswith("06fdf99acfb85378")


def test_dir_overrides_the_environment(data_server: DataServer, tmp_path: Path) -> None:
    data_server.serve_copies(FIXTURES)
    elsewhere = tmp_path / "elsewhere"
    code, out, _ = _data("download", CATEGORIES, "--dir", str(elsewhere))
    assert code == 0 and f"1 file in {elsewhere}" in out
    assert (elsewhere / CATEGORIES).is_file()
    assert not _cache(tmp_path).exists()
    code, _, err = _data("path", GRAPH, "--dir", str(elsewhere))
    assert code == 1
    assert f"run `taskqa data download {GRAPH} --dir {elsewhere}`" in err


def test_unknown_names(data_server: DataServer) -> None:
    for args in (["download", "promqa/nothing.json"], ["info", "nothing"], ["path", "nothing"]):
        code, _, err = _data(*args)
        assert code == 1
        assert "no such data file or group; `taskqa data list` shows the names" in err
    code, _, err = _data("download")
    assert code == 1 and "give NAME... or --all" in err
    code, _, err = _data("derive", GRAPH)
    assert code == 1 and f"{GRAPH} are downloaded, not derived" in err


def test_an_unreachable_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, data_server: DataServer
) -> None:
    with socket.socket() as probe:  # a loopback port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("TASKQA_DATA_URL", f"http://127.0.0.1:{port}")
    code, out, err = _data("download", GRAPH)
    assert code == 1
    url = f"http://127.0.0.1:{port}/CaptainCook4D/annotations/"
    assert err.strip().splitlines() == [
        f"✗ {GRAPH}: download failed (connection refused: {url}{COMMIT}/task_graphs/"
        "spicedhotchocolate.json)"
    ]
    assert out.strip() == "0 of 1 files downloaded, 1 failed; rerun when online or see docs/data.md"
    assert _files(_cache(tmp_path)) == []


def _closed_port() -> int:
    with socket.socket() as probe:  # a loopback port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_download_all_without_a_network(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, data_server: DataServer
) -> None:
    """One short line per file that failed, each once, then what came of it all."""
    port = _closed_port()
    monkeypatch.setenv("TASKQA_DATA_URL", f"http://127.0.0.1:{port}")
    code, out, err = _data("download", "--all")
    assert code == 1
    lines = err.strip().splitlines()
    names = [line.split(":")[0].removeprefix("✗ ") for line in lines]
    assert all(line.startswith("✗ ") for line in lines), lines
    assert len(names) == len(set(names)) == 50  # 48 pinned files, 2 derived ones, each once
    first = f"http://127.0.0.1:{port}/CaptainCook4D/annotations/{COMMIT}/LICENSE"
    assert lines[0] == f"✗ captaincook4d/LICENSE: download failed (connection refused: {first})"
    assert lines[1].endswith(
        f"download failed (not tried: 127.0.0.1:{port} was not reachable, connection refused)"
    )
    assert "✗ promqa/cleaned_error_annotations.json: not made: its inputs " in err
    assert all(len(line) < 250 for line in lines)
    assert out.strip() == (
        "0 of 50 files downloaded, 50 failed; rerun when online or see docs/data.md"
    )
    assert _files(_cache(tmp_path)) == []


def test_a_partial_download_counts_what_came(data_server: DataServer, tmp_path: Path) -> None:
    data_server.serve(CATEGORIES, (FIXTURES / CATEGORIES).read_bytes())  # the rest answer 404
    code, out, err = _data("download", "captaincook4d/annotation_json")
    assert code == 1
    assert f"downloaded {CATEGORIES} (196 bytes, sha256 verified)" in out
    assert out.strip().splitlines()[-1] == "1 of 7 files downloaded, 6 failed; see docs/data.md"
    assert len(err.strip().splitlines()) == 6
    assert "answered HTTP 404 Not Found; nothing was downloaded" in err
