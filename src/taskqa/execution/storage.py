"""Object storage for large media: ``render --out s3://bucket/videos`` through fsspec.

A worker renders each file to a local temporary folder exactly as it would render into a local
``--out`` (so the bytes and their sha256 are the same), then uploads it to ``OUT/<relative
path>`` in one put. The driver reads the store only to check that it answers, to merge and
write ``OUT/manifest.json`` (one put: atomic on object stores; a temporary name and a rename on
other fsspec file systems) and, on ``--resume``, to read every journaled object back and compare
its sha256 with the recorded one.

fsspec and its back-ends (s3fs, gcsfs, adlfs) are an optional extra, imported only here and
only when ``--out`` is a URL; they ship no complete type information, so ``Any`` stays in this
module. Credentials and endpoints come from each back-end's usual environment and
configuration (``AWS_*`` variables, ``~/.aws``, ``AWS_ENDPOINT_URL``, ``FSSPEC_S3_*``), on the
driver and on every worker. Whatever the store raises becomes a ``StorageError``: one line that
names the URL, which reaches the driver from a worker as itself.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from taskqa.atomic import sha256_stream
from taskqa.execution.shards import ExecutionError

INSTALL_HINT = "needs fsspec/s3fs: pip install 'taskqa[cloud]'"
# Stores whose single-object put is atomic: an object is there whole or not at all.
OBJECT_STORES = frozenset({"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "oss"})


class StorageError(ExecutionError):
    """The store is missing its fsspec back-end, cannot be reached or refused a request."""

    shard_passthrough = True  # a worker's upload failure is reported as itself, in one line


def split_url(text: str) -> tuple[str, str] | None:
    """``(scheme, rest)`` of an address like ``s3://bucket/key``; None for a local path (a
    Windows drive letter is a path, not a scheme)."""
    scheme, colon, rest = text.partition(":")
    if not colon or len(scheme) < 2 or not scheme.replace("+", "").replace("-", "").isalnum():
        return None
    return scheme.lower(), rest


def join(url: str, name: str) -> str:
    return f"{url.rstrip('/')}/{name}"


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return f"{type(error).__name__}: {text}"


def _filesystem(url: str) -> tuple[Any, str]:
    """fsspec's file system for ``url`` and the path within it."""
    try:
        import fsspec
    except ImportError:
        raise StorageError(f"--out {url} {INSTALL_HINT}") from None
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except ImportError as error:  # fsspec knows the scheme; its back-end is not installed
        if url.lower().startswith(("s3://", "s3a://")):
            raise StorageError(f"--out {url} {INSTALL_HINT}") from None
        raise StorageError(f"--out {url} needs an fsspec back-end: {error}") from None
    except ValueError as error:  # a scheme fsspec does not know
        raise StorageError(f"--out {url}: {_one_line(error)}") from None
    return fs, str(path)


def _failed(url: str, error: Exception) -> StorageError:
    return StorageError(f"object storage {url} failed: {_one_line(error)}")


def check_store(url: str) -> None:
    """Before any work: the back-end is installed and the store answers (a missing manifest
    is fine; a refused connection or missing credentials are not)."""
    fs, path = _filesystem(url)
    try:
        fs.exists(join(path, "manifest.json"))
    except Exception as error:  # botocore, aiohttp and the back-ends raise many kinds
        raise _failed(url, error) from None


def upload(local: Path, url: str) -> None:
    """Put one local file at ``url`` (one request per file: no partial object is visible)."""
    fs, path = _filesystem(url)
    try:
        fs.put_file(str(local), path)
    except Exception as error:  # the store's own errors, whatever the back-end
        raise _failed(url, error) from None


def read_object(url: str) -> bytes | None:
    """The object's bytes, or None if there is no such object."""
    fs, path = _filesystem(url)
    try:
        data = fs.cat_file(path)
    except FileNotFoundError:
        return None
    except Exception as error:  # the store's own errors, whatever the back-end
        raise _failed(url, error) from None
    return bytes(data)


def sha256_url(url: str) -> str | None:
    """The object's sha256, read back in blocks; None if there is no such object."""
    fs, path = _filesystem(url)
    try:
        with fs.open(path, "rb") as stream:
            return sha256_stream(stream)
    except FileNotFoundError:
        return None
    except Exception as error:  # the store's own errors, whatever the back-end
        raise _failed(url, error) from None


def write_object(url: str, data: bytes) -> None:
    """Write a whole object: one put on an object store, else a temporary name and a rename."""
    fs, path = _filesystem(url)
    scheme = (split_url(url) or ("", ""))[0]
    try:
        if scheme in OBJECT_STORES:
            fs.pipe_file(path, data)
        else:
            temporary = f"{path}.{uuid.uuid4().hex}.tmp"
            fs.pipe_file(temporary, data)
            fs.mv(temporary, path)
    except Exception as error:  # the store's own errors, whatever the back-end
        raise _failed(url, error) from None
