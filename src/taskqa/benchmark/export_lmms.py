"""``taskqa export lmms-eval``: a task folder lmms-eval's task loader reads (open-answer format).

The folder holds one task YAML per split family (``taskqa_normal``, ``taskqa_indirect``), the
questions as Parquet (loaded through ``datasets``' parquet builder, which lmms-eval calls with
``dataset_path`` and ``dataset_kwargs``), ``videos.csv`` and ``utils.py`` with the document
functions the YAML names with ``!function``. Answers are scored by exact match after the same
normalization (lower case, no punctuation or articles, yes/no synonyms) as ``taskqa evaluate``;
per-category accuracy comes from ``taskqa evaluate`` on a predictions file, since lmms-eval
aggregates one number per metric.

lmms-eval itself is not a dependency (it pulls in PyTorch and model code); the folder is checked
against the loader's required keys and its functions are run on real documents in the tests.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from taskqa.atomic import staged_directory, write_text
from taskqa.benchmark.build import FAMILIES
from taskqa.benchmark.export_hf import export_hf

TASK_YAML = """\
# lmms-eval task written by taskqa ({family} split family). A question's clip is videos/<clip>.mp4
# beside this file when the benchmark was built from a rendered corpus (its `video` field);
# otherwise cut each clip's shown part (videos.csv: video, start_s, end_s) to
# $TASKQA_VIDEO_ROOT/<clip id with '|' replaced by '_'>.mp4 before running.
task: taskqa_{family}
dataset_path: parquet
dataset_kwargs:
  data_files:
    train: {data}/{family}/train.parquet
    validation: {data}/{family}/validation.parquet
    test: {data}/{family}/test.parquet
test_split: test
output_type: generate_until
doc_to_visual: !function utils.doc_to_visual
doc_to_text: !function utils.doc_to_text
doc_to_target: answer
generation_kwargs:
  max_new_tokens: 16
  temperature: 0
  do_sample: false
process_results: !function utils.process_results
metric_list:
  - metric: accuracy
    aggregation: !function utils.mean
    higher_is_better: true
  - metric: accuracy_open
    aggregation: !function utils.mean
    higher_is_better: true
  - metric: accuracy_binary
    aggregation: !function utils.mean
    higher_is_better: true
lmms_eval_specific_kwargs:
  default:
    pre_prompt: ""
    post_prompt: "\\nAnswer the question with a single word or phrase."
metadata:
  version: 1.0
"""

UTILS = '''\
"""Document functions of the taskqa lmms-eval tasks (written by `taskqa export lmms-eval`)."""

import os
import re

ARTICLES = re.compile(r"\\b(a|an|the)\\b")
PUNCTUATION = re.compile(r"[^\\w\\s-]")
SYNONYMS = {"yeah": "yes", "yep": "yes", "true": "yes", "nope": "no", "false": "no"}


def normalize(text):
    """Lower case, no punctuation, no articles, single spaces, yes/no synonyms."""
    text = ARTICLES.sub(" ", PUNCTUATION.sub(" ", str(text).lower()))
    text = " ".join(text.split())
    return SYNONYMS.get(text, text)


HERE = os.path.dirname(os.path.abspath(__file__))


def doc_to_visual(doc):
    if doc.get("video"):
        return [os.path.join(HERE, doc["video"])]
    root = os.environ.get("TASKQA_VIDEO_ROOT", "videos")
    return [os.path.join(root, doc["clip"].replace("|", "_") + ".mp4")]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    kwargs = lmms_eval_specific_kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{doc['question']}{kwargs.get('post_prompt', '')}"


def process_results(doc, results):
    correct = float(normalize(results[0]) == normalize(doc["answer"]))
    binary = doc["answer"] in ("yes", "no")
    return {
        "accuracy": correct,
        "accuracy_open": None if binary else correct,
        "accuracy_binary": correct if binary else None,
    }


def mean(items):
    values = [item for item in items if item is not None]
    return 100.0 * sum(values) / len(values) if values else 0.0
'''


def export_lmms_eval(bench: Path, out: Path) -> list[Path]:
    """Write the lmms-eval task folder for ``bench`` to ``out``; return its files."""
    target = out.resolve()
    with staged_directory(out) as stage:
        export_hf(bench, stage / "hf")
        data = stage / "data"
        shutil.move(stage / "hf" / "data", data)
        shutil.move(stage / "hf" / "videos.csv", stage / "videos.csv")
        if (stage / "hf" / "videos").is_dir():
            shutil.move(stage / "hf" / "videos", stage / "videos")
        shutil.rmtree(stage / "hf")
        for family in FAMILIES:
            text = TASK_YAML.format(family=family, data=(target / "data").as_posix())
            write_text(stage / f"taskqa_{family}.yaml", text)
        write_text(stage / "utils.py", UTILS)
    return sorted(p for p in out.rglob("*") if p.is_file())
