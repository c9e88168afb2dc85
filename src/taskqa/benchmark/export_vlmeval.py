"""``taskqa export vlmevalkit``: a VLMEvalKit video dataset (its ``VideoBaseDataset`` form).

VLMEvalKit needs a Python class for every new video benchmark. The folder holds one: the
``TaskQA`` class in ``taskqa_vlmeval.py`` (a ``vlmeval.dataset.video_base.VideoBaseDataset``, as
upstream's and the PyPI repackaging ``ms-vlmeval`` 0.0.20 define it), a TSV per split family's
test split (``TaskQA_<family>.tsv``: index, video, question, answer and its aliases, the
question's tags and, in ``TaskQA_pairs``, its minimal pair), the clip videos
(``videos/<clip>.mp4``) and a verbatim copy of ``taskqa.answers`` (``taskqa_normalize.py``), so
``evaluate`` scores exactly as ``taskqa evaluate`` does, pair accuracy included (both questions of
a pair right). Nothing in the folder imports taskqa.

Frame sampling is fixed here: the class samples ``nframe`` frames per clip (evenly, VLMEvalKit's
own rule) with the number given at export (default 8) unless the caller passes ``nframe`` or
``fps`` explicitly, and ``evaluate`` writes the sampling it used beside the accuracies, so a
score says how it was made.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

from taskqa import __version__
from taskqa.answers import NORMALIZATION_VERSION
from taskqa.atomic import staged_directory, write_text
from taskqa.benchmark.clip_videos import clip_filename
from taskqa.benchmark.export_hf import ExportedFiles, export_hf
from taskqa.benchmark.export_lmms import NORMALIZER_FILE, normalizer_source
from taskqa.benchmark.folder import PAIR_FAMILY, Benchmark, families_in, pair_ids
from taskqa.jsonio import record_text

DATASET_FILE = "taskqa_vlmeval.py"
TSV_FIELDS = ("index", "video", "question", "answer", "answer_aliases", "question_id", "clip",
              "answer_kind", "types", "scopes", "semantic", "template",
              # a minimal pair's (TaskQA_pairs; empty elsewhere): docs/minimal-pairs.md
              "pair_id", "partner_id", "intervention")  # fmt: skip

# The generated dataset class runs inside VLMEvalKit, where taskqa is not installed, so its
# evaluate() keeps its own yes/no test and pair accuracy: the same definitions as
# taskqa.questions.tags.BINARY_ANSWERS and taskqa.benchmark.folder.pair_accuracy.
DATASET = '''\
"""The taskqa benchmark as a VLMEvalKit video dataset (written by `taskqa export vlmevalkit`,
taskqa {taskqa_version}).

    from taskqa_vlmeval import TaskQA          # with this folder on sys.path
    dataset = TaskQA("TaskQA_normal")          # nframe={nframe} frames per clip unless given
    message = dataset.build_prompt(dataset.data.iloc[0], video_llm=False)
    dataset.evaluate("predictions.xlsx")       # a `prediction` column beside the TSV's

