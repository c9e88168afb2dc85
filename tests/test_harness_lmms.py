"""The exports run by the real harnesses (in .venv-harness: `make harness`): the lmms-eval task
folder by lmms-eval 0.7.3, the VLMEvalKit dataset by ms-vlmeval 0.0.20 (VLMEvalKit on PyPI).

A scripted model answers five questions of the open-ended task (right, wrong, verbose, in
capitals, unanswerable) and two whole multiple-choice items (every rotation; right, stated as a
sentence, wrong); lmms-eval loads the exported task folder, builds the documents, scores them
with the exported functions and writes its results file. Those results must equal what
`taskqa evaluate` and `taskqa evaluate --mc` give on the same replies. On a benchmark built with
`--pairs`, both harnesses also score minimal pairs (both questions right) as `taskqa evaluate`
does. lmms-eval exits 0 even
after some errors, so the results file is read, never the exit code alone.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import test_clip_videos
from taskqa.benchmark.balance import BalanceConfig
from taskqa.benchmark.build import BuildConfig, build_benchmark
from taskqa.benchmark.multiple_choice import read_choice_export, score_choices
from taskqa.cli import app
from taskqa.household.corpus_videos import render_corpus
from taskqa.household.options import RenderOptions
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain

rendered_bench = test_clip_videos.rendered_bench  # five rendered recordings, built
ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / ".venv-harness" / "bin" / "python"
RUNNER = Path(__file__).resolve().parent / "harness" / "run_scripted.py"
OPEN_PROMPT = (
    "\nAnswer with a short phrase only: yes or no for a yes/no question; an action as a verb "
    "phrase (open the fridge); a purpose as to and a verb phrase (to open the fridge); else a "
    "few words (the blue mug)."
)


def _harness_problem(module: str) -> str | None:
    if not HARNESS.is_file():
        return f"{HARNESS.parent.parent} is missing; `make harness` installs the harnesses there"
    found = subprocess.run(
        [str(HARNESS), "-c", f"import {module}"], capture_output=True, text=True, timeout=300
    )
    if found.returncode != 0:
        return f"{module} does not import in .venv-harness: {found.stderr.strip()[-300:]}"
    return None


PROBLEM = _harness_problem("lmms_eval")
VLMEVAL_PROBLEM = _harness_problem("vlmeval.dataset.video_base")
needs_lmms_eval = pytest.mark.skipif(PROBLEM is not None, reason=str(PROBLEM))
needs_vlmeval = pytest.mark.skipif(VLMEVAL_PROBLEM is not None, reason=str(VLMEVAL_PROBLEM))


def _run_vlmeval(
    export: Path, dataset: str, nframe: int, replies: dict[str, str], tmp_path: Path
) -> dict[str, Any]:
    """Run VLMEvalKit's dataset class on the export with scripted replies; what it saw and
    scored (tests/harness/run_vlmeval.py writes it)."""
    (tmp_path / "replies.json").write_text(json.dumps(replies))
    frames_root = tmp_path / "LMUData"
    frames_root.mkdir()
    environment = {**os.environ, "LMUData": str(frames_root), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [str(HARNESS), str(RUNNER.with_name("run_vlmeval.py")), str(export), dataset,
         str(nframe), str(tmp_path / "replies.json"), str(tmp_path / "seen.json")],
        capture_output=True, text=True, timeout=600, env=environment, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    seen: dict[str, Any] = json.loads((tmp_path / "seen.json").read_text())
    return seen


def _scripted(docs: list[dict]) -> list[str]:
    """Five replies: right, wrong, verbose (not extracted), in capitals, none."""
    styles = [
        lambda d: d["answer"],
        lambda d: "the fridge" if d["answer"] != "the fridge" else "the sink",
        lambda d: f"Looking at the video, I would say {d['answer']}.",
        lambda d: d["answer"].upper() + ".",
        lambda d: "I cannot tell from these frames",
    ]
    return [style(d) for d, style in zip(docs, styles, strict=False)]


def _taskqa_accuracy(
    bench: Path, replies: dict[str, str], work: Path, split: str = "normal/test"
) -> dict:
    """``taskqa evaluate`` on the replies of a sampled run (scored on what it answered)."""
    work.mkdir(parents=True, exist_ok=True)
    predictions = work / "scripted.jsonl"
    predictions.write_text(
        "".join(json.dumps({"question_id": q, "prediction": r}) + "\n" for q, r in replies.items())
    )
    (work / "scripted.meta.json").write_text(json.dumps({"scored_on": "answered"}))
    evaluated = CliRunner().invoke(
        app,
        ["evaluate", "-b", str(bench), "-p", str(predictions), "-o", str(work / "evaluation"),
         "--split", split, "--allow-partial", "--no-most-likely"],
    )  # fmt: skip
    assert evaluated.exit_code == 0, evaluated.output
    model: dict = json.loads((work / "evaluation" / "results.json").read_text())["models"][0]
    assert model["questions_scored"] == len(replies)
    return model


def _lmms_eval(
    export: Path,
    task: str,
    limit: int,
    replies: dict[str, str],
    out: Path,
    clip_fps: float = test_clip_videos.FPS,
) -> dict:
    script = out / "replies.json"
    out.mkdir(parents=True, exist_ok=True)
    script.write_text(json.dumps(replies))
    environment = {**os.environ, "TASKQA_SCRIPTED_REPLIES": str(script)}
    environment.update({"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "WANDB_MODE": "offline"})
    done = subprocess.run(
        [str(HARNESS), str(RUNNER), "--model", "taskqa_scripted", "--tasks", task,
         "--include_path", str(export), "--limit", str(limit), "--output_path", str(out / "out"),
         "--log_samples", "--force_simple"],
        capture_output=True, text=True, timeout=600, env=environment, cwd=out,
    )  # fmt: skip
    found = sorted((out / "out").rglob("*_results.json"))
    assert found, f"lmms-eval wrote no results (exit {done.returncode}): {done.stderr[-2000:]}"
    written = json.loads(found[-1].read_text())
    # the export's frame sampling travels into lmms-eval's own results
    sampling = written["configs"][task]["metadata"]["frame_sampling"]
    assert sampling["clip_fps"] == clip_fps
    results: dict = written["results"][task]
    return results


@pytest.fixture(scope="module")
def export(rendered_bench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lmms") / "task"
    result = CliRunner().invoke(
        app, ["export", "lmms-eval", str(rendered_bench), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


@needs_lmms_eval
def test_lmms_eval_scores_the_open_task_as_taskqa_evaluate(
    rendered_bench: Path, export: Path, tmp_path: Path
) -> None:
    docs = pq.read_table(export / "data" / "normal" / "test.parquet").to_pylist()[:5]
    said = _scripted(docs)
    replies = {d["question"] + OPEN_PROMPT: r for d, r in zip(docs, said, strict=False)}
    results = _lmms_eval(export, "taskqa_normal", 5, replies, tmp_path / "open")
    ours = _taskqa_accuracy(
        rendered_bench, {d["id"]: r for d, r in zip(docs, said, strict=False)}, tmp_path
    )
    assert results["accuracy,none"] == pytest.approx(ours["accuracy"])
    assert 0 < results["accuracy,none"] < 1


@needs_lmms_eval
def test_lmms_eval_scores_multiple_choice_as_taskqa_evaluate_mc(
    rendered_bench: Path, export: Path, tmp_path: Path
) -> None:
    docs = pq.read_table(export / "data" / "normal-mc" / "test.parquet").to_pylist()
    first, second = docs[0], next(d for d in docs if d["question_id"] != docs[0]["question_id"])
    asked = [d for d in docs if d["question_id"] in (first["question_id"], second["question_id"])]
    assert docs[: len(asked)] == asked  # an item's rotations are consecutive documents
    replies = {}
    for doc in asked:
        if doc["question_id"] == first["question_id"]:
            replies[doc["prompt"]] = (
                doc["answer"] if doc["rotation"] % 2 else (f"The answer is ({doc['answer']}).")
            )
        else:  # right in rotation 0 only: a letter it keeps, whatever the options say
            replies[doc["prompt"]] = asked[[d["question_id"] for d in asked].index(
                second["question_id"])]["answer"]  # fmt: skip
    results = _lmms_eval(export, "taskqa_normal_mc", len(asked), replies, tmp_path / "mc")
    out = tmp_path / "mc-export"
    CliRunner().invoke(app, ["export", "mc", str(rendered_bench), "--out", str(out)])
    items = [
        i
        for i in read_choice_export(out, "normal", "test")
        if i.question_id in (first["question_id"], second["question_id"])
    ]
    by_ask = {d["id"]: replies[d["prompt"]] for d in asked}
    scores = score_choices(items, by_ask)["all"]
    assert results["accuracy_item,none"] == pytest.approx(scores["item_accuracy"])
    assert results["accuracy_circular,none"] == pytest.approx(scores["circular_accuracy"])
    assert scores["circular_accuracy"] == pytest.approx(0.5)  # the fixed letter loses its item


@needs_vlmeval
def test_vlmevalkit_loads_the_dataset_and_scores_as_taskqa_evaluate(
    rendered_bench: Path, tmp_path: Path
) -> None:
    """VLMEvalKit's VideoBaseDataset machinery (ms-vlmeval) loads the exported TaskQA class,
    samples the fixed number of frames from a clip's video with decord, and the class's
    evaluate gives `taskqa evaluate`'s accuracy on the same five scripted replies."""
    export = tmp_path / "vlmeval"
    result = CliRunner().invoke(
        app, ["export", "vlmevalkit", str(rendered_bench), "--out", str(export), "--nframe", "3"]
    )
    assert result.exit_code == 0, result.output
    rows = (export / "TaskQA_normal.tsv").read_text().splitlines()
    header = rows[0].split("\t")
    docs = [dict(zip(header, row.split("\t"), strict=False)) for row in rows[1:6]]
    said = _scripted(docs)
    replies = {d["question_id"]: r for d, r in zip(docs, said, strict=False)}
    seen = _run_vlmeval(export, "TaskQA_normal", 3, replies, tmp_path)
    assert "TaskQA_normal" in seen["supported"]
    assert seen["documents"] == len(rows) - 1
    kinds = [kind for kind, _ in seen["message"]]
    assert kinds == ["image", "image", "image", "text"]  # the export's nframe, then the question
    assert all(Path(value).is_file() for kind, value in seen["message"] if kind == "image")
    assert seen["result"]["frame_sampling"] == {"nframe": 3, "fps": -1}
    ours = _taskqa_accuracy(rendered_bench, replies, tmp_path / "ours")
    assert seen["result"]["accuracy"] == pytest.approx(ours["accuracy"])
    assert 0 < seen["result"]["accuracy"] < 1


