"""The OpenAI-compatible chat client: standard-library HTTP, cache, retries, bounded concurrency.

Only ``POST {base_url}/chat/completions`` is used, so llama.cpp's server, vLLM, Ollama and the
hosted APIs all work. The cache key covers everything that shapes the answer (model, messages,
temperature, seed, max_tokens, stop) but not the server address: a local server on another port
still hits the cache.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from taskqa.execution import Executor

Message = dict[str, Any]  # {"role": ..., "content": str | [content parts]}
RETRIED_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# What to check when the server refuses a request for good, by status; said after its reason.
STATUS_ADVICE = {
    401: "check the API key (OPENAI_API_KEY, sent as a Bearer token)",
    403: "check the API key (OPENAI_API_KEY) and that it may use this model",
    404: "check --model (the server lists its models at GET /models) and --base-url "
    "(an OpenAI-compatible API, usually ending in /v1)",
}
ADVICE_OTHERWISE = "check --model and the request settings"
NOT_CHAT_ADVICE = (
    "is --base-url an OpenAI-compatible API (usually ending in /v1) and not another service?"
)


class LLMError(RuntimeError):
    """A request that failed for good: a client error, a server that cannot be reached, a reply
    that is not a chat completion, or retries exhausted.

    ``where`` is the server (its base URL) and ``reason`` what went wrong there, in one line that
    ends with what to check: commands print it as one problem line and exit 1, since each cause
    is in the user's setup (the server, the URL, the model name, the key), not in taskqa.
    """

    shard_passthrough = True  # raised on a worker, it reaches the driver as itself

    def __init__(self, reason: str, where: str = "") -> None:
        super().__init__(reason, where)  # both in args: the error pickles (from a worker) whole
        self.reason = reason
        self.where = where

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}" if self.where else self.reason


class Cache(Protocol):
    """Responses by request key: the SQLite ``ResponseCache``, or a worker's in-memory copy."""

    def get(self, key: str) -> str | None: ...

    def put(self, key: str, request_json: str, response: str) -> None: ...


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: Sequence[Message]
    temperature: float = 0.0
    seed: int | None = None
    max_tokens: int = 256
    stop: Sequence[str] = field(default_factory=tuple)

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": list(self.messages),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            body["seed"] = self.seed
        if self.stop:
            body["stop"] = list(self.stop)
        return body

    @classmethod
    def user(cls, model: str, prompt: str, **settings: Any) -> ChatRequest:
        """A one-message request: the shape of every prompt in ProMQA."""
        return cls(model, ({"role": "user", "content": prompt},), **settings)


