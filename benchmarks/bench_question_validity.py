"""Does a taskqa benchmark need the video, and does it cover what EgoTaskQA asks? The targets
of issues 12, 22 and 23, measured with the real CLI.

Runs `taskqa simulate` (400 episodes, seed 5), `taskqa generate`, `taskqa build` with default
options, `taskqa check` on every balanced question, and on the normal and indirect test splits
`taskqa baseline oracle / most-likely / text-only` and `taskqa evaluate`; then reads the
manifest, `diagnostics/diagnostics.json` and each `results.json` and prints PASS/FAIL per target
with the measured figure, the shortcut table (most likely, question-text memorisation, the
build's text classifier, text-only logistic regression) and the templates where a text model
leads most likely by more than 15 points. Everything is also written as JSON.

    .venv/bin/python benchmarks/bench_question_validity.py [--work DIR]
        [--corpus DIR --candidates FILE] [--build-option=--balance-by=type ...]

With --work the folder is kept and steps whose output already exists are skipped, so a second
run only scores again; --build-option passes options to `taskqa build` (to compare balancings).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SPLITS = ("normal/test", "indirect/test")
BASELINES = ("oracle", "most-likely", "text-only")
CATEGORY_MIN = 300  # categories with fewer test questions are too noisy to hold to a target
FLAG_POINTS = 15.0
FLAG_QUESTIONS = 20  # as the build report: fewer test questions are too few to call a leak


@dataclass(frozen=True)
class Target:
    name: str
    measured: float
    limit: str
    passed: bool


def _taskqa(*args: str) -> list[str]:
    return [sys.executable, "-m", "taskqa", *args]


def _run(label: str, command: Sequence[str], output: Path | None, timings: dict[str, float]) -> str:
    """Run one CLI step unless its output exists; return what it printed."""
    if output is not None and output.exists():
        return ""
    print(f"  {label} ...", file=sys.stderr, flush=True)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    timings[label] = round(time.perf_counter() - start, 1)
    if done.returncode != 0 and not label.startswith("check"):
        raise SystemExit(f"{label} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout + done.stderr


def pipeline(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    timings: dict[str, float] = {}
    corpus = args.corpus or work / "corpus"
    candidates = args.candidates or work / "candidates.jsonl"
    bench = work / "bench"
    episodes, seed = str(args.episodes), str(args.seed)
    _run(
        "simulate",
        _taskqa("simulate", "--episodes", episodes, "--seed", seed, "--out", str(corpus)),
        corpus,
        timings,
    )
    _run(
        "generate",
        _taskqa("generate", str(corpus), "--out", str(candidates), "--workers", str(args.workers)),
        candidates,
        timings,
    )
    build = ["build", str(corpus), "--out", str(bench), "--candidates", str(candidates)]
    _run("build", _taskqa(*build, *args.build_option), bench, timings)
    differing = 0
    for split in ("train", "val", "test"):
        marker = work / f"check-{split}.txt"
        if not marker.exists():
            questions = bench / "splits" / "normal" / f"{split}.jsonl"
            printed = _run(
                f"check {split}",
                _taskqa("check", str(questions), "--annotations", str(corpus)),
                None,
                timings,
            )
            marker.write_text(printed)
        differing += _differences(marker.read_text())
    results = {}
    for split in SPLITS:
        name = split.replace("/", "-")
        predictions = []
        for baseline in BASELINES:
            path = work / "predictions" / f"{name}-{baseline}.jsonl"
            command = _taskqa("baseline", baseline, "-b", str(bench), "-o", str(path))
            _run(f"{baseline} {split}", [*command, "--split", split], path, timings)
            predictions += ["-p", str(path)]
        out = work / f"evaluation-{name}"
        evaluate = _taskqa("evaluate", "-b", str(bench), *predictions, "-o", str(out))
        _run(f"evaluate {split}", [*evaluate, "--split", split, "--resamples", "100"], out, timings)
        results[split] = json.loads((out / "results.json").read_text())
    unknown = sum(line.count('"unknown"') for line in (corpus / "recordings.jsonl").open())
    test_records = [
        json.loads(line) for line in (bench / "splits" / "normal" / "test.jsonl").open()
    ]
    return {
        "corpus_unknown_values": unknown,
        "normal_test_shares": _shares(test_records),
        "normal_test_category_chance": _category_chance(bench, test_records),
        "manifest": json.loads((bench / "manifest.json").read_text()),
        "diagnostics": json.loads((bench / "diagnostics" / "diagnostics.json").read_text()),
        "results": results,
        "check_differences": differing,
        "timings_s": timings,
    }


def _shares(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Share (%) of test questions in each category tag (multi-label; the build's tags)."""
    from taskqa.questions.tags import category_tags

    counts: dict[str, int] = {}
    for record in records:
        for tag in category_tags(record):
            counts[tag] = counts.get(tag, 0) + 1
    return {tag: round(100 * n / len(records), 2) for tag, n in sorted(counts.items())}


