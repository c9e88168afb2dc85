"""Cost of `taskqa data`: downloading and checking, deriving, and reading `data:NAME`.

Serves the copies in ../shared/data (and the download_links.json fixture, which the shared
folder lacks) from a loopback HTTP server, as the tests do, and reports medians of:

- downloading every entry available into an empty cache (pooch, sha256 checked), then the same
  command again on the full cache (every file's sha256 checked, nothing fetched);
- making each derived file from its cached inputs (`derive`);
- `python -m taskqa.procedural candidates` with plain paths and with `data:NAME` (fresh
  processes), the command whose start-up time issue 6 budgets: the difference is the resolver.

    .venv/bin/python benchmarks/bench_data.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from data_support import FIXTURES, SHARED_DATA, DataServer  # noqa: E402
from taskqa.data.fetch import Fetcher  # noqa: E402
from taskqa.data.registry import load_registry  # noqa: E402

LINKS = "captaincook4d-downloader/metadata/download_links.json"
PLAIN = [
    "--annotations", str(SHARED_DATA / "promqa/cleaned_error_annotations.json"),
    "--graphs", str(SHARED_DATA / "promqa/graphs.json"),
    "--recordings", str(SHARED_DATA / "captaincook4d/recordings_with_4k_video.json"),
]  # fmt: skip
NAMED = [
    "--annotations", "data:promqa/cleaned_error_annotations.json",
    "--graphs", "data:promqa/graphs.json",
    "--recordings", "data:captaincook4d/recordings_with_4k_video.json",
]  # fmt: skip


def _median(times: list[float]) -> str:
    return f"{statistics.median(times):.3f} s (min {min(times):.3f}, max {max(times):.3f})"


def download_and_derive(names: set[str], runs: int) -> None:
    registry = load_registry()
    derived = {entry.name for entry in registry.derived}
    served = [entry for entry in registry.entries() if entry.name in names | derived]
    size = sum((SHARED_DATA / e.name).stat().st_size for e in served if e.name != LINKS)
    cold, warm = [], []
    derive = {entry.name: [] for entry in registry.derived}
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            fetcher = Fetcher(registry, Path(folder))
            start = time.perf_counter()
            for entry in served:
                fetcher.obtain(entry)
            cold.append(time.perf_counter() - start)
            start = time.perf_counter()
            for entry in served:
                assert Fetcher(registry, Path(folder)).obtain(entry).action == "cached"
            warm.append(time.perf_counter() - start)
            for entry in registry.derived:
                start = time.perf_counter()
                fetcher.obtain(entry, remake=True)
                derive[entry.name].append(time.perf_counter() - start)
    print(f"download {len(served)} entries ({size / 1e6:.1f} MB + links) into an empty cache: "
          f"{_median(cold)}")  # fmt: skip
    print(f"the same on the full cache (sha256 of every file, no request): {_median(warm)}")
    for name, times in derive.items():
        print(f"derive {name}: {_median(times)}")


def resolver_overhead(runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder)
        for name in ("promqa/cleaned_error_annotations.json", "promqa/graphs.json",
                     "captaincook4d/recordings_with_4k_video.json"):  # fmt: skip
            (cache / name).parent.mkdir(parents=True, exist_ok=True)
            (cache / name).write_bytes((SHARED_DATA / name).read_bytes())
        env = {**os.environ, "TASKQA_DATA": str(cache)}
        command = [sys.executable, "-m", "taskqa.procedural", "candidates", "--out"]
        for label, arguments in (("paths", PLAIN), ("data:NAME", NAMED)):
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                subprocess.run(
                    [*command, str(cache / "out.json"), *arguments],
                    check=True, capture_output=True, env=env,
                )  # fmt: skip
                times.append(time.perf_counter() - start)
            print(f"python -m taskqa.procedural candidates with {label}: {_median(times)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    if not SHARED_DATA.is_dir():
        sys.exit(f"needs {SHARED_DATA}")
    with DataServer() as server:
        os.environ["TASKQA_DATA_URL"] = server.base_url
        os.environ["NO_PROXY"] = "127.0.0.1"
        names = {*server.serve_copies(SHARED_DATA), *server.serve_copies(FIXTURES)}
        download_and_derive(names, runs)
    resolver_overhead(runs)


if __name__ == "__main__":
    main()
