"""Time and drop counts of the grounding check (issue 22, item 2; docs/grounding.md).

A corpus is simulated (`taskqa simulate --episodes N --seed 5`) and its candidates generated
(`taskqa generate`), neither timed; then `ground_candidates`, the check `taskqa build` runs
before balancing, is timed with an empty mask cache for each worker count given, and once more
reading every mask back from the cache. It prints the drop counts per reason, checks that every
run kept the same questions, and writes everything as JSON.

    .venv/bin/python benchmarks/bench_grounding.py [--episodes 400] [--workers 1 2] [--out F]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from taskqa.benchmark.grounding import ground_candidates, judge_recording, shards_of
from taskqa.convert import read_recordings
from taskqa.execution import Execution
from taskqa.household.timeline import Timeline
from taskqa.model import Recording
from taskqa.programs.clips import ClipRecord, read_clips
from taskqa.questions.generate import clips_path
from taskqa.questions.world import CorpusWorld


def _taskqa(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "taskqa", *args], check=True, capture_output=True)


def _kind(reason: str) -> str:
    return reason.split(" (", 1)[0]


def why_off_screen(
    corpus: Path,
    recordings: list[Recording],
    verbs: dict[str, str],
    questions: Path,
    clips: dict[str, ClipRecord],
    cache: Path,
) -> Counter[str]:
    """The dropped questions by where their missing thing was (from the world state at the
    moments checked): a person, a thing of the other person's action, in a hand (drawn where
    the other things held are), shut in something closed, or elsewhere (out of view, or too
    small in the room camera)."""
    work = shards_of(CorpusWorld.open(corpus), questions, clips, cache)
    by_id = {r.id: r for r in recordings}
    domain = CorpusWorld.open(corpus).domain
    assert domain is not None, "a simulated corpus carries its domain"
    where: Counter[str] = Counter()
    for recording, item in zip(work.order, work.items, strict=True):
        timeline = Timeline(by_id[recording], domain)
        doers = {a.id: a.agent for a in by_id[recording].actions}
        asked = [clips[clip].agent for clip, _ in json.loads(item)["questions"]]
        for found, person in zip(judge_recording(work.context, item)[0], asked, strict=True):
            if found is None:
                continue
            need, times = found
            if need.person:
                where["a person"] += 1
            elif need.action is not None and doers[need.action] != person:
                where["in the other person's action"] += 1
            elif all(set(timeline.holder_chain(need.entity, t)) & set(timeline.agents)
                     for t in times):  # fmt: skip
                where["in a hand"] += 1
            elif all(timeline.enclosed(need.entity, t) for t in times):
                where["shut in something closed"] += 1
            else:
                where["elsewhere (out of view or too small)"] += 1
    return where


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-grounding-"))
    try:
        corpus, questions = scratch / "corpus", scratch / "q.jsonl"
        started = time.perf_counter()
        _taskqa("simulate", "--out", str(corpus), "--episodes", str(args.episodes),
                "--seed", str(args.seed), "--workers", str(max(args.workers)))  # fmt: skip
        _taskqa("generate", str(corpus), "--out", str(questions),
                "--workers", str(max(args.workers)))  # fmt: skip
        prepared = time.perf_counter() - started
        recordings, verbs = read_recordings(corpus)
        clips = read_clips(clips_path(questions))
        runs: list[dict[str, Any]] = []
        kept: set[bytes] = set()
        plan = [(w, f"cache-{w}") for w in args.workers] + [(args.workers[0], "cache-reused")]
        for workers, cache in plan:
            if cache == "cache-reused":
                shutil.copytree(scratch / f"cache-{args.workers[0]}", scratch / cache)
            out = scratch / f"kept-{workers}-{cache}.jsonl"
            mark = time.perf_counter()
            result = ground_candidates(
                CorpusWorld.open(corpus),
                questions,
                clips,
                out,
                execution=Execution(workers=workers),
                cache=scratch / cache,
            )
            seconds = time.perf_counter() - mark
            kept.add(out.read_bytes())
            runs.append(
                {
                    "workers": workers,
                    "cache": "warm" if cache == "cache-reused" else "empty",
                    "seconds": round(seconds, 2),
                    "recordings_per_s": round(len(recordings) / seconds, 2),
                    "frames_drawn": result.frames,
                }
            )
            print(json.dumps(runs[-1]), flush=True)
        summary = result.summary()
        where = why_off_screen(
            corpus, recordings, verbs, questions, clips, scratch / "cache-reused"
        )
        kinds: Counter[str] = Counter()
        for reason, count in summary["dropped"].items():
            kinds[_kind(reason)] += count
        report = {
            "episodes": args.episodes,
            "seed": args.seed,
            "recordings": len(recordings),
            "simulate_and_generate_s": round(prepared, 1),
            "runs": runs,
            "identical_for_every_run": len(kept) == 1,
            "checked": summary["checked"],
            "kept": summary["kept"],
            "dropped_share": round(1 - summary["kept"] / max(summary["checked"], 1), 4),
            "dropped_by_kind": dict(kinds.most_common()),
            "dropped_by_where": dict(where.most_common()),
            "dropped": summary["dropped"],
        }
        print(json.dumps(report, indent=2))
        if args.out is not None:
            args.out.write_text(json.dumps(report, indent=2) + "\n")
        if len(kept) != 1:
            raise SystemExit("the runs kept different questions")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