PAIRS_FPS = 0.5


@pytest.fixture(scope="module")
def paired(tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    """Three episodes rendered (tiny frames), built with minimal pairs: the third episode's
    pairs are the test split's."""
    root = tmp_path_factory.mktemp("paired")
    config = SimulationConfig(episodes=3, seed=5)
    write_simulated_corpus(root / "corpus", config, simulate_corpus(config, domain), domain)
    options = RenderOptions(fps=PAIRS_FPS, width=32, height=32, views=("first",), backend="tiny")
    render_corpus(root / "corpus", options=options)
    balance = BalanceConfig(target=200, balance_by="type")
    build_benchmark(root / "corpus", root / "bench", BuildConfig(balance=balance, pairs=True))
    return root / "bench"


def _watching(docs: list[dict]) -> dict[str, str]:
    """Replies by question id: right on every first side of a pair, and on the second side of
    every other pair (the first side's answer otherwise: the one a blind model would give)."""
    by_id = {d["id"]: d for d in docs}
    replies = {}
    for index, doc in enumerate(d for d in docs if d["pair_side"] == "a"):
        replies[doc["id"]] = doc["answer"]
        partner = by_id[doc["partner_id"]]
        replies[partner["id"]] = partner["answer"] if index % 2 else doc["answer"]
    return replies


@needs_lmms_eval
def test_lmms_eval_scores_minimal_pairs_as_taskqa_evaluate(paired: Path, tmp_path: Path) -> None:
    export = tmp_path / "task"
    result = CliRunner().invoke(app, ["export", "lmms-eval", str(paired), "--out", str(export)])
    assert result.exit_code == 0, result.output
    docs = pq.read_table(export / "data" / "pairs" / "test.parquet").to_pylist()
    assert len(docs) >= 10, "the fixture's test split holds pairs"
    replies = _watching(docs)
    by_document = {f"taskqa_pairs#{i}": replies[d["id"]] for i, d in enumerate(docs)}
    results = _lmms_eval(
        export, "taskqa_pairs", len(docs), by_document, tmp_path / "pairs", PAIRS_FPS
    )
    ours = _taskqa_accuracy(paired, replies, tmp_path / "ours", "pairs/test")
    assert results["accuracy,none"] == pytest.approx(ours["accuracy"])
    assert results["pair_accuracy,none"] == pytest.approx(ours["pairs"]["all"]["pair_accuracy"])
    assert 0 < results["pair_accuracy,none"] < results["accuracy,none"] < 1


@needs_vlmeval
def test_vlmevalkit_scores_minimal_pairs_as_taskqa_evaluate(paired: Path, tmp_path: Path) -> None:
    export = tmp_path / "vlmeval"
    result = CliRunner().invoke(
        app, ["export", "vlmevalkit", str(paired), "--out", str(export), "--nframe", "2"]
    )
    assert result.exit_code == 0, result.output
    rows = (export / "TaskQA_pairs.tsv").read_text().splitlines()
    header = rows[0].split("\t")
    docs = [dict(zip(header, row.split("\t"), strict=True)) for row in rows[1:]]
    # a pair's id is its first question's id, a hyphen, its second's
    sides = [
        {"id": d["question_id"], "answer": d["answer"], "partner_id": d["partner_id"],
         "pair_side": "a" if d["pair_id"].startswith(d["question_id"] + "-") else "b"}
        for d in docs
    ]  # fmt: skip
    replies = _watching(sides)
    seen = _run_vlmeval(export, "TaskQA_pairs", 2, replies, tmp_path)
    ours = _taskqa_accuracy(paired, replies, tmp_path / "ours", "pairs/test")
    assert seen["result"]["accuracy"] == pytest.approx(ours["accuracy"])
    assert seen["result"]["pair_accuracy"] == pytest.approx(ours["pairs"]["all"]["pair_accuracy"])
    assert seen["result"]["pairs"] == ours["pairs"]["all"]["pairs"]
