"""Does a built benchmark ask what a viewer of the clip can answer? The measurable targets of the
issue "Questions a viewer answers", read off a benchmark folder (any version, so the figures of
an older build compare with a newer one).

For each benchmark folder given:

- **references against the clip's shown actions**: every "What was the first/last thing the
  person <did>?" question, its answer compared with the thing the first/last action shown with
  that verb was done to (from the folder's own corpus copy and clips.jsonl; "cleaned" counts
  washing, wiping and sweeping), and the build's own self-check where the folder has one;
- **stiff phrases**: questions carrying one of the phrases a review found no person would use;
- **answers in the wrong form**: a "what was X doing" question answered with a command;
- **tries**: answers that are a failed or partly done action ("try to ...");
- the number of balanced questions and of normal/indirect test questions.

    .venv/bin/python benchmarks/bench_viewer_questions.py BENCH [BENCH ...] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

# what a question says was done -> the verbs whose shown action does it
DONE_BY = {
    "opened": {"open"},
    "closed": {"close"},
    "turned on": {"turn-on"},
    "turned off": {"turn-off"},
    "cut": {"cut"},
    "cleaned": {"wash", "clean", "sweep"},
    "washed": {"wash"},
    "wiped": {"clean"},
    "swept": {"sweep"},
    "filled": {"fill"},
    "cooked": {"cook"},
    "threw away": {"throw"},
}
FIRST_LAST = re.compile(
    r"^What was the (first|last) thing (?:the person|they) (" + "|".join(DONE_BY) + r")\?$"
)
STIFF = {
    "which object's state": re.compile(r"which object's state", re.I),
    "which action changed whether": re.compile(r"which action changed whether", re.I),
    "the state of X still changed": re.compile(r"would the state of .* still have changed", re.I),
    "reference about another attribute": re.compile(
        r"the (?:first|last) thing (?:they|the person) (?:turned on|filled|cut|washed) "
        r"be (?:open or closed|clean or dirty|empty or full|whole, cut)"
        r"|the (?:first|last) thing (?:they|the person) opened be (?:on or off|clean or dirty)",
        re.I,
    ),
}
DOING = re.compile(r"\bwhat (?:was|were|is) .* doing\b", re.I)


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _said(text: str) -> str:
    text = text.strip().lower().removesuffix(".")
    return text.removeprefix("the ").replace("-", " ")


def measure(bench: Path) -> dict[str, Any]:
    splits = bench / "splits"
    questions: dict[str, dict[str, Any]] = {}
    test_counts: dict[str, int] = {}
    for family in ("normal", "indirect"):
        for split in ("train", "val", "test"):
            path = splits / family / f"{split}.jsonl"
            if not path.exists():
                continue
            rows = list(_lines(path))
            if split == "test":
                test_counts[family] = len(rows)
            for row in rows:
                questions.setdefault(row["id"], row)
    actions = {
        r["id"]: {a["id"]: a for a in r["actions"]}
        for r in _lines(bench / "corpus" / "recordings.jsonl")
    }
    clips = {c["id"]: c for c in _lines(bench / "clips.jsonl")}
    first_last = 0
    disagree: list[dict[str, str]] = []
    stiff: Counter[str] = Counter()
    doing_base = doing = tries = 0
    for q in questions.values():
        text, answer = q["question"], q["answer"]
        for name, pattern in STIFF.items():
            if pattern.search(text):
                stiff[name] += 1
        if DOING.search(text) and q.get("answer_kind") != "binary":
            doing += 1
            doing_base += not answer.split(" ")[0].endswith("ing")
        tries += answer.startswith(("try to ", "trying to ", "to try to "))
        match = FIRST_LAST.match(text)
        if match is None:
            continue
        first_last += 1
        order, done = match.groups()
        by_id = actions[q["recording"]]
        clip = clips[q["clip"]]
        shown = sorted((by_id[i] for i in clip["observed"]), key=lambda a: (a["start"], a["end"]))
        doings = [a for a in shown if a["verb"] in DONE_BY[done] and a["slots"].get("patient")]
        expected = None
        if doings:
            expected = (doings[0] if order == "first" else doings[-1])["slots"]["patient"][0]
        said = {_said(answer), *(_said(a) for a in q.get("answer_aliases") or ())}
        if expected is None or _said(expected) not in said:
            disagree.append({"question": text, "answer": answer, "shown": str(expected)})
    diagnostics = json.loads((bench / "diagnostics" / "diagnostics.json").read_text())
    self_check = diagnostics.get("evidence", {}).get("self_check")
    manifest = json.loads((bench / "manifest.json").read_text())
    return {
        "bench": str(bench),
        "balanced": manifest["counts"]["balanced"],
        "test": test_counts,
        "first_last_questions": first_last,
        "first_last_disagreeing": len(disagree),
        "disagreeing_examples": disagree[:10],
        "self_check": None
        if self_check is None
        else {k: self_check[k] for k in ("checked", "referring", "disagreeing") if k in self_check},
        "stiff_phrases": dict(stiff),
        "stiff_total": sum(stiff.values()),
        "doing_questions": doing,
        "doing_answered_as_command": doing_base,
        "try_answers": tries,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("benches", type=Path, nargs="+")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    found = [measure(bench) for bench in args.benches]
    for row in found:
        print(f"\n{row['bench']}: {row['balanced']:,} balanced questions; test {row['test']}")
        print(
            f"  first/last-thing questions: {row['first_last_questions']:,}, "
            f"disagreeing with the clip's shown actions: {row['first_last_disagreeing']:,}"
        )
        for example in row["disagreeing_examples"][:5]:
            print(f"    {example['question']} -> {example['answer']} (shown: {example['shown']})")
        print(f"  self-check: {row['self_check']}")
        print(f"  stiff phrases: {row['stiff_total']:,} {row['stiff_phrases']}")
        print(
            f"  'doing' questions: {row['doing_questions']:,}, answered as a command: "
            f"{row['doing_answered_as_command']:,}; answers that are a try: {row['try_answers']:,}"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
