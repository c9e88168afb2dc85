"""Getting registry entries into the cache: pinned files through pooch, derived files by recipe.

pooch streams a download into a temporary file beside its target, checks the sha256 and only
then renames it into place, so a failed checksum or a broken connection never leaves a file in
the cache. Every failure becomes one :class:`~taskqa.problems.Problem` naming the entry.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from taskqa.atomic import sha256_file
from taskqa.data.cache import URL_VARIABLE, State, cached_path, verified_state
from taskqa.data.registry import RAW_GITHUB, DerivedFile, Entry, PinnedFile, Registry
from taskqa.problems import InvalidInputError, Problem

TIMEOUT_SECONDS = 60
Advance = Callable[[Entry, int, int | None], None]
"""Called with (entry, bytes so far, bytes expected) while a file downloads."""


def download_command(name: str, root: Path | None = None) -> str:
    """The command that downloads ``name`` (into ``root`` when that is not the default)."""
    where = "" if root is None else f" --dir {root}"
    return f"taskqa data download {name}{where}"


@dataclass(frozen=True)
class Outcome:
    entry: Entry
    path: Path
    action: str  # "cached", "downloaded" or "made"
    replaced_corrupt: bool = False  # a cached copy with the wrong sha256 was deleted first
    sha256: str | None = None  # the digest of a download that has no pinned one


@dataclass
class Fetcher:
    """Fetches entries of ``registry`` into the cache folder ``root``."""

    registry: Registry
    root: Path
    offline: bool = False
    base_url: str | None = None  # None: $TASKQA_DATA_URL, else raw.githubusercontent.com
    root_given: bool = False  # the user chose ``root`` (--dir), so advice must repeat it
    on_progress: Advance | None = None
    outcomes: list[Outcome] = field(default_factory=list)
    # every entry that failed in this run, with its one problem: asked for again (as the input
    # of a derived file), it fails the same way without a second try
    failures: dict[str, InvalidInputError] = field(default_factory=dict)
    # hosts that could not be reached (no HTTP answer at all), with the reason: later files from
    # them are not tried, so a machine without a network is told at once, not after 50 timeouts
    unreachable: dict[str, str] = field(default_factory=dict)

    def obtain(self, entry: Entry, *, remake: bool = False) -> Outcome:
        """Make ``entry`` present in the cache (its inputs first, for a derived file)."""
        if entry.name in self.failures:
            raise self.failures[entry.name]
        try:
            if isinstance(entry, DerivedFile):
                outcome = self._derive(entry, remake)
            else:
                outcome = self._fetch(entry)
        except InvalidInputError as error:
            self.failures[entry.name] = error
            raise
        self.outcomes.append(outcome)
        return outcome

    @property
    def _dir(self) -> Path | None:
        return self.root if self.root_given else None

    def url(self, entry: PinnedFile) -> str:
        base = self.base_url or os.environ.get(URL_VARIABLE) or RAW_GITHUB
        return entry.url(self.registry.sources, base)

    def _fetch(self, entry: PinnedFile) -> Outcome:
        path = cached_path(self.root, entry)
        state = verified_state(self.root, entry)
        if state is State.CACHED:
            return Outcome(entry, path, "cached")
        again = f"run `{download_command(entry.name, self._dir)}`"
        if state is State.CORRUPT:
            path.unlink()
            if self.offline:
                raise _problem(
                    entry,
                    f"the cached copy in {self.root} is not the pinned file (sha256 "
                    f"{entry.sha256}); it was deleted; {again}",
                )
        if self.offline:
            raise _problem(
                entry,
                f"not in the cache {self.root} (--offline uses only the cache); {again} where "
                "the network is reachable",
            )
        digest = self._download(entry, path)
        return Outcome(entry, path, "downloaded", state is State.CORRUPT, digest)

    def _download(self, entry: PinnedFile, path: Path) -> str | None:
        import pooch

        # taskqa reports what happened; pooch's own logger (not in logging's tree) stays quiet
        pooch.get_logger().setLevel(logging.WARNING)
        url = self.url(entry)
        host = urlsplit(url).netloc
        if host in self.unreachable:
            reason = self.unreachable[host]
            message = f"download failed (not tried: {host} was not reachable, {reason})"
            raise _problem(entry, message)
        counter = _ByteCounter(entry, self.on_progress)
        known = None if entry.sha256 is None else f"sha256:{entry.sha256}"
        downloader = pooch.HTTPDownloader(progressbar=counter, timeout=TIMEOUT_SECONDS)
        try:
            pooch.retrieve(url, known, fname=path.name, path=path.parent, downloader=downloader)
        except OSError as error:  # requests' errors are OSErrors (some also ValueErrors)
            if _status(error) is None and not counter.received:
                self.unreachable[host] = _connection_failure(error)
                message = f"download failed ({self.unreachable[host]}: {url})"
                raise _problem(entry, message) from None
            raise _problem(entry, _network_message(url, error, counter)) from None
        except ValueError:  # pooch's checksum failure; it has deleted the temporary file
            raise _problem(
                entry,
                f"the file downloaded from {url} does not have the pinned sha256 {entry.sha256}; "
                "the download was deleted and nothing was kept in the cache",
            ) from None
        return sha256_file(path) if entry.sha256 is None else None

    def _derive(self, entry: DerivedFile, remake: bool) -> Outcome:
        from taskqa.data.derive import make

        path = cached_path(self.root, entry)
        if not remake and verified_state(self.root, entry) is State.CACHED:
            return Outcome(entry, path, "cached")
        inputs = []
        failed: list[str] = []
        for name in entry.inputs:
            for inner in self.registry.select(name):
                try:
                    self.obtain(inner)
                except InvalidInputError:  # reported as the input's own problem
                    failed.append(inner.name)
            inputs.append(self.root / name)
        if failed:
            what = (
                f"input {failed[0]} is"
                if len(failed) == 1
                else (f"inputs {failed[0]} and {len(failed) - 1} more are")
            )
            raise _problem(entry, f"not made: its {what} missing")
        make(entry, inputs, path)
        return Outcome(entry, path, "made")


class _ByteCounter:
    """The progress-bar object pooch's downloader drives (total, update, reset, close)."""

    def __init__(self, entry: Entry, on_progress: Advance | None) -> None:
        self.entry = entry
        self.total = 0
        self.received = 0
        self._on_progress = on_progress

    def update(self, amount: int) -> None:
        # pooch counts whole chunks, so the count may pass the size in the last one
        self.received = min(self.received + amount, self.total or self.received + amount)
        if self._on_progress is not None:
            self._on_progress(self.entry, self.received, self.total or None)

    def reset(self) -> None:
        self.received = 0

    def close(self) -> None:
        pass