def canonical_json(value: Any) -> str:
    """A request as the cache stores and hashes it (not a file): sorted keys, no spaces."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def request_key(request: ChatRequest) -> str:
    return hashlib.sha256(canonical_json(request.payload()).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    cached: bool
    attempts: int


Sleep = Callable[[float], None]


class LLMClient:
    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        cache: Cache | None = None,
        max_retries: int = 4,
        backoff_seconds: float = 1.0,
        timeout_seconds: float = 120.0,
        max_concurrency: int = 4,
        sleep: Sleep = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.cache = cache
        self.max_retries = max_retries
        self.backoff_seconds = backoff_seconds
        self.timeout_seconds = timeout_seconds
        self.max_concurrency = max(1, max_concurrency)
        self._sleep = sleep
        # Where ``complete_many`` sends uncached requests; None: threads in this process.
        self.executor: Executor | None = None

    def complete(self, request: ChatRequest) -> Completion:
        key = request_key(request)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return Completion(hit, request.model, cached=True, attempts=0)
        text, attempts = self._post_with_retries(request)
        if self.cache is not None:
            self.cache.put(key, canonical_json(request.payload()), text)
        return Completion(text, request.model, cached=False, attempts=attempts)

    def complete_many(
        self,
        requests: Sequence[ChatRequest],
        on_done: Callable[[int, Completion], None] | None = None,
    ) -> list[Completion]:
        """Every request answered, in input order, at most ``max_concurrency`` in flight (per
        worker, when an executor is set: ``taskqa.llm.sharded``)."""
        if not requests:
            return []
        if self.executor is not None:
            from taskqa.llm.sharded import complete_sharded

            return complete_sharded(self, self.executor, requests, on_done)
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(requests))) as pool:
            futures = [pool.submit(self.complete, request) for request in requests]
            results = []
            for index, future in enumerate(futures):
                completion = future.result()
                if on_done is not None:
                    on_done(index, completion)
                results.append(completion)
            return results

    def _post_with_retries(self, request: ChatRequest) -> tuple[str, int]:
        body = json.dumps(request.payload()).encode("utf-8")
        last_problem = ""
        for attempt in range(1, self.max_retries + 2):
            try:
                return self._post(body), attempt
            except _Transient as problem:
                last_problem = str(problem)
                if attempt > self.max_retries:
                    break
                delay = problem.retry_after or self.backoff_seconds * 2 ** (attempt - 1)
                self._sleep(delay)
        raise LLMError(
            f"no answer after {self.max_retries + 1} attempts ({last_problem}); is the server "
            "up and not overloaded?",
            self.base_url,
        )

    def _post(self, body: bytes) -> str:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        post = urllib.request.Request(
            f"{self.base_url}/chat/completions", data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(post, timeout=self.timeout_seconds) as reply:
                raw = reply.read()
        except urllib.error.HTTPError as error:
            detail = error_detail(error.read())
            if error.code in RETRIED_STATUS:
                raise _Transient(f"HTTP {error.code}: {detail}", _retry_after(error)) from None
            advice = STATUS_ADVICE.get(error.code, ADVICE_OTHERWISE)
            raise LLMError(f"HTTP {error.code}: {detail}; {advice}", self.base_url) from None
        except urllib.error.URLError as error:
            # Nothing listening, or a host name that does not resolve, stays so for the next
            # attempt: said at once rather than after a minute of backoff. A timeout or a reset
            # connection may pass, so those are retried.
            unreachable = _unreachable(error.reason)
            if unreachable is not None:
                raise LLMError(unreachable, self.base_url) from None
            raise _Transient(_said(error.reason)) from None
        except (TimeoutError, ConnectionError, http.client.HTTPException) as error:
            raise _Transient(_said(error)) from None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            # a 200 whose body is not JSON is a web page or another service at that address
            raise LLMError(
                f"the reply is not JSON ({shorten_reply(raw)}); {NOT_CHAT_ADVICE}", self.base_url
            ) from None
        return completion_text(data, self.base_url)


def _unreachable(reason: object) -> str | None:
    """What to say when ``reason`` (a URLError's) means no server can be reached at all."""
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused: no server listens there; start it or check --base-url"
    if isinstance(reason, socket.gaierror):
        return f"cannot resolve the host name ({reason.strerror}); check --base-url"
    return None


def _said(error: object) -> str:
    """An exception as a short phrase: ``timed out``, ``ConnectionResetError: ...``."""
    if isinstance(error, TimeoutError):
        return "timed out"
    text = str(error) or "no detail"
    return text if isinstance(error, str) else f"{type(error).__name__}: {text}"


def error_detail(body: bytes) -> str:
    """The message of an error reply: OpenAI's ``{"error": {"message": ...}}``, vLLM's and
    Ollama's ``{"message": ...}`` or ``{"error": "..."}``, else the body's start."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return _start(body) or "an empty body"
    message: object = None
    if isinstance(data, dict):
        error = data.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        if not isinstance(message, str):
            message = data.get("message")
    if isinstance(message, str) and message.strip():
        return _one_line(message).rstrip(".")  # the advice follows after a semicolon
    return _start(body)


def shorten_reply(body: bytes) -> str:
    """A reply's start as one quoted line, or ``an empty body``."""
    start = _start(body)
    return json.dumps(start, ensure_ascii=False) if start else "an empty body"


def _start(body: bytes, limit: int = 120) -> str:
    text = _one_line(body.decode("utf-8", "replace"))
    return text[:limit] + ("..." if len(text) > limit else "")


def _one_line(text: str) -> str:
    return " ".join(text.split())


class _Transient(Exception):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def _retry_after(error: urllib.error.HTTPError) -> float | None:
    value = error.headers.get("Retry-After") if error.headers else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def completion_text(data: Any, source: str) -> str:
    """The first choice's message text of an OpenAI chat-completion reply."""
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        got = _start(json.dumps(data, ensure_ascii=False).encode("utf-8"))
        raise LLMError(
            f"expected choices[0].message.content in the reply, got {got}; {NOT_CHAT_ADVICE}",
            source,
        ) from None
    if content is None:
        return ""
    if not isinstance(content, str):
        raise LLMError("choices[0].message.content is not text", source)
    return content
