"""A tiny OpenAI-compatible chat server for tests: canned replies, scripted failures.

``StubChatServer(reply)`` listens on 127.0.0.1 on a free port in a background thread. ``reply``
gets the request body and returns either a reply text or ``(status, body)`` to fail with; every
request body is kept in ``requests`` and the most requests seen in flight at once in
``max_in_flight``, so tests can check caching, retries and the concurrency bound.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

Reply = str | tuple[int, str]
ReplyFunction = Callable[[dict[str, Any]], Reply]


def completion_body(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "stub",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
    }


class StubChatServer:
    def __init__(self, reply: ReplyFunction, delay_seconds: float = 0.0) -> None:
        self.reply = reply
        self.delay_seconds = delay_seconds
        self.requests: list[dict[str, Any]] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> StubChatServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def _handle(self, body: dict[str, Any]) -> tuple[int, str]:
        with self._lock:
            self.requests.append(body)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            if self.delay_seconds:
                time.sleep(self.delay_seconds)
            answer = self.reply(body)
        finally:
            with self._lock:
                self._in_flight -= 1
        if isinstance(answer, tuple):
            return answer
        return 200, json.dumps(completion_body(answer, str(body.get("model", ""))))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # the name http.server calls
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                status, text = stub._handle(body)
                data = text.encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a test of its timeout); nothing to send

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output quiet

        return Handler
