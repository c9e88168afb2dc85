"""Latency of `taskqa studio serve` under load: 50 raters x 20 answers at once on 127.0.0.1.

Builds a small benchmark (6 simulated recordings), creates an answer study with 20 questions
that all 50 raters answer, starts the server in a subprocess and lets 50 asynchronous clients
go through the browser's steps (open the link, load the item page, post the answer). Prints
the p50/p95/p99 latency of the answer submission (the POST the server acknowledges after its
commit), the throughput, the CPU time of the server and of the load generator, and the load
average before and after (the cores are shared). Target: p95 submission under 100 ms;
``--check`` exits 1 when it is missed.

The raters have no think time: each sends its next request as soon as the last is answered,
so 50 requests are nearly always in flight and a request's latency is about 50 times the
server's time per request. Real raters spend seconds per question.

    .venv/bin/python benchmarks/bench_studio.py [--raters 50] [--answers 20] [--check]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from studio_load import run_load
from studio_support import LiveServer, make_study, tokens
from taskqa.benchmark.balance import BalanceConfig
from taskqa.benchmark.build import BuildConfig, build_benchmark
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import load_domain


def server_cpu_seconds(server: LiveServer) -> float:
    """User + system CPU time of the server process so far (Linux /proc)."""
    assert server.process is not None
    fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--raters", type=int, default=50)
    parser.add_argument("--answers", type=int, default=20)
    parser.add_argument("--target-ms", type=float, default=100.0)
    parser.add_argument("--check", action="store_true", help="exit 1 if p95 misses the target")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        domain = load_domain()
        config = SimulationConfig(episodes=6, seed=0)
        write_simulated_corpus(root / "corpus", config, simulate_corpus(config, domain), domain)
        build_benchmark(
            root / "corpus", root / "bench", BuildConfig(balance=BalanceConfig(balance_by="type"))
        )
        per_category = max(1, (args.answers + 3) // 4)
        study = make_study(
            root / "study.sqlite", root / "bench", per_category=per_category,
            raters=args.raters, per_item=args.raters, catch=0,
        )  # fmt: skip
        links, _ = tokens(study)
        server = LiveServer(study).start()
        try:
            cpu_before = server_cpu_seconds(server)
            started, client_started = time.perf_counter(), time.process_time()
            result = asyncio.run(run_load(server.url, links, args.answers))
            elapsed = time.perf_counter() - started
            cpu = server_cpu_seconds(server) - cpu_before
            client_cpu = time.process_time() - client_started
        finally:
            server.stop()
    answers = len(result.acknowledged)
    print(
        f"{args.raters} raters x {args.answers} answers: {answers} acknowledged in {elapsed:.1f} s "
        f"({answers / elapsed:.0f} answers/s, each = 3 requests)"
    )
    print(
        f"submission latency: p50 {result.percentile_ms(0.5):.1f} ms, "
        f"p95 {result.p95_ms():.1f} ms, p99 {result.percentile_ms(0.99):.1f} ms "
        f"(target: p95 under {args.target_ms:.0f} ms)"
    )
    print(
        f"server CPU: {cpu:.1f} s in all, {1000 * cpu / (3 * answers):.2f} ms per request; "
        f"clients' CPU: {client_cpu:.1f} s; {os.cpu_count()} cores shared by both"
    )
    load_after = os.getloadavg()
    print(
        f"load average (1 min) before {load_before[0]:.2f}, after {load_after[0]:.2f} "
        f"(other processes on the machine compete for the same cores)"
    )
    if args.check and result.p95_ms() >= args.target_ms:
        sys.exit(1)


if __name__ == "__main__":
    main()
