"""``taskqa export lmms-eval``: a task folder lmms-eval's task loader reads (open-answer format).

The folder holds one task YAML per split family (``taskqa_normal``, ``taskqa_indirect``), the
questions as Parquet (loaded through ``datasets``' parquet builder, which lmms-eval calls with
``dataset_path`` and ``dataset_kwargs``), ``videos.csv``, the clip videos (``videos/``), and
``utils.py`` with the document functions the YAML names with ``!function``.

Scoring is ``taskqa evaluate``'s: ``utils.py`` compares answers with taskqa's own normaliser,
whose source (``taskqa.answers``) is copied verbatim beside it as ``taskqa_normalize.py``, so a
prediction lmms-eval counts correct is exactly one ``taskqa evaluate`` counts correct. Its
version (``NORMALIZATION_VERSION``) is in the YAML's ``metadata`` and in ``utils.py``. Nothing in
the folder imports taskqa: lmms-eval loads ``utils.py`` from its file path, without taskqa.

Standard errors: the per-question values ``process_results`` returns are fractions (0 or 1, not
percent) in a dict with the question's clip, and the YAML's ``cluster_key: clip`` makes
lmms-eval (0.6 and later) report a clustered standard error as well, since the ~5 questions
about one clip are not independent. Per-category accuracy comes from ``taskqa evaluate`` on a
predictions file, since lmms-eval aggregates one number per metric.

Minimal pairs (a build with ``--pairs``): the ``taskqa_pairs`` task also reports
``pair_accuracy``, the share of pairs whose two questions are both right (``utils.pair_accuracy``
groups the per-question scores by the documents' ``pair_id``; a pair with a question not asked,
as under ``--limit``, is left out, as ``taskqa evaluate`` leaves it out).

lmms-eval itself is not a dependency (it pulls in PyTorch and model code); the folder is checked
against the loader's required keys and its functions are run on real documents in the tests.
"""

from __future__ import annotations

import inspect
import shutil
from collections.abc import Sequence
from pathlib import Path

import taskqa.answers as answers
from taskqa import __version__
from taskqa.atomic import staged_directory, write_text
from taskqa.benchmark.export_hf import ExportedFiles, export_hf
from taskqa.benchmark.folder import PAIR_FAMILY, PAIRS, VIDEOS, families_in

NORMALIZER_FILE = "taskqa_normalize.py"

# Clustering, as lmms-eval documents it (docs/releases/lmms-eval-0.6.md, "Clustered Samples";
# lmms_eval/api/task.py TaskConfig.cluster_key / score_key; lmms_eval/evaluator_utils.py
# TaskOutput.calculate_clt_aggregate_metric): a top-level ``cluster_key`` in the task YAML names
# a field of the dict that ``process_results`` returns for each metric, and ``score_key``
# (default "score") the field holding the 0/1 score. lmms-eval then reports
# ``<metric>_stderr_clustered`` next to the plain ``<metric>_stderr_clt`` (lmms_eval/tasks/
# videomme/videomme.yaml uses ``cluster_key: videoID`` the same way). lmms-eval before 0.6 has
# no such TaskConfig fields and refuses the YAML.
CLUSTER_KEY = "clip"
SCORE_KEY = "score"

TASK_YAML = """\
# lmms-eval (0.6 or later) task written by taskqa {taskqa_version} ({family} split family).
# A question's clip is videos/<clip>.mp4 beside this file (its `video` field, relative to this
# folder). An export made with --allow-missing-videos has questions whose clip has no video
# (empty `video`): cut each such clip's shown part (videos.csv: video, start_s, end_s) to
# $TASKQA_VIDEO_ROOT/<clip id with '|' and '/' replaced by '_'>.mp4 before running.
# Answers are scored with taskqa's answer normaliser (taskqa_normalize.py, normalization
# version {normalization_version}), as `taskqa evaluate` scores them; accuracies are fractions.
task: taskqa_{family}
dataset_path: parquet
dataset_kwargs:
  data_files:
{data_files}
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
# the ~5 questions about one clip are correlated: lmms-eval's clustered standard error groups
# the per-question scores by the `{cluster_key}` field process_results returns
cluster_key: {cluster_key}
score_key: {score_key}
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
{pair_metric}lmms_eval_specific_kwargs:
  default:
    pre_prompt: ""
    post_prompt: "\\nAnswer with a short phrase only: yes or no for a yes/no question; an action
      as a verb phrase (open the fridge); a purpose as to and a verb phrase (to open the
      fridge); else a few words (the blue mug)."
metadata:
  version: 2.0
  normalization_version: "{normalization_version}"
  taskqa_version: "{taskqa_version}"
  # what a clip's video holds (lmms-eval copies this block into its results): every frame of
  # videos/<clip>.mp4 at this rate; a model that samples frames itself says how in its model_args
  frame_sampling:
    clip_fps: {clip_fps}
    frames: every frame of the clip's video
"""