def _status(error: OSError) -> int | None:
    """The HTTP status of the answer that failed, None when no answer came."""
    status = getattr(getattr(error, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def _network_message(url: str, error: OSError, counter: _ByteCounter) -> str:
    response = getattr(error, "response", None)
    status = _status(error)
    if status is not None:
        reason = getattr(response, "reason", "") or ""
        return f"{url} answered HTTP {status} {reason}".rstrip() + "; nothing was downloaded"
    expected = f" of {counter.total:,}" if counter.total else ""
    return (
        f"the connection to {url} broke after about {counter.received:,}{expected} bytes; "
        "the partial download was deleted and nothing was kept in the cache; run the "
        "command again"
    )


# What a connection failure's message says, in the words a person would use. requests nests
# the whole chain of causes into one 400-character message; its last cause is what happened.
_FAILURES = (
    (("timed out", "timeout"), "timed out"),
    (("connection refused",), "connection refused"),
    (
        (
            "name or service not known",
            "nodename nor servname",
            "temporary failure in name resolution",
            "failed to resolve",
            "getaddrinfo failed",
            "no address associated",
        ),
        "host not found",
    ),
    (("network is unreachable", "no route to host"), "network unreachable"),
    (("certificate", "ssl"), "TLS error"),
    (("proxy",), "proxy error"),
    (("connection reset", "connection aborted", "remote end closed"), "connection reset"),
)


def _connection_failure(error: OSError) -> str:
    """``connection refused``, ``host not found``, ``timed out``, ...: why no answer came."""
    text = str(error).lower()
    for needles, said in _FAILURES:
        if any(needle in text for needle in needles):
            return said
    first = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {first[:80]}" if first else type(error).__name__


def _problem(entry: Entry, message: str) -> InvalidInputError:
    return InvalidInputError([Problem(entry.name, "", message)])
