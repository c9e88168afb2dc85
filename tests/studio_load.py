"""Many raters answering at once against a live server, retrying like a browser would.

The load generator shares the machine's cores with the server it measures, so it is kept
light: each rater is one coroutine holding one keep-alive HTTP/1.1 connection, written
directly on asyncio streams. httpx costs about 1.2 ms of CPU per request here (much of it a
failed ``import sniffio`` that httpcore repeats on every request), which made the client use
three times the server's CPU and put the client's own queueing into the measured latency.
The client below costs a tenth of that; the requests it sends are what a browser sends (the
same forms, the session cookie, the redirect followed by a GET).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

from studio_support import form_fields

RETRY_FOR_S = 60.0
REQUEST_TIMEOUT_S = 10.0


class TransportFailure(Exception):
    """The connection failed (refused, reset, closed mid-answer, timed out): retry."""


@dataclass
class Reply:
    status: int
    headers: dict[str, str]  # lower-case names; the last value of a repeated header
    text: str


class Connection:
    """One rater's keep-alive connection and cookies; reconnects after a failure."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        assert parts.scheme == "http" and parts.hostname and parts.port, base
        self.host, self.port = parts.hostname, parts.port
        self.cookies: dict[str, str] = {}
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def request(self, method: str, path: str, form: dict[str, str] | None = None) -> Reply:
        try:
            return await asyncio.wait_for(self._exchange(method, path, form), REQUEST_TIMEOUT_S)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                TimeoutError, ValueError) as error:  # fmt: skip
            self.close()
            raise TransportFailure(f"{method} {path}: {type(error).__name__}: {error}") from None

    async def _exchange(self, method: str, path: str, form: dict[str, str] | None) -> Reply:
        if self.streams is None:
            self.streams = await asyncio.open_connection(self.host, self.port)
        reader, writer = self.streams
        body = urlencode(form).encode() if form is not None else b""
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if form is not None:
            lines += ["Content-Type: application/x-www-form-urlencoded",
                      f"Content-Length: {len(body)}"]  # fmt: skip
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in head[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
                if name.strip().lower() == "set-cookie":
                    key, _, rest = value.strip().partition("=")
                    self.cookies[key] = rest.split(";", 1)[0]
        if "content-length" not in headers:  # every studio response has one
            raise ValueError(f"response without Content-Length: {head[0]}")
        text = (await reader.readexactly(int(headers["content-length"]))).decode("utf-8")
        if headers.get("connection", "").lower() == "close":
            self.close()
        return Reply(status, headers, text)

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


@dataclass
class LoadResult:
    acknowledged: list[tuple[str, int, str]] = field(default_factory=list)  # token, item, id
    latencies: list[float] = field(default_factory=list)  # seconds per acknowledged POST
    retries: int = 0

    def percentile_ms(self, share: float) -> float:
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))]

    def p95_ms(self) -> float:
        return self.percentile_ms(0.95)


async def _retry(result: LoadResult, call: Callable[[], Awaitable[Reply]]) -> Reply:
    """The request again after any network failure (server killed, not yet restarted)."""
    deadline = time.monotonic() + RETRY_FOR_S
    while True:
        try:
            return await call()
        except TransportFailure:
            if time.monotonic() > deadline:
                raise
            result.retries += 1
            await asyncio.sleep(0.05)


async def rater(base: str, token: str, answers: int, result: LoadResult) -> None:
    client = Connection(base)
    try:
        for _ in range(answers):
            step = await _retry(result, lambda: client.request("GET", f"/r/{token}"))
            assert step.status == 303, step.text
            url = urlsplit(step.headers["location"]).path
            page = await _retry(result, lambda: client.request("GET", url))  # noqa: B023
            assert page.status == 200, page.text
            csrf, submission = form_fields(page.text)
            answer = "yes" if 'value="yes"' in page.text else "cup"
            data = {"csrf": csrf, "submission_id": submission, "answer": answer}
            started = time.perf_counter()
            posted = await _retry(result, lambda: client.request("POST", url, data))  # noqa: B023
            assert posted.status == 303, posted.text  # acknowledged
            result.latencies.append(time.perf_counter() - started)
            result.acknowledged.append((token, int(url.rsplit("/", 1)[1]), submission))
    finally:
        client.close()


async def run_load(
    base: str,
    raters: list[str],
    answers: int,
    during: Callable[[LoadResult], Awaitable[None]] | None = None,
) -> LoadResult:
    result = LoadResult()
    work = [rater(base, token, answers, result) for token in raters]
    if during is not None:
        work.append(during(result))
    await asyncio.gather(*work)
    return result
