"""Where the tests find the real data files, and a loopback HTTP server for the `taskqa data`
tests: it serves fixture copies at the URLs the registry gives them, and can corrupt a file or
drop the connection half-way through one.

Real data is looked for in two places, in this order: ``../shared/data`` (byte copies of the
public files, beside the project), then the data cache that `taskqa data download` fills
(``$TASKQA_DATA``, else the user cache folder; ``taskqa.data.cache``). Both hold a file at
the name the registry gives it (``captaincook4d/annotation_json/error_annotations.json``), so a
test reads the same relative paths from either. ``real_data(*needed)`` says which of the two
holds every file a test needs and gives the mark that skips the test when neither does.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from taskqa.data.cache import cache_dir
from taskqa.data.registry import load_registry

FIXTURES = Path(__file__).parent / "fixtures" / "data"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def data_cache() -> Path:
    """The folder `taskqa data download` fills: ``$TASKQA_DATA``, else the user cache folder."""
    return cache_dir()


def needed_files(*needed: str) -> list[str]:
    """The relative paths of ``needed``: a registry group (``captaincook4d``) stands for each of
    its files, anything else (a registry file, or a sample only ../shared/data has) for itself."""
    registry = load_registry()
    files: list[str] = []
    for name in needed:
        group = registry.is_group(name)
        for path in [entry.name for entry in registry.select(name)] if group else [name]:
            if path not in files:
                files.append(path)
    return files


def real_data_root(*needed: str) -> Path | None:
    """../shared/data if it holds every file ``needed`` names, else the data cache if that does,
    else None. Read ``SHARED_DATA`` and ``$TASKQA_DATA`` when called."""
    files = needed_files(*needed)
    for root in (SHARED_DATA, data_cache()):
        if root.is_dir() and all((root / path).exists() for path in files):
            return root
    return None


@dataclass(frozen=True)
class RealData:
    """The real data files a test needs: where they are, and the mark that skips the test when
    they are in neither place."""

    needed: tuple[str, ...]
    found: Path | None

    @property
    def root(self) -> Path:
        """The folder holding the files (../shared/data when none does: the test is skipped)."""
        return self.found or SHARED_DATA

    @property
    def reason(self) -> str:
        registry = load_registry()
        names = " ".join(self.needed)
        where = f"looked in ../shared/data ({SHARED_DATA}) and in the data cache ({data_cache()})"
        downloadable = all(registry.select(name) for name in self.needed)
        fix = (
            f"; `taskqa data download {names}` fills the cache"
            if downloadable
            else "; only ../shared/data has the samples"
        )
        return f"needs {', '.join(self.needed)}: {where}{fix}"

    @property
    def mark(self) -> pytest.MarkDecorator:
        return pytest.mark.skipif(self.found is None, reason=self.reason)


def real_data(*needed: str) -> RealData:
    """Where the real files ``needed`` are (see ``real_data_root``), decided once, at import."""
    return RealData(tuple(needed), real_data_root(*needed))


class DataServer:
    """Serves ``files`` (URL path -> bytes) on 127.0.0.1; ``corrupt`` and ``drop`` hold paths."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.corrupt: set[str] = set()
        self.drop: set[str] = set()
        self.requests: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def url_path(self, name: str) -> str:
        """The path the registry's URL for entry ``name`` has on this server."""
        entry = next(e for e in load_registry().files if e.name == name)
        return urlsplit(entry.url(load_registry().sources, self.base_url)).path

    def serve(self, name: str, content: bytes) -> None:
        self.files[self.url_path(name)] = content

    def serve_copies(self, folder: Path) -> list[str]:
        """Serve every registry file that ``folder`` holds a copy of (by name); their names."""
        served = []
        for entry in load_registry().files:
            copy = folder / entry.name
            if copy.is_file():
                self.serve(entry.name, copy.read_bytes())
                served.append(entry.name)
        return served

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server.requests.append(self.path)
                content = server.files.get(self.path)
                if content is None:
                    self.send_error(404)
                    return
                if self.path in server.corrupt:  # same length, one byte changed
                    content = content[:-1] + bytes([content[-1] ^ 0x01])
                self.send_response(200)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                if self.path in server.drop:  # half the body, then the socket closes
                    self.wfile.write(content[: len(content) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(content)

            def log_message(self, format: str, *args: object) -> None:
                pass  # keep the test output clean

        return Handler

    def __enter__(self) -> DataServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def data_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[DataServer]:
    """A running server, with TASKQA_DATA_URL pointing at it and an empty cache in TASKQA_DATA."""
    with DataServer() as server:
        monkeypatch.setenv("TASKQA_DATA_URL", server.base_url)
        monkeypatch.setenv("TASKQA_DATA", str(tmp_path / "cache"))
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")  # a proxy must never see loopback requests
        yield server