Answers are scored with taskqa's normaliser, copied verbatim beside this file as
{normalizer_file} (normalization version {normalization_version}): a prediction counts as
right here exactly when `taskqa evaluate` counts it right.
"""

import importlib.util
import json
import os
import os.path as osp

from vlmeval.dataset.video_base import VideoBaseDataset
from vlmeval.smp import dump, get_intermediate_file_path, load

HERE = osp.dirname(osp.abspath(__file__))
NFRAME = {nframe}
NORMALIZATION_VERSION = "{normalization_version}"
POST_PROMPT = (
    "\\nAnswer with a short phrase only: yes or no for a yes/no question; an action as a verb "
    "phrase (open the fridge); a purpose as to and a verb phrase (to open the fridge); else a "
    "few words (the blue mug)."
)


def _normalizer():
    spec = importlib.util.spec_from_file_location(
        "taskqa_normalize", osp.join(HERE, "{normalizer_file}")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if module.NORMALIZATION_VERSION != NORMALIZATION_VERSION:
        raise RuntimeError("taskqa_normalize.py does not match this dataset; export it again")
    return module.normalize_answer


normalize_answer = _normalizer()


class TaskQA(VideoBaseDataset):
    MODALITY = "VIDEO"
    TYPE = "Video-VQA"

    def __init__(self, dataset="TaskQA_normal", pack=False, nframe=None, fps=-1):
        if nframe is None:
            nframe = 0 if fps > 0 else NFRAME
        super().__init__(dataset=dataset, pack=pack, nframe=nframe, fps=fps)

    @classmethod
    def supported_datasets(cls):
        return {families}

    def prepare_dataset(self, dataset):
        return dict(root=osp.join(HERE, "videos"), data_file=osp.join(HERE, f"{{dataset}}.tsv"))

    def build_prompt(self, line, video_llm=False):
        if isinstance(line, int):
            line = self.data.iloc[line]
        question = dict(type="text", value=str(line["question"]) + POST_PROMPT)
        if video_llm:
            return [dict(type="video", value=osp.join(self.data_root, line["video"] + ".mp4")),
                    question]
        frames = self.save_video_frames(line["video"])
        return [*(dict(type="image", value=frame) for frame in frames), question]

    def evaluate(self, eval_file, **judge_kwargs):
        data = load(eval_file)
        scores = []
        for _, row in data.iterrows():
            answer = normalize_answer(str(row["answer"]))
            right = {{answer, *(normalize_answer(a) for a in json.loads(row["answer_aliases"]))}}
            prediction = row.get("prediction")
            said = "" if prediction is None or prediction != prediction else str(prediction)
            scores.append(1.0 if normalize_answer(said) in right else 0.0)
        kinds = [normalize_answer(str(a)) in ("yes", "no") for a in data["answer"]]
        binary = [s for s, yes_no in zip(scores, kinds) if yes_no]
        opened = [s for s, yes_no in zip(scores, kinds) if not yes_no]
        result = {{
            "accuracy": sum(scores) / len(scores) if scores else 0.0,
            "accuracy_binary": sum(binary) / len(binary) if binary else None,
            "accuracy_open": sum(opened) / len(opened) if opened else None,
            "questions": len(scores),
            "frame_sampling": {{"nframe": self.nframe, "fps": self.fps}},
            "normalization_version": NORMALIZATION_VERSION,
        }}
        # minimal pairs: a pair counts right only if both its questions are right; a pair with
        # a question not predicted is left out, as taskqa evaluate leaves it out
        pairs = {{}}
        column = data["pair_id"] if "pair_id" in data else [None] * len(scores)
        for pair, score in zip(column, scores):
            if isinstance(pair, str) and pair:
                pairs.setdefault(pair, []).append(score)
        scored = [found for found in pairs.values() if len(found) == 2]
        if scored:
            result["pairs"] = len(scored)
            result["pair_accuracy"] = sum(min(found) == 1.0 for found in scored) / len(scored)
        dump(result, get_intermediate_file_path(eval_file, "_acc", "json"))
        return result
'''


def export_vlmevalkit(
    bench: Path, out: Path, *, nframe: int = 8, allow_missing_videos: bool = False
) -> ExportedFiles:
    """Write the VLMEvalKit dataset folder of ``bench`` (every family's test split) to ``out``."""
    if nframe < 1:
        raise ValueError(f"nframe must be at least 1, not {nframe}")
    benchmark = Benchmark(bench)
    families = families_in(bench)
    pairing = _pairing(benchmark)
    with staged_directory(out) as stage:
        exported = export_hf(bench, stage / "hf", allow_missing_videos=allow_missing_videos)
        if (stage / "hf" / "videos").is_dir():
            shutil.move(stage / "hf" / "videos", stage / "videos")
        cut = _cut_names(stage / "videos")
        shutil.rmtree(stage / "hf")
        for family in families:
            write_text(stage / f"TaskQA_{family}.tsv", _tsv(benchmark, family, cut, pairing))
        names = [f"TaskQA_{family}" for family in families]
        write_text(stage / DATASET_FILE, dataset_source(names, nframe))
        write_text(stage / NORMALIZER_FILE, normalizer_source())
    written = (p for p in out.rglob("*") if p.is_file())
    return ExportedFiles(written, clips=exported.clips, missing_videos=exported.missing_videos)


def dataset_source(names: list[str], nframe: int) -> str:
    return DATASET.format(
        taskqa_version=__version__,
        nframe=nframe,
        normalization_version=NORMALIZATION_VERSION,
        normalizer_file=NORMALIZER_FILE,
        families=repr(names),
    )


def _cut_names(videos: Path) -> set[str]:
    return {p.stem for p in videos.glob("*.mp4")} if videos.is_dir() else set()


def _pairing(benchmark: Benchmark) -> dict[str, tuple[str, str, str]]:
    """Question id -> (pair id, partner's question id, intervention kind)."""
    pairing: dict[str, tuple[str, str, str]] = {}
    for pair in benchmark.pairs():
        a, b, kind = str(pair["a"]), str(pair["b"]), str(pair["intervention"]["kind"])
        pairing[a] = (pair_ids(pair), b, kind)
        pairing[b] = (pair_ids(pair), a, kind)
    return pairing


def _tsv(
    benchmark: Benchmark,
    family: str,
    cut: set[str],
    pairing: dict[str, tuple[str, str, str]] | None = None,
) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    writer.writerow(TSV_FIELDS)
    paired = (pairing or {}) if family == PAIR_FAMILY else {}
    for index, item in enumerate(benchmark.questions(family, "test")):
        question = item.question
        name = clip_filename(question.clip).removesuffix(".mp4")
        writer.writerow(
            [
                index,
                name if name in cut else "",
                question.question,
                question.answer,
                record_text(question.answer_aliases),
                question.id,
                question.clip,
                question.answer_kind,
                "|".join(question.types),
                "|".join(question.scopes),
                question.semantic,
                question.template,
                *paired.get(question.id, ("", "", "")),
            ]
        )
    return buffer.getvalue()