# The pairs family's own metric (docs/minimal-pairs.md): a pair counts right only if both its
# questions are right. Its stderr fields are lmms-eval's over the per-question items, not over
# pairs; `taskqa evaluate` gives pair accuracy with a bootstrap interval.
PAIR_METRIC = """\
  # minimal pairs: the share of pairs with both questions right (grouped by pair_id)
  - metric: pair_accuracy
    aggregation: !function utils.pair_accuracy
    higher_is_better: true
"""

# The multiple-choice form (docs/multiple-choice.md): one document per asked rotation; a reply is
# read as a letter or an option's text by the copied taskqa.answers.parse_choice; accuracy per
# item counts rotation 0, circular accuracy an item whose every rotation is right.
TASK_MC_YAML = """\
# lmms-eval (0.6 or later) multiple-choice task written by taskqa {taskqa_version} ({family}
# split family; docs/multiple-choice.md). One document per rotation of an item's options;
# accuracy_item scores rotation 0, accuracy_circular an item right in every rotation. Replies
# are read as a letter or an option's text as `taskqa evaluate --mc` reads them.
task: taskqa_{family}_mc
dataset_path: parquet
dataset_kwargs:
  data_files:
{data_files}
test_split: test
output_type: generate_until
doc_to_visual: !function utils.doc_to_visual
doc_to_text: !function utils.mc_doc_to_text
doc_to_target: answer
generation_kwargs:
  max_new_tokens: 16
  temperature: 0
  do_sample: false
process_results: !function utils.mc_process_results
cluster_key: {cluster_key}
score_key: {score_key}
metric_list:
  - metric: accuracy_item
    aggregation: !function utils.mean
    higher_is_better: true
  - metric: accuracy_ask
    aggregation: !function utils.mean
    higher_is_better: true
  - metric: accuracy_circular
    aggregation: !function utils.circular
    higher_is_better: true
lmms_eval_specific_kwargs:
  default:
    pre_prompt: ""
    post_prompt: ""
metadata:
  version: 1.0
  normalization_version: "{normalization_version}"
  taskqa_version: "{taskqa_version}"
  # what a clip's video holds (lmms-eval copies this block into its results): every frame of
  # videos/<clip>.mp4 at this rate; a model that samples frames itself says how in its model_args
  frame_sampling:
    clip_fps: {clip_fps}
    frames: every frame of the clip's video
"""

