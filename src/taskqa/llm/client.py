"""The OpenAI-compatible chat client: standard-library HTTP, cache, retries, bounded concurrency.

Only ``POST {base_url}/chat/completions`` is used, so llama.cpp's server, vLLM, Ollama and the
hosted APIs all work. The cache key covers everything that shapes the answer (model, messages,
temperature, seed, max_tokens, stop) but not the server address: a local server on another port
still hits the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
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


class LLMError(RuntimeError):
    """A request that failed for good: a client error, or retries exhausted."""

    shard_passthrough = True  # raised on a worker, it reaches the driver as itself


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
            f"{self.base_url}: no answer after {self.max_retries + 1} attempts ({last_problem})"
        )

    def _post(self, body: bytes) -> str:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        http = urllib.request.Request(
            f"{self.base_url}/chat/completions", data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(http, timeout=self.timeout_seconds) as reply:
                data = json.loads(reply.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace")[:300]
            if error.code in RETRIED_STATUS:
                raise _Transient(f"HTTP {error.code}: {detail}", _retry_after(error)) from None
            raise LLMError(f"{self.base_url}: HTTP {error.code}: {detail}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            raise _Transient(f"{type(error).__name__}: {error}") from None
        except json.JSONDecodeError as error:
            raise _Transient(f"the reply is not JSON ({error.msg})") from None
        return completion_text(data, self.base_url)


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
        raise LLMError(
            f"{source}: expected choices[0].message.content in the reply, got "
            f"{json.dumps(data)[:300]}"
        ) from None
    if content is None:
        return ""
    if not isinstance(content, str):
        raise LLMError(f"{source}: choices[0].message.content is not text")
    return content