def _category_chance(bench: Path, test: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Per category (type, scope, semantic): questions and mean chance (%) on normal test."""
    from taskqa.benchmark.diagnostics import chance_values
    from taskqa.questions.tags import category_tags

    train = [json.loads(line) for line in (bench / "splits" / "normal" / "train.jsonl").open()]
    sums: dict[str, list[float]] = {}
    for record, value in zip(test, chance_values(train, test), strict=True):
        for tag in category_tags(record):
            sums.setdefault(tag, []).append(value)
    return {t: {"questions": len(v), "chance": 100 * sum(v) / len(v)} for t, v in sums.items()}


def _differences(printed: str) -> int:
    for line in printed.splitlines():
        if "questions differ" in line:
            return int(line.split()[0])
    return 0 if "answers reproduced" in printed else -1  # -1: check failed to run


def _model(results: Mapping[str, Any], baseline: str) -> Mapping[str, Any]:
    """The breakdowns of a baseline's predictions file (named ``<split>-<baseline>``)."""
    for model in results["models"]:
        if model["name"].endswith(f"-{baseline}"):
            return dict(model["breakdowns"])
    raise KeyError(baseline)


def _accuracy(breakdowns: Mapping[str, Any], group: str, key: str) -> float:
    found = breakdowns[group].get(key)
    return 100 * float(found["accuracy"]) if found else float("nan")  # no such questions


def shortcut_table(measured: Mapping[str, Any]) -> dict[str, dict[str, dict[str, float]]]:
    """split -> baseline -> all / binary / open accuracy (%): the issue's table."""
    table: dict[str, dict[str, dict[str, float]]] = {}
    for split in SPLITS:
        family = split.split("/")[0]
        rows: dict[str, dict[str, float]] = {}
        for name, scores in measured["diagnostics"][family]["baselines"].items():
            # a split with no open (or no yes/no) question has no score for it
            rows[name] = {
                k: float("nan") if scores[k] is None else float(scores[k])
                for k in ("all", "binary", "open")
            }
        lr = _model(measured["results"][split], "text-only")
        rows["text-only (LR)"] = {
            "all": _accuracy(lr, "overall", "all"),
            **{k: _accuracy(lr, "open_binary_answer", k) for k in ("binary", "open")},
        }
        table[split] = rows
    return table


def targets(measured: Mapping[str, Any]) -> list[Target]:
    normal, indirect = measured["results"]["normal/test"], measured["results"]["indirect/test"]
    lr, likely = _model(normal, "text-only"), _model(normal, "most-likely")
    oracle = min(
        _accuracy(_model(measured["results"][s], "oracle"), "overall", "all") for s in SPLITS
    )
    balanced = measured["manifest"]["counts"]["balanced"]
    gap = _accuracy(lr, "overall", "all") - _accuracy(likely, "overall", "all")
    worst_name, worst_gap = "", float("-inf")
    for group in ("type", "scope", "semantic"):
        for category, scores in lr[group].items():
            if scores["questions"] >= CATEGORY_MIN:
                lead = 100 * (scores["accuracy"] - likely[group][category]["accuracy"])
                if lead > worst_gap:
                    worst_name, worst_gap = f"{group}/{category}", lead
    binary = _accuracy(lr, "open_binary_answer", "binary")
    baselines = measured["diagnostics"]["normal"]["baselines"]
    memorised = baselines["question text"]["all"] - baselines["most likely"]["all"]
    indirect_binary = _accuracy(_model(indirect, "text-only"), "open_binary_answer", "binary")
    differing = measured["check_differences"]
    shares = measured["normal_test_shares"]
    chance = measured["diagnostics"]["normal"].get("chance", {}).get("all", 0.0)
    reference = max(_accuracy(likely, "overall", "all"), chance)
    over_reference = _accuracy(lr, "overall", "all") - reference
    worst_category, worst_over = "", float("-inf")
    for group in ("type", "scope", "semantic"):
        for category, scores in lr[group].items():
            by_chance = measured["normal_test_category_chance"].get(f"{group}/{category}")
            if scores["questions"] >= CATEGORY_MIN and by_chance:
                bound = max(100 * likely[group][category]["accuracy"], by_chance["chance"])
                if 100 * scores["accuracy"] - bound > worst_over:
                    worst_category = f"{group}/{category}"
                    worst_over = 100 * scores["accuracy"] - bound
    families = []
    for family in ("novel-composition", "more-steps", "held-out-objects"):
        result = measured["diagnostics"].get(family, {})
        test = measured["manifest"]["counts"].get(f"{family}/test", 0)
        families.append(Target(f"{family}: test questions", test, ">= 3,000", test >= 3000))
        if "baselines" in result:
            floor = max(result["baselines"]["most likely"]["all"], result["chance"]["all"])
            lead = (
                max(
                    result["baselines"][name]["all"]
                    for name in ("question text", "text classifier")
                )
                - floor
            )
            families.append(
                Target(f"{family}: text - max(most likely, chance)", lead, "<= 3", lead <= 3)
            )
    coverage = [
        Target(
            f"normal test share: {tag}",
            shares.get(tag, 0.0),
            f">= {least}%",
            shares.get(tag, 0) >= least,
        )
        for tag, least in [
            *((f"semantic/{s}", 15) for s in ("action", "object", "state", "change")),
            *(
                (f"type/{t}", 10)
                for t in ("descriptive", "predictive", "counterfactual", "explanatory")
            ),
            *((f"scope/{s}", 10) for s in ("world", "intent", "multi-agent")),
        ]
    ]
    unknown = measured["corpus_unknown_values"]
    return [
        Target("issue 22: balanced questions", balanced, ">= 30,000", balanced >= 30_000),
        Target("issue 23: balanced questions", balanced, ">= 40,000", balanced >= 40_000),
        Target("issue 22: unknown values in the corpus", unknown, "= 0", unknown == 0),
        Target(
            "normal: text-only - max(most likely, chance)",
            over_reference,
            "<= 3",
            over_reference <= 3,
        ),
        Target(
            f"normal: worst category over its bound ({worst_category})",
            worst_over,
            "<= 3",
            worst_over <= 3,
        ),
        *coverage,
        *families,
        Target("balanced questions", balanced, ">= 30,000", balanced >= 30_000),
        Target("oracle accuracy, both test splits (%)", oracle, "= 100", oracle >= 100.0),
        Target("taskqa check: answers that differ", differing, "= 0", differing == 0),
        Target("normal: text-only - most likely (points)", gap, "<= 5", gap <= 5),
        Target(f"normal: worst category lead ({worst_name})", worst_gap, "<= 10", worst_gap <= 10),
        Target("normal: text-only on yes/no (%)", binary, "45 to 55", 45 <= binary <= 55),
        Target("normal: question text - most likely (points)", memorised, "<= 3", memorised <= 3),
        Target(
            "indirect: text-only on yes/no (%; nan: the split has none)",
            indirect_binary,
            "45 to 55",
            indirect_binary != indirect_binary or 45 <= indirect_binary <= 55,
        ),
    ]


def template_flags(measured: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Normal-test templates (20+ questions) where a text model leads most likely by >15."""
    lr = _model(measured["results"]["normal/test"], "text-only")["template"]
    likely = _model(measured["results"]["normal/test"], "most-likely")["template"]
    flags = []
    for row in measured["diagnostics"]["normal"]["templates"]:
        template = row["template"]
        lr_lead = 100 * (lr[template]["accuracy"] - likely[template]["accuracy"])
        if row["flagged"] or (lr_lead > FLAG_POINTS and row["questions"] >= FLAG_QUESTIONS):
            flags.append(
                {
                    "template": template,
                    "questions": row["questions"],
                    "most likely": row["most likely"],
                    "text classifier": row["text classifier"],
                    "text-only (LR)": round(100 * lr[template]["accuracy"], 2),
                    "lead (classifier)": row["lead"],
                    "lead (LR)": round(lr_lead, 2),
                }
            )
    return flags


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--work", type=Path, help="keep every file here (default: a temp folder)")
    parser.add_argument("--corpus", type=Path, help="reuse a simulated corpus")
    parser.add_argument("--candidates", type=Path, help="reuse `taskqa generate` output")
    parser.add_argument("--build-option", action="append", default=[], help="passed to build")
    parser.add_argument("--json", type=Path, default=Path("out/bench/question_validity.json"))
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="taskqa-validity-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        measured = pipeline(args, work)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    checks = targets(measured)
    table = shortcut_table(measured)
    flags = template_flags(measured)
    print(f"{'target':<58} {'measured':>10}  {'limit':<10} result")
    for check in checks:
        verdict = "PASS" if check.passed else "FAIL"
        print(f"{check.name:<58} {check.measured:>10,.2f}  {check.limit:<10} {verdict}")
    print(f"\n{'test split / baseline':<40} {'all':>7} {'binary':>7} {'open':>7}")
    for split, rows in table.items():
        for name, scores in rows.items():
            cells = "".join(f" {scores[k]:>7.2f}" for k in ("all", "binary", "open"))
            print(f"{split + ': ' + name:<40}{cells}")
    print(
        f"\ntemplates with {FLAG_QUESTIONS}+ test questions and a text baseline more than "
        f"{FLAG_POINTS:.0f} points above most likely:"
    )
    for flag in flags:
        print(
            f"  {flag['template']:<52} n={flag['questions']:<5} most likely "
            f"{flag['most likely']:5.1f}  classifier {flag['text classifier']:5.1f}  "
            f"LR {flag['text-only (LR)']:5.1f}"
        )
    if not flags:
        print("  none")
    summary = {
        "episodes": args.episodes,
        "seed": args.seed,
        "build_options": args.build_option,
        "targets": [check.__dict__ for check in checks],
        "shortcuts": table,
        "flagged_templates": flags,
        "balancing": measured["diagnostics"].get("balancing"),
        "counts": measured["manifest"]["counts"],
        "timings_s": measured["timings_s"],
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