# The generated utils.py runs inside lmms-eval, where taskqa is not installed, so it keeps its own
# yes/no test and pair accuracy: the same definitions as taskqa.questions.tags.BINARY_ANSWERS and
# taskqa.benchmark.folder.pair_accuracy (tests/test_minimal_pairs.py checks the two agree).
UTILS = '''\
"""Document functions of the taskqa lmms-eval tasks (written by `taskqa export lmms-eval`,
taskqa {taskqa_version}).

Answers are compared after taskqa's own answer normalisation, copied verbatim beside this file
as {normalizer_file} (normalization version {normalization_version}), so a prediction counts as
correct here exactly when `taskqa evaluate` counts it correct. Nothing here imports taskqa.
Scores are fractions (0 or 1 per question); each comes with its clip id, which the task YAML
names as lmms-eval's cluster_key for clustered standard errors.
"""

import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
NORMALIZATION_VERSION = "{normalization_version}"
CLUSTER_KEY = "{cluster_key}"
SCORE_KEY = "{score_key}"


def _load_normalizer():
    # lmms-eval loads this file by its path, so the folder is not on sys.path: load the sibling
    # file the same way
    path = os.path.join(HERE, "{normalizer_file}")
    spec = importlib.util.spec_from_file_location("taskqa_normalize", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if module.NORMALIZATION_VERSION != NORMALIZATION_VERSION:
        raise RuntimeError(
            f"{{path}} has normalization version {{module.NORMALIZATION_VERSION}}, this task "
            f"was exported for {{NORMALIZATION_VERSION}}; export the task again"
        )
    return module


normalize_answer = _load_normalizer().normalize_answer


def clip_filename(clip):
    return clip.replace("|", "_").replace("/", "_") + ".mp4"


def doc_to_visual(doc):
    if doc.get("video"):
        return [os.path.join(HERE, doc["video"])]
    root = os.environ.get("TASKQA_VIDEO_ROOT")
    if root:
        return [os.path.join(root, clip_filename(doc["clip"]))]
    raise FileNotFoundError(
        f"question {{doc['id']}}: clip {{doc['clip']}} has no video in this export (it was "
        "exported with --allow-missing-videos); cut it from source_video (start_s to end_s) to "
        f"$TASKQA_VIDEO_ROOT/{{clip_filename(doc['clip'])}}, or run `taskqa render` on the "
        "benchmark folder, then export again"
    )


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    kwargs = lmms_eval_specific_kwargs or {{}}
    return f"{{kwargs.get('pre_prompt', '')}}{{doc['question']}}{{kwargs.get('post_prompt', '')}}"


def process_results(doc, results):
    prediction = results[0] if results else ""
    answer = normalize_answer(doc["answer"])
    # the world's raw form of an answer said in plain words also counts (taskqa evaluate too)
    right = {{answer, *(normalize_answer(a) for a in (doc.get("answer_aliases") or []))}}
    correct = normalize_answer("" if prediction is None else str(prediction)) in right
    item = {{SCORE_KEY: 1.0 if correct else 0.0, CLUSTER_KEY: doc["clip"]}}
    binary = answer in ("yes", "no")
    scores = {{
        "accuracy": item,
        "accuracy_open": None if binary else dict(item),
        "accuracy_binary": dict(item) if binary else None,
    }}
    if doc.get("pair_id"):  # a question of a minimal pair (the pairs task)
        scores["pair_accuracy"] = {{**item, "pair_id": doc["pair_id"], "question_id": doc["id"]}}
    return scores


def mean(items):
    """The fraction of questions answered correctly (None: the metric does not apply)."""
    scores = [item[SCORE_KEY] if isinstance(item, dict) else item for item in items]
    scores = [score for score in scores if score is not None]
    return sum(scores) / len(scores) if scores else 0.0


def pair_accuracy(items):
    """The fraction of minimal pairs with both questions right, over the pairs both of whose
    questions were asked (taskqa evaluate's pair accuracy)."""
    pairs = {{}}
    for item in items:
        if isinstance(item, dict) and item.get("pair_id"):
            pairs.setdefault(item["pair_id"], {{}})[item["question_id"]] = item[SCORE_KEY]
    scored = [scores for scores in pairs.values() if len(scores) == 2]
    if not scored:
        return 0.0
    return sum(all(score == 1.0 for score in scores.values()) for scores in scored) / len(scored)


parse_choice = _load_normalizer().parse_choice
LETTERS = _load_normalizer().LETTERS


def mc_doc_to_text(doc, lmms_eval_specific_kwargs=None):
    kwargs = lmms_eval_specific_kwargs or {{}}
    return f"{{kwargs.get('pre_prompt', '')}}{{doc['prompt']}}{{kwargs.get('post_prompt', '')}}"


def mc_process_results(doc, results):
    prediction = results[0] if results else None
    picked = parse_choice(None if prediction is None else str(prediction), list(doc["options"]))
    right = picked is not None and LETTERS[picked] == doc["answer"]
    item = {{SCORE_KEY: 1.0 if right else 0.0, CLUSTER_KEY: doc["clip"]}}
    return {{
        "accuracy_item": dict(item) if doc["rotation"] == 0 else None,
        "accuracy_ask": item,
        "accuracy_circular": {{**item, "question_id": doc["question_id"],
                              "rotations": doc["rotations"]}},
    }}


def circular(items):
    """Items right in every rotation, over the items (an ask not made counts as wrong)."""
    asks = {{}}
    for item in items:
        if isinstance(item, dict):
            asks.setdefault(item["question_id"], []).append(item)
    if not asks:
        return 0.0
    right = sum(
        len(found) == found[0]["rotations"] and all(a[SCORE_KEY] == 1.0 for a in found)
        for found in asks.values()
    )
    return right / len(asks)
'''


def normalizer_source() -> str:
    """``taskqa.answers``'s source as the export writes it: a header, then the module verbatim."""
    header = (
        "# Copied verbatim from taskqa.answers by `taskqa export lmms-eval` "
        f"(taskqa {__version__},\n# normalization version {answers.NORMALIZATION_VERSION}): the "
        "answer normaliser of `taskqa evaluate`.\n# Do not edit: an edited copy no longer "
        "scores as `taskqa evaluate` does.\n"
    )
    return header + inspect.getsource(answers)


