"""A real S3-compatible server for the object-storage tests: moto's server on 127.0.0.1, on a
free port, with fake credentials, for one test module (s3fs caches its file systems per
process, so the fixture clears that cache when the endpoint comes and goes)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_MAX_ATTEMPTS": "1",  # a refused connection fails at once instead of backing off
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module", name="s3_endpoint")
def s3_endpoint_fixture() -> Iterator[str]:
    """The endpoint URL, set as ``AWS_ENDPOINT_URL`` (with the fake credentials) for the
    module, so that the CLI, its worker processes and Ray workers started later all use it."""
    server_module = pytest.importorskip("moto.server")
    s3fs = pytest.importorskip("s3fs")
    server = server_module.ThreadedMotoServer(
        ip_address="127.0.0.1", port=free_port(), verbose=False
    )
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {**FAKE_CREDENTIALS, "AWS_ENDPOINT_URL": endpoint}.items():
            patch.setenv(name, value)
        s3fs.S3FileSystem.clear_instance_cache()
        try:
            yield endpoint
        finally:
            s3fs.S3FileSystem.clear_instance_cache()
            server.stop()


def new_bucket(name: str) -> object:
    """An empty bucket on the session's server, and the s3fs file system that sees it."""
    import s3fs

    fs = s3fs.S3FileSystem()
    fs.mkdir(name)
    return fs
