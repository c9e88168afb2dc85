"""Model requests as shards on any executor, with the response cache kept on the driver.

The SQLite cache (``ResponseCache``) never leaves the driver: before a batch goes out, the
driver looks up the requests the batch can make and ships the answers it already has with the
batch (a ``MemoryCache``); the worker's client answers from that copy or asks the server, and
sends back what it paid for, which the driver writes to the cache as the batch's result comes
in. So no request is paid twice, on any executor, and an interrupted run resumes from the
cache as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from taskqa.llm.client import ChatRequest, Completion, LLMClient, request_key

if TYPE_CHECKING:
    from taskqa.execution import Executor

# A response a worker paid for: the request's key, the request as JSON and the response text.
NewEntry = tuple[str, str, str]


class MemoryCache:
    """A worker's copy of the cache entries its batch may need; records what it adds."""

    def __init__(self, entries: dict[str, str]) -> None:
        self.entries = dict(entries)
        self.added: list[NewEntry] = []

    def get(self, key: str) -> str | None:
        return self.entries.get(key)

    def put(self, key: str, request_json: str, response: str) -> None:
        self.entries[key] = response
        self.added.append((key, request_json, response))


@dataclass(frozen=True)
class ClientSettings:
    """Everything a worker needs to make the driver's client again, minus its cache."""

    base_url: str
    api_key: str | None
    max_retries: int
    backoff_seconds: float
    timeout_seconds: float
    max_concurrency: int

    @classmethod
    def of(cls, client: LLMClient) -> ClientSettings:
        return cls(
            client.base_url,
            client.api_key,
            client.max_retries,
            client.backoff_seconds,
            client.timeout_seconds,
            client.max_concurrency,
        )

    def client(self, cache: MemoryCache) -> LLMClient:
        return LLMClient(
            self.base_url,
            api_key=self.api_key,
            cache=cache,
            max_retries=self.max_retries,
            backoff_seconds=self.backoff_seconds,
            timeout_seconds=self.timeout_seconds,
            max_concurrency=self.max_concurrency,
        )


def known_answers(client: LLMClient, requests: Iterable[ChatRequest]) -> dict[str, str]:
    """The cached responses to ``requests`` (looked up on the driver)."""
    if client.cache is None:
        return {}
    found: dict[str, str] = {}
    for request in requests:
        key = request_key(request)
        hit = client.cache.get(key)
        if hit is not None:
            found[key] = hit
    return found


def run_llm_shards(
    client: LLMClient,
    executor: Executor,
    work: Callable[[LLMClient, Any, Any], Any],
    context: Any,
    batches: Sequence[tuple[Any, dict[str, str]]],
    labels: Sequence[str],
) -> Iterator[Any]:
    """``work(worker_client, context, batch)`` for every (batch, cached answers), in order;
    each batch's new responses go into the driver's cache as its result arrives."""
    from taskqa.execution import run_shards

    shared = (ClientSettings.of(client), work, context)
    for result, added in run_shards(executor, _llm_shard, shared, batches, labels):
        if client.cache is not None:
            for key, request_json, response in added:
                client.cache.put(key, request_json, response)
        yield result


def _llm_shard(
    shared: tuple[ClientSettings, Callable[[LLMClient, Any, Any], Any], Any],
    item: tuple[Any, dict[str, str]],
) -> tuple[Any, list[NewEntry]]:
    settings, work, context = shared
    batch, answers = item
    cache = MemoryCache(answers)
    result = work(settings.client(cache), context, batch)
    return result, cache.added


def complete_sharded(
    client: LLMClient,
    executor: Executor,
    requests: Sequence[ChatRequest],
    on_done: Callable[[int, Completion], None] | None = None,
) -> list[Completion]:
    """``client.complete_many`` with the requests the cache cannot answer sent out in batches
    of ``max_concurrency`` (each batch answered by a worker with that many threads)."""
    results: list[Completion | None] = [None] * len(requests)
    misses: list[int] = []
    for index, request in enumerate(requests):
        hit = client.cache.get(request_key(request)) if client.cache is not None else None
        if hit is None:
            misses.append(index)
        else:
            results[index] = Completion(hit, request.model, cached=True, attempts=0)
    size = client.max_concurrency
    groups = [misses[start : start + size] for start in range(0, len(misses), size)]
    batches: list[tuple[Any, dict[str, str]]] = [([requests[i] for i in g], {}) for g in groups]
    labels = [f"{n} (requests {group[0]}-{group[-1]})" for n, group in enumerate(groups)]
    answered = run_llm_shards(client, executor, _complete_batch, None, batches, labels)
    fresh = (reply for batch in answered for reply in batch)
    for index, request in enumerate(requests):
        completion = results[index]
        if completion is None:
            # misses go out and come back in index order, so the next reply is this request's
            text, attempts, cached = next(fresh)
            completion = Completion(text, request.model, cached=cached, attempts=attempts)
            results[index] = completion
        if on_done is not None:
            on_done(index, completion)
    return [c for c in results if c is not None]


def _complete_batch(
    client: LLMClient, _context: None, requests: list[ChatRequest]
) -> list[tuple[str, int, bool]]:
    return [(c.text, c.attempts, c.cached) for c in client.complete_many(requests)]