def utils_source() -> str:
    return UTILS.format(**_fields())


SPLIT_FILES = ("train", "validation", "test")


def task_yaml(
    family: str, data: Path, clip_fps: str = "null", splits: Sequence[str] = SPLIT_FILES
) -> str:
    pair_metric = PAIR_METRIC if family == PAIR_FAMILY else ""
    return _task(TASK_YAML, family, data, family, clip_fps, splits, pair_metric=pair_metric)


def choice_task_yaml(
    family: str, data: Path, clip_fps: str = "null", splits: Sequence[str] = SPLIT_FILES
) -> str:
    return _task(TASK_MC_YAML, family, data, f"{family}-mc", clip_fps, splits)


def _task(
    template: str,
    family: str,
    data: Path,
    folder: str,
    clip_fps: str,
    splits: Sequence[str],
    **extra: str,
) -> str:
    """One task's YAML: ``template`` filled for ``family``, its Parquet files in ``data/folder``."""
    return template.format(
        family=family,
        data=data.as_posix(),
        data_files=_data_files(data / folder, splits),
        clip_fps=clip_fps,
        **extra,
        **_fields(),
    )


def _data_files(folder: Path, splits: Sequence[str]) -> str:
    """The ``data_files`` lines of the splits that hold rows: the datasets library cannot read
    an empty Parquet file ("BatchSize must be greater than 0"), so a split with no questions
    (a small build's pairs have no validation pair) is left out; test is always listed."""
    return "\n".join(
        f"    {split}: {(folder / f'{split}.parquet').as_posix()}"
        for split in SPLIT_FILES
        if split in splits or split == "test"
    )


def _splits_with_rows(folder: Path) -> list[str]:
    import pyarrow.parquet as pq

    return [
        split
        for split in SPLIT_FILES
        if (folder / f"{split}.parquet").is_file()
        and pq.ParquetFile(folder / f"{split}.parquet").metadata.num_rows > 0
    ]


def _clip_fps(videos: Path) -> str:
    """The frame rate of the exported clip videos (``null`` when none was exported)."""
    from taskqa.render.video import video_info

    first = next(iter(sorted(videos.glob("*.mp4"))), None) if videos.is_dir() else None
    return "null" if first is None else f"{video_info(first)[1]:g}"


def _fields() -> dict[str, str]:
    return {
        "taskqa_version": __version__,
        "normalization_version": answers.NORMALIZATION_VERSION,
        "normalizer_file": NORMALIZER_FILE,
        "cluster_key": CLUSTER_KEY,
        "score_key": SCORE_KEY,
    }


def export_lmms_eval(
    bench: Path, out: Path, *, allow_missing_videos: bool = False
) -> ExportedFiles:
    """Write the lmms-eval task folder for ``bench`` to ``out``; return its files.

    Refused when a question's clip has no video file, unless ``allow_missing_videos`` (then the
    result's ``missing_videos`` says how many clips have none), as ``export_hf``.
    """
    target = out.resolve()
    with staged_directory(out) as stage:
        exported = export_hf(bench, stage / "hf", allow_missing_videos=allow_missing_videos)
        data = stage / "data"
        shutil.move(stage / "hf" / "data", data)
        for listed in (VIDEOS, PAIRS):  # the clips' sources; the minimal pairs
            if (stage / "hf" / listed).is_file():
                shutil.move(stage / "hf" / listed, stage / listed)
        if (stage / "hf" / "videos").is_dir():
            # the rows' `video` paths are relative to the export root: keep them so
            shutil.move(stage / "hf" / "videos", stage / "videos")
        shutil.rmtree(stage / "hf")
        clip_fps = _clip_fps(stage / "videos")
        for family in families_in(bench):
            data = target / "data"
            rows = _splits_with_rows(stage / "data" / family)
            rows_mc = _splits_with_rows(stage / "data" / f"{family}-mc")
            write_text(stage / f"taskqa_{family}.yaml", task_yaml(family, data, clip_fps, rows))
            write_text(
                stage / f"taskqa_{family}_mc.yaml",
                choice_task_yaml(family, data, clip_fps, rows_mc),
            )
        write_text(stage / "utils.py", utils_source())
        write_text(stage / NORMALIZER_FILE, normalizer_source())
    written = (p for p in out.rglob("*") if p.is_file())
    return ExportedFiles(written, clips=exported.clips, missing_videos=exported.missing_videos)
