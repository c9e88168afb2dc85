"""What a new user meets (issue 35), measured end to end on a small simulated corpus.

    .venv/bin/python benchmarks/bench_new_user.py --work DIR [--episodes 30 --seed 5 --rendered 3]

Runs the Quick start's path as a user would, through the command line, and prints one JSON
object with what the issue's targets ask:

- `build --pairs` after `render --limit N`: its time, whether its redirected log filled while it
  ran (stage lines before the last one), pairs rendered on one side only (must be 0), and
  whether `export hf` / `export lmms-eval` work (with `--allow-missing-videos`, as without
  pairs, and without it after `taskqa render BENCH`, unless --skip-render-bench);
- the oracle's answers put in the past tense ("The person closed the drawer.") scored by
  `taskqa evaluate` (must be 100%), and five of its answers scored with `--allow-partial`
  (must be 100% on 5 answered);
- `taskqa baseline chat` against a closed port: exit code, seconds (target < 3), lines printed;
- `taskqa generate --out` onto a file of someone's notes: exit code, and the notes untouched.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from lemminflect import getAllLemmas, getInflection

from taskqa.benchmark.folder import Benchmark

TASKQA = [sys.executable, "-m", "taskqa"]


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TASKQA, *args], check=check, capture_output=True, text=True)


def past_tense(answer: str) -> str:
    """``close the drawer`` -> ``The person closed the drawer.``; other answers unchanged."""
    words = answer.split(" ")
    head, _, particle = words[0].partition("-")
    lemmas = getAllLemmas(head, upos="VERB").get("VERB") if len(words) >= 2 else None
    if not lemmas:
        return answer
    past = getInflection(lemmas[0], tag="VBD")[0] + (f" {particle}" if particle else "")
    return "The person " + " ".join([past, *words[1:]]) + "."


def accuracy(results: Path, name: str) -> dict[str, Any]:
    """The scores of the predictions file named ``name`` (``evaluate`` lists its built-in
    most-likely baseline beside it)."""
    models = json.loads(results.read_text())["models"]
    (model,) = [m for m in models if m["name"] == name]
    return {
        "accuracy": model["accuracy"],
        "questions_scored": model["questions_scored"],
        "answered": model["coverage"]["answered"],
        "questions": model["coverage"]["questions"],
        "partial": model["partial"],
    }


def build_with_pairs(work: Path, corpus: Path, rendered: int, workers: str) -> dict[str, Any]:
    run("render", str(corpus), "--limit", str(rendered), "--workers", workers)
    bench = work / "bench"
    log = work / "build.log"
    started = time.perf_counter()
    # when the redirected log holds lines, seconds into the build: a log that fills only at
    # the end says nothing while it runs
    seen_lines: dict[int, float] = {}
    with log.open("w") as stream:
        process = subprocess.Popen(
            [*TASKQA, "build", str(corpus), "--out", str(bench), "--pairs", "--workers", workers],
            stdout=stream,
            stderr=subprocess.STDOUT,
        )
        while process.poll() is None:
            time.sleep(0.5)
            lines = len(log.read_text().splitlines())
            seen_lines.setdefault(lines, round(time.perf_counter() - started, 1))
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"build failed:\n{log.read_text()}")
    folder = Benchmark(bench)
    with_video = {row.clip for row in folder.videos().rows if row.video.is_file()}
    questions = {
        q.id: q for split in ("train", "val", "test") for q in folder.questions("pairs", split)
    }
    sides = [
        (
            questions[p["a"]].question.clip in with_video,
            questions[p["b"]].question.clip in with_video,
        )
        for p in folder.pairs()
    ]
    exports = {
        kind: run(
            "export",
            kind,
            str(bench),
            "--out",
            str(work / f"export-{kind}"),
            "--allow-missing-videos",
            check=False,
        ).returncode  # fmt: skip
        for kind in ("hf", "lmms-eval")
    }
    return {
        "build_seconds": round(seconds, 1),
        "log_lines": len(log.read_text().splitlines()),
        "seconds_to_first_log_line": min((t for n, t in seen_lines.items() if n), default=None),
        "log_lines_by_half_time": max(
            (n for n, t in seen_lines.items() if t <= seconds / 2), default=0
        ),
        "pairs": len(sides),
        "pairs_rendered_both_sides": sum(a and b for a, b in sides),
        "pairs_rendered_one_side": sum(a != b for a, b in sides),
        "export_exit_codes_allow_missing": exports,
    }


def render_benchmark(work: Path, workers: str) -> dict[str, Any]:
    bench = work / "bench"
    started = time.perf_counter()
    run("render", str(bench), "--workers", workers)
    seconds = time.perf_counter() - started
    exports = {
        kind: run(
            "export", kind, str(bench), "--out", str(work / f"export-{kind}-full"), check=False
        ).returncode
        for kind in ("hf", "lmms-eval")
    }
    return {"render_bench_seconds": round(seconds, 1), "export_exit_codes": exports}


def scoring(work: Path) -> dict[str, Any]:
    bench = work / "bench"
    oracle = work / "oracle.jsonl"
    run("baseline", "oracle", "-b", str(bench), "-o", str(oracle))
    lines = [json.loads(line) for line in oracle.read_text().splitlines()]
    past = [{**r, "prediction": past_tense(r["prediction"])} for r in lines]
    changed = sum(a["prediction"] != b["prediction"] for a, b in zip(lines, past, strict=True))
    (work / "past.jsonl").write_text("".join(json.dumps(r) + "\n" for r in past))
    (work / "five.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines[:5]))
    run("evaluate", "-b", str(bench), "-p", str(work / "past.jsonl"), "-o", str(work / "ev-past"))
    refused = run("evaluate", "-b", str(bench), "-p", str(work / "five.jsonl"),
                  "-o", str(work / "ev-five"), check=False)  # fmt: skip
    run("evaluate", "-b", str(bench), "-p", str(work / "five.jsonl"), "-o", str(work / "ev-five"),
        "--allow-partial")  # fmt: skip
    return {
        "test_questions": len(lines),
        "answers_put_in_past_tense": changed,
        "past_tense_oracle": accuracy(work / "ev-past" / "results.json", "past"),
        "five_answers_without_allow_partial_exit": refused.returncode,
        "five_answers_allow_partial": accuracy(work / "ev-five" / "results.json", "five"),
    }


def errors(work: Path) -> dict[str, Any]:
    bench = work / "bench"
    started = time.perf_counter()
    closed = run("baseline", "chat", "-b", str(bench), "-o", str(work / "chat.jsonl"),
                 "--base-url", "http://127.0.0.1:9/v1", "--frames", "0", check=False)  # fmt: skip
    seconds = time.perf_counter() - started
    notes = work / "notes.txt"
    notes.write_text("my precious notes\n")
    written = run("generate", str(bench / "corpus"), "--out", str(notes), check=False)
    return {
        "chat_closed_port": {
            "exit": closed.returncode,
            "seconds": round(seconds, 2),
            "lines": len((closed.stdout + closed.stderr).strip().splitlines()),
            "said": (closed.stdout + closed.stderr).strip(),
        },
        "generate_onto_notes": {
            "exit": written.returncode,
            "notes_untouched": notes.read_text() == "my precious notes\n",
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--episodes", default="30")
    parser.add_argument("--seed", default="5")
    parser.add_argument("--rendered", type=int, default=3)
    parser.add_argument("--workers", default="2")
    parser.add_argument("--skip-render-bench", action="store_true")
    args = parser.parse_args()
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / "corpus"
    run("simulate", "--episodes", args.episodes, "--seed", args.seed, "--out", str(corpus),
        "--overwrite")  # fmt: skip
    report: dict[str, Any] = {"episodes": int(args.episodes), "rendered": args.rendered}
    report["build_pairs"] = build_with_pairs(work, corpus, args.rendered, args.workers)
    report["scoring"] = scoring(work)
    report["errors"] = errors(work)
    if not args.skip_render_bench:
        report["render_bench"] = render_benchmark(work, args.workers)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
