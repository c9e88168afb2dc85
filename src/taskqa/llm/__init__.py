"""Chat completions from any OpenAI-compatible server (hosted or local), with a disk cache.

``LLMClient.complete`` takes a ``ChatRequest`` (messages plus model, temperature, seed and
max_tokens) and returns a ``Completion``. Identical requests are answered from a SQLite cache,
transient failures are retried with exponential backoff, and ``complete_many`` runs requests
with bounded concurrency while keeping their order.
"""

from taskqa.llm.cache import ResponseCache
from taskqa.llm.client import (
    ChatRequest,
    Completion,
    LLMClient,
    LLMError,
    Message,
    request_key,
)

__all__ = [
    "ChatRequest",
    "Completion",
    "LLMClient",
    "LLMError",
    "Message",
    "ResponseCache",
    "request_key",
]
