"""Time and memory of `taskqa simulate` for the issue's target corpus (400 recordings).

Target: under 20 s on 2 cores and under 1 GB of memory. Each run is a fresh process, so
imports and writing the files are counted. Memory is the peak of the summed resident set of the
command and all its worker processes, sampled every 20 ms from /proc (Linux).

It also reports how much the corpus varies where a question's text cannot see it (initial
states, distractors, role bindings, failed and partial actions; taskqa.simulation.variation),
and checks that one and two workers wrote the same bytes.

    .venv/bin/python benchmarks/bench_simulate.py [--episodes 400] [--repeats 3]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 20.0
TARGET_BYTES = 1 << 30


def _tree(pid: int) -> list[int]:
    pids, index = [pid], 0
    while index < len(pids):
        for task in Path(f"/proc/{pids[index]}/task").glob("*/children"):
            with contextlib.suppress(OSError):  # the process may have just exited
                pids += [int(p) for p in task.read_text().split()]
        index += 1
    return pids


def _rss_bytes(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def run_once(episodes: int, workers: int, out: Path) -> tuple[float, int]:
    command = [
        sys.executable,
        "-m",
        "taskqa",
        "simulate",
        "--episodes",
        str(episodes),
        "--seed",
        "0",
        "--workers",
        str(workers),
        "--out",
        str(out),
    ]
    return measure(command)


def measure(command: list[str], interval: float = 0.02) -> tuple[float, int]:
    """Wall time of ``command`` and the peak summed RSS of its process tree, in bytes."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while process.poll() is None:
        peak = max(peak, _rss_bytes(_tree(process.pid)))
        time.sleep(interval)
    elapsed = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(process.stderr.read().decode() if process.stderr else "failed")
    return elapsed, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, default=Path("out/bench/simulate.json"))
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="taskqa-bench-"))
    results: list[dict[str, object]] = []
    try:
        for workers in (1, 2):
            runs = [
                run_once(args.episodes, workers, scratch / f"w{workers}-{r}")
                for r in range(args.repeats)
            ]
            manifest = json.loads((scratch / f"w{workers}-0" / "corpus.json").read_text())
            best = min(t for t, _ in runs)
            peak = max(m for _, m in runs)
            results.append(
                {
                    "workers": workers,
                    "episodes": args.episodes,
                    "recordings": manifest["recordings"],
                    "actions": manifest["actions"],
                    "seconds_best": round(best, 2),
                    "seconds_all": [round(t, 2) for t, _ in runs],
                    "peak_rss_mib": round(peak / 2**20, 1),
                    "meets_time_target": best < TARGET_SECONDS,
                    "meets_memory_target": peak < TARGET_BYTES,
                }
            )
            print(
                f"workers={workers}: {manifest['recordings']} recordings, {manifest['actions']} "
                f"actions, best {best:.2f} s of {args.repeats}, peak RSS {peak / 2**20:.0f} MiB"
            )
        one, two = (scratch / f"w{w}-0" / "recordings.jsonl" for w in (1, 2))
        if one.read_bytes() != two.read_bytes():
            raise SystemExit("one and two workers wrote different recordings")
        variation = _variation(scratch / "w1-0")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"runs": results, "variation": variation}, indent=2) + "\n")


def _variation(corpus: Path) -> dict[str, object]:
    from taskqa.corpus import read_corpus
    from taskqa.simulation.domain import load_domain
    from taskqa.simulation.variation import variation_summary

    summary = variation_summary(read_corpus(corpus), load_domain(corpus / "domain.yaml"))
    outcomes = summary["outcomes"]
    states = summary["initial_states"]
    print(
        f"variation: {states['attributes_that_vary']} object attributes start off their default "
        f"in {100 * states['mean_share_off_default']:.0f}% of episodes on average; "
        f"{len(summary['distractors'])} distractors; {len(summary['roles'])} roles; "
        f"{summary['steps_already_done']} steps already done at the start; actions "
        f"{outcomes['done']} done, {outcomes['failed']} failed, {outcomes['partial']} partial"
    )
    interruptions, placements = summary["interruptions"], summary["placements"]
    print(
        f"interruptions: {interruptions['total']} in {interruptions['episodes_with_one']} of "
        f"{interruptions['two_person_episodes']} two-person episodes "
        f"({interruptions['actions_by_verb']}); placements off default: "
        f"{placements['off_default']} things in {len(placements['by_object'])} that may move"
    )
    return summary


if __name__ == "__main__":
    main()
