"""The lmms-eval export run by the real lmms-eval (0.7.3, in .venv-harness: `make harness`).

A scripted model answers five questions of the open-ended task (right, wrong, verbose, in
capitals, unanswerable) and two whole multiple-choice items (every rotation; right, stated as a
sentence, wrong); lmms-eval loads the exported task folder, builds the documents, scores them
with the exported functions and writes its results file. Those results must equal what
`taskqa evaluate` and `taskqa evaluate --mc` give on the same replies. lmms-eval exits 0 even
after some errors, so the results file is read, never the exit code alone.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import test_clip_videos
from taskqa.benchmark.multiple_choice import read_choice_export, score_choices
from taskqa.cli import app

rendered_bench = test_clip_videos.rendered_bench  # five rendered recordings, built
ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / ".venv-harness" / "bin" / "python"
RUNNER = Path(__file__).resolve().parent / "harness" / "run_scripted.py"
OPEN_PROMPT = "\nAnswer the question with a single word or phrase."


def _harness_problem() -> str | None:
    if not HARNESS.is_file():
        return f"{HARNESS.parent.parent} is missing; `make harness` installs lmms-eval there"
    found = subprocess.run(
        [str(HARNESS), "-c", "import lmms_eval"], capture_output=True, text=True, timeout=300
    )
    if found.returncode != 0:
        return f"lmms-eval does not import in .venv-harness: {found.stderr.strip()[-300:]}"
    return None


PROBLEM = _harness_problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=str(PROBLEM))


def _lmms_eval(export: Path, task: str, limit: int, replies: dict[str, str], out: Path) -> dict:
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
    assert sampling["clip_fps"] == test_clip_videos.FPS
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


def test_lmms_eval_scores_the_open_task_as_taskqa_evaluate(
    rendered_bench: Path, export: Path, tmp_path: Path
) -> None:
    docs = pq.read_table(export / "data" / "normal" / "test.parquet").to_pylist()[:5]
    binary = next((d for d in docs if d["answer"] in ("yes", "no")), None)
    styles = [
        lambda d: d["answer"],  # right
        lambda d: "the fridge" if d["answer"] != "the fridge" else "the sink",  # wrong
        lambda d: f"Looking at the video, I would say {d['answer']}.",  # verbose: not extracted
        lambda d: d["answer"].upper() + ".",  # right, in capitals with a full stop
        lambda d: "I cannot tell from these frames",  # no answer
    ]
    replies = {
        d["question"] + OPEN_PROMPT: style(d) for d, style in zip(docs, styles, strict=False)
    }
    results = _lmms_eval(export, "taskqa_normal", 5, replies, tmp_path / "open")
    predictions = tmp_path / "scripted.jsonl"
    predictions.write_text(
        "".join(
            json.dumps({"question_id": d["id"], "prediction": replies[d["question"] + OPEN_PROMPT]})
            + "\n"
            for d in docs
        )
    )
    # the five questions only: a sampled run is scored on the questions it answered
    (tmp_path / "scripted.meta.json").write_text(json.dumps({"scored_on": "answered"}))
    evaluated = CliRunner().invoke(
        app,
        ["evaluate", "-b", str(rendered_bench), "-p", str(predictions), "-o",
         str(tmp_path / "evaluation"), "--allow-partial", "--no-most-likely"],
    )  # fmt: skip
    assert evaluated.exit_code == 0, evaluated.output
    ours = json.loads((tmp_path / "evaluation" / "results.json").read_text())["models"][0]
    assert ours["questions_scored"] == 5
    assert results["accuracy,none"] == pytest.approx(ours["accuracy"])
    assert 0 < results["accuracy,none"] < 1
    if binary is not None:
        assert "accuracy_binary,none" in results


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
