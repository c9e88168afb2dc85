"""``taskqa export hf``: a built benchmark as a Hugging Face dataset folder plus Croissant.

Each split family is a dataset config (``normal``, ``indirect``, the generalisation families and,
from a build with ``--pairs``, ``pairs``) with train/validation/test Parquet files; the ``pairs``
config's rows name their pair (``pair_id``, ``pair_side``, ``partner_id``, ``intervention``) and
``pairs.jsonl`` is copied beside them, so pair accuracy can be scored without taskqa;
``README.md`` is a dataset card whose YAML ``configs`` block tells
``datasets.load_dataset(DIR, "normal")`` where they are; ``croissant.json`` describes the same
files in Croissant 1.0 JSON-LD with the responsible-AI (RAI) fields that NeurIPS datasets
submissions ask for. ``videos.csv`` says which recording, view and time span each clip comes
from. Each clip is cut from its recording's rendered video into ``videos/<clip>.mp4`` and every
question row names that file in ``video``, relative to the export folder. A benchmark whose clips
have no video file (built from an unrendered corpus: ``videos.csv`` names ``sim://`` addresses,
or files that are not there) is refused unless ``allow_missing_videos`` is set; then those rows
have an empty ``video``, ``source_video``, ``start_s`` and ``end_s`` say where to cut the clip,
and the result's ``missing_videos`` says how many clips that is.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from taskqa import __version__
from taskqa.atomic import sha256_file, staged_directory, write_text
from taskqa.benchmark.clip_videos import cut_clip_videos, videos_by_clip
from taskqa.benchmark.export_choice import (
    MC_DESCRIPTIONS,
    MC_SCHEMA,
    MC_SUFFIX,
    write_choice_parquet,
)
from taskqa.benchmark.folder import (
    CORPUS,
    HELD_OUT_OBJECTS,
    INDIRECT,
    MANIFEST,
    MORE_STEPS,
    NORMAL,
    NOVEL_COMPOSITION,
    PAIR_FAMILY,
    PAIRS,
    VIDEOS,
    Benchmark,
    VideoClip,
    VideoIndex,
    families_in,
    pair_ids,
    read_videos,
    split_file,
)
from taskqa.benchmark.multiple_choice import choice_items
from taskqa.jsonio import load_json, read_jsonl_objects, record_text, write_json
from taskqa.problems import InvalidInputError, Problem
from taskqa.questions.tags import reasoning_type

HF_SPLITS = {"train": "train", "val": "validation", "test": "test"}
SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("recording", pa.string()),
        ("clip", pa.string()),
        ("agent", pa.string()),
        ("question", pa.string()),
        ("answer", pa.string()),
        ("answer_aliases", pa.list_(pa.string())),
        ("answer_kind", pa.string()),
        ("answer_choices", pa.list_(pa.string())),
        ("direct_equiv", pa.string()),
        ("reasoning_type", pa.string()),
        ("types", pa.list_(pa.string())),
        ("scopes", pa.list_(pa.string())),
        ("semantic", pa.string()),
        ("structural", pa.string()),
        ("reference", pa.string()),
        ("template", pa.string()),
        ("steps", pa.int32()),
        ("obfuscation", pa.int32()),
        ("evidence", pa.list_(pa.string())),
        ("program", pa.string()),
        ("program_graph", pa.string()),  # the node list as JSON text
        ("params", pa.string()),  # JSON object
        ("video", pa.string()),  # the clip's own file, relative to the export ("" if none)
        ("source_video", pa.string()),  # the recording's video as videos.csv names it
        ("start_s", pa.float64()),
        ("end_s", pa.float64()),
    ]
)
# The pairs config's own columns: which minimal pair a question is in, and how its two
# recordings differ (docs/minimal-pairs.md).
PAIR_SCHEMA = pa.schema(
    [
        *SCHEMA,
        ("pair_id", pa.string()),
        ("pair_side", pa.string()),
        ("partner_id", pa.string()),
        ("intervention", pa.string()),
        ("intervention_details", pa.string()),  # JSON object
    ]
)
PAIR_DESCRIPTIONS = {
    "pair_id": "The minimal pair the question is in (pairs.jsonl's id): a pair counts right "
    "only if both its questions are right.",
    "pair_side": "a: asked of the recording as it was simulated; b: of the same episode changed "
    "in one place.",
    "partner_id": "The id of the pair's other question: the same text on the same clip window "
    "of the other recording, with another answer.",
    "intervention": "What differs between the pair's recordings: skip (an action does not "
    "happen), fail (an action is tried and fails), reorder (two actions swap), initial-state "
    "(an object starts in another state).",
    "intervention_details": "The change as a JSON object: kind, person, frame and action text, "
    "or object, attribute and value.",
}
LICENSE = "cc-by-4.0"  # the default licence of an export's questions and rendered videos
LICENSE_URLS = {
    "cc-by-4.0": "https://creativecommons.org/licenses/by/4.0/",
    "cc-by-sa-4.0": "https://creativecommons.org/licenses/by-sa/4.0/",
    "cc-by-nc-4.0": "https://creativecommons.org/licenses/by-nc/4.0/",
    "cc-by-nc-sa-4.0": "https://creativecommons.org/licenses/by-nc-sa/4.0/",
    "cc0-1.0": "https://creativecommons.org/publicdomain/zero/1.0/",
    "mit": "https://opensource.org/licenses/MIT",
    "apache-2.0": "https://www.apache.org/licenses/LICENSE-2.0",
}
DESCRIPTIONS = {
    "id": "Stable question id (hash of clip, template and parameters).",
    "recording": "The recording the clip comes from.",
    "clip": "Clip id: recording|agent|start frame|prediction start frame.",
    "agent": "The person the question is about.",
    "question": "The question text.",
    "answer": "The answer, in plain words.",
    "answer_aliases": "Other forms of the same answer that count as right (the world's raw form, "
    "e.g. 'put kettle to counter' for 'put the kettle on the counter').",
    "answer_kind": "binary (yes/no) or open.",
    "answer_choices": "The few answers the question allows (yes/no; an attribute's values); "
    "empty for an open vocabulary. Chance on the question is one over their number.",
    "direct_equiv": "For an indirect-reference question, the id of its direct form on the same "
    "clip where that question is in the benchmark too; else empty.",
    "reasoning_type": "The $-joined tags EgoTaskQA's per-category accuracy counts.",
    "types": "descriptive, predictive, counterfactual, explanatory.",
    "scopes": "world, intent, multi-agent.",
    "semantic": "action, object, state or change.",
    "structural": "query or verify.",
    "reference": "direct or indirect.",
    "template": "The template id.",
    "steps": "Reasoning steps (program nodes).",
    "obfuscation": "Objects of an action said as 'something' (0-2).",
    "evidence": "What the answer needs of the clip, from the vision-ablation audit: no-frame, "
    "one-frame (first-frame, last-frame), several-frames; order-free or order-dependent.",
    "program": "The program that computes the answer, one-line form.",
    "program_graph": "The program as a JSON node list.",
    "params": "The template parameters as a JSON object.",
    "video": "The clip's own video file (videos/<clip>.mp4), or empty when not exported.",
    "source_video": "The recording's video the clip comes from, as videos.csv names it.",
    "start_s": "Where the clip starts in the recording's video (seconds).",
    "end_s": "Where the clip ends in the recording's video (seconds; the question's moment).",
}


class ExportedFiles(list[Path]):
    """The files an export wrote (sorted), with how many of its questions' clips have no video
    file in it (non-zero only with ``allow_missing_videos``; the command line warns)."""

    def __init__(self, files: Iterable[Path], clips: int = 0, missing_videos: int = 0) -> None:
        super().__init__(sorted(files))
        self.clips = clips
        self.missing_videos = missing_videos


def export_hf(
    bench: Path,
    out: Path,
    name: str | None = None,
    *,
    allow_missing_videos: bool = False,
    license: str = LICENSE,
) -> ExportedFiles:
    """Write the Hugging Face / Croissant export of ``bench`` to ``out``; return its files.

    Refused (``InvalidInputError``) when a question's clip has no video file, unless
    ``allow_missing_videos``: run ``taskqa render BENCH`` instead, which renders them.
    ``license`` is a Hugging Face licence id (``cc-by-4.0``, ``mit``, ``other``...): the
    dataset card's and Croissant's.
    """
    manifest = _manifest(bench)
    title = name or bench.resolve().name
    csv_path = bench / VIDEOS
    index = read_videos(csv_path, bench) if csv_path.is_file() else VideoIndex([])
    records = _split_records(bench)
    rows_by_clip = videos_by_clip(index)
    clips = sorted({r["clip"] for rows in records.values() for r in rows})
    missing = [clip for clip in clips if not _has_video(rows_by_clip.get(clip))]
    if missing and not allow_missing_videos:
        raise InvalidInputError([missing_videos_problem(bench, len(missing), len(clips))])
    benchmark = Benchmark(bench)
    pairing = _pairing(benchmark.pairs())
    with staged_directory(out) as stage:
        cut = cut_clip_videos(rows_by_clip.values(), stage / "videos")
        names = _named_videos(csv_path, rows_by_clip)
        files: dict[str, str] = {}
        counts: dict[str, dict[str, int]] = {}
        for family in dict.fromkeys(f for f, _ in records):
            counts[family] = {}
            for split, hf_split in HF_SPLITS.items():
                rows = records[family, split]
                relative = f"data/{family}/{hf_split}.parquet"
                paired = pairing if family == PAIR_FAMILY else None
                _write_parquet(stage / relative, rows, rows_by_clip, cut, names, paired)
                files[relative] = sha256_file(stage / relative)
                counts[family][hf_split] = len(rows)
        if (bench / PAIRS).is_file():
            shutil.copyfile(bench / PAIRS, stage / PAIRS)
        # the multiple-choice form of every family (docs/multiple-choice.md)
        for family in list(counts):
            items = choice_items(benchmark, family)
            counts[family + MC_SUFFIX] = {}
            for split, hf_split in HF_SPLITS.items():
                relative = f"data/{family}{MC_SUFFIX}/{hf_split}.parquet"
                chosen = [item for item in items if item.split == split]
                asks = write_choice_parquet(
                    chosen,
                    stage / relative,
                    lambda clip: _video_columns(clip, rows_by_clip, cut, names),
                )
                files[relative] = sha256_file(stage / relative)
                counts[family + MC_SUFFIX][hf_split] = asks
        if csv_path.is_file():
            shutil.copyfile(csv_path, stage / VIDEOS)  # the export lists it under its name
        simulated = _simulated(bench)
        card = dataset_card(title, manifest, counts, license=license, simulated=simulated)
        write_text(stage / "README.md", card)
        write_json(stage / "croissant.json", croissant(title, files, license=license))
    written = (p for p in out.rglob("*") if p.is_file())
    return ExportedFiles(written, clips=len(clips), missing_videos=len(missing))


def missing_videos_problem(bench: Path, missing: int, clips: int) -> Problem:
    message = (
        f"{missing} of {clips} clips have no video file (videos.csv gives a sim:// address, "
        "a file that is not there or no row), so a model would be asked about videos it "
        f"cannot see; run `taskqa render {bench}` to render them (it renders the recordings "
        "its clips use that have none, and lists them in videos.csv), or pass "
        "--allow-missing-videos to export the questions without those videos"
    )
    return Problem(str(bench), "", message)


def _pairing(pairs: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """Question id -> its pair columns (``PAIR_SCHEMA``), from ``pairs.jsonl``."""
    columns: dict[str, dict[str, str]] = {}
    for pair in pairs:
        a, b = str(pair["a"]), str(pair["b"])
        intervention = pair.get("intervention") or {}
        shared = {
            "pair_id": pair_ids(pair),
            "intervention": str(intervention.get("kind", "")),
            "intervention_details": record_text(intervention, sort_keys=True),
        }
        columns[a] = {**shared, "pair_side": "a", "partner_id": b}
        columns[b] = {**shared, "pair_side": "b", "partner_id": a}
    return columns


def _simulated(bench: Path) -> bool:
    """Whether the benchmark's recordings come from taskqa's simulated world."""
    from taskqa.corpus import read_manifest

    try:
        return read_manifest(bench / CORPUS).generator.startswith("taskqa.simulation")
    except InvalidInputError:
        return False


def _has_video(row: VideoClip | None) -> bool:
    return row is not None and row.video.is_file()


def _manifest(bench: Path) -> dict[str, Any]:
    path = bench / MANIFEST
    if not path.is_file():
        message = "not a benchmark folder (no manifest.json); make one with `taskqa build`"
        raise InvalidInputError([Problem(str(bench), "", message)])
    data: dict[str, Any] = load_json(path)
    return data


def _split_records(bench: Path) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Every split's question records, by (family, split); refused when there are none."""
    families = families_in(bench)
    paths = {(f, s): split_file(bench, f, s) for f in families for s in HF_SPLITS}
    if not any(path.is_file() for path in paths.values()):
        raise InvalidInputError([Problem(str(bench), "", "holds no questions to export")])
    records = {
        key: [record for _, record in read_jsonl_objects(path)] for key, path in paths.items()
    }
    if not any(records.values()):
        raise InvalidInputError([Problem(str(bench), "", "holds no questions to export")])
    return records


def _write_parquet(
    path: Path,
    records: Sequence[Mapping[str, Any]],
    videos: Mapping[str, VideoClip] | None = None,
    cut: Mapping[str, str] | None = None,
    names: Mapping[str, str] | None = None,
    pairing: Mapping[str, Mapping[str, str]] | None = None,
) -> None:
    """A split's rows; with ``pairing`` (the pairs family) each row names its pair too."""
    schema = SCHEMA if pairing is None else PAIR_SCHEMA
    columns: dict[str, list[Any]] = {field.name: [] for field in schema}
    videos, cut, names = videos or {}, cut or {}, names or {}
    unpaired = dict.fromkeys(PAIR_DESCRIPTIONS, "")
    for record in records:
        row = {
            **_video_columns(record["clip"], videos, cut, names),
            **(pairing.get(str(record["id"]), unpaired) if pairing is not None else {}),
            **record,
            "answer_aliases": list(record.get("answer_aliases", [])),
            "answer_choices": list(record.get("answer_choices", [])),
            "direct_equiv": record.get("direct_equiv"),
            "evidence": list(record.get("evidence", [])),
            "reasoning_type": reasoning_type(record),
            "program_graph": json.dumps(record["program_graph"], ensure_ascii=False),
            "params": json.dumps(record["params"], ensure_ascii=False, sort_keys=True),
        }
        for name, values in columns.items():
            values.append(row[name])
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    pq.write_table(pa.table(columns, schema=schema), temporary, compression="zstd")
    temporary.replace(path)


def _video_columns(
    clip: str,
    videos: Mapping[str, VideoClip],
    cut: Mapping[str, str],
    names: Mapping[str, str],
) -> dict[str, Any]:
    """Where a clip's pixels are: its own cut file, the recording's video, start and end."""
    source = videos.get(clip)
    return {
        "video": f"videos/{cut[clip]}" if clip in cut else "",
        "source_video": names.get(clip, ""),
        "start_s": source.start_s if source else None,
        "end_s": source.end_s if source else None,
    }


def _named_videos(path: Path, chosen: Mapping[str, VideoClip]) -> dict[str, str]:
    """Clip id -> its chosen video exactly as ``videos.csv`` writes it (a ``sim://`` address
    stays one)."""
    if not path.is_file():
        return {}
    names: dict[str, str] = {}
    with path.open(encoding="utf-8", newline="") as stream:
        for row in csv.DictReader(stream):
            clip = row.get("clip", "")
            if clip in chosen and row.get("view", "") == chosen[clip].view:
                names.setdefault(clip, row.get("video", ""))
    return names


# What each split family is, as the dataset card says it (docs/balancing.md, "Splits";
# docs/minimal-pairs.md).
FAMILY_TEXTS = {
    NORMAL: "stratified by reasoning type and answer (3 : 1 : 1); the yes and no questions of "
    "one text are dealt together, so every split keeps them 50/50.",
    INDIRECT: 'tests questions that refer to actions and objects indirectly ("the action '
    'right after ...", "the first object whose status the person changed") with training '
    "on direct references.",
    NOVEL_COMPOSITION: "concept pairs the question text shows (a verb with an object, an "
    "attribute with an object) are held out of train; their questions go 1 : 1 to validation "
    "and test, so test combines known concepts anew.",
    MORE_STEPS: "train and validation hold programs of at most k reasoning steps, test the "
    "longer ones.",
    HELD_OUT_OBJECTS: "objects some recordings lack (a category or a colour) are held out: "
    "the recordings using one go whole to validation or test, so train never sees it.",
    PAIR_FAMILY: "minimal pairs: each simulated episode simulated again with one change (an "
    "action skipped, failed or done in another order, or an object starting in another "
    "state), and one question text asked of the same clip window of both recordings, with two "
    "different answers. Both questions of a pair are in one split, drawn per episode (20% "
    "test, 10% validation). Score per pair: a pair counts right only if both its questions "
    "are right (`pair_id`, `pair_side`, `partner_id`; `pairs.jsonl` lists every pair with its "
    "intervention). A model that reads only the text answers both alike and gets no pair "
    "right.",
}


def dataset_card(
    title: str,
    manifest: Mapping[str, Any],
    counts: Mapping[str, Any],
    *,
    license: str = LICENSE,
    simulated: bool = False,
) -> str:
    configs = []
    for index, family in enumerate(counts):
        configs.append(f"- config_name: {family}")
        if index == 0:
            configs.append("  default: true")
        configs.append("  data_files:")
        for hf_split in HF_SPLITS.values():
            if not counts.get(family, {}).get(hf_split, 1):
                continue  # an empty split: `datasets` cannot read a Parquet file without rows
            configs += [f"  - split: {hf_split}", f"    path: data/{family}/{hf_split}.parquet"]
    rows = "\n".join(
        f"| {family} | {c['train']:,} | {c['validation']:,} | {c['test']:,} |"
        for family, c in counts.items()
    )
    families = "\n".join(
        f"- `{family}`: {FAMILY_TEXTS[family]}" for family in counts if family in FAMILY_TEXTS
    )
    corpus = manifest["corpus"]
    pair_fields = (
        "\n".join(
            f"- `{name}` (config `pairs` only): {text}" for name, text in PAIR_DESCRIPTIONS.items()
        )
        if PAIR_FAMILY in counts
        else ""
    )
    source = (
        "The recordings are **simulated**: a household world simulated by taskqa (`taskqa\n"
        "simulate`), its videos rendered from the simulation (a first-person view per person\n"
        "and a room camera), not filmed; the answers are exact for what was simulated."
        if simulated
        else "The recordings are the annotated recordings the benchmark was built from."
    )
    return f"""---
pretty_name: {title}
language:
- en
license: {license}
task_categories:
- visual-question-answering
- video-text-to-text
tags:
- egocentric-video
- procedural-reasoning
- taskqa
{"- synthetic" + chr(10) if simulated else ""}size_categories:
- {_size_category(_questions(manifest))}
configs:
{chr(10).join(configs)}
---

# {title}

A diagnostic video question answering benchmark about goal-oriented tasks, built by
taskqa {manifest["taskqa_version"]} in the style of
EgoTaskQA: templated questions whose answers are computed by programs over annotated world
states, causal dependencies between actions, intents and two people's awareness of each other.
{source}

## Splits

| config | train | validation | test |
|---|---:|---:|---:|
{rows}

{families}
- `<family>-mc`: the same questions as multiple choice, one row per rotation of an item's
  options: the distractors are answers the same question text has on other clips of the split,
  so the text alone cannot pick; score per item (rotation 0) and circularly (right in every
  rotation), as `taskqa evaluate --mc` does. `question_id` names the open-ended twin.

## How it was made

From {corpus["recordings"]} recordings (corpus sha256 `{corpus["sha256"][:16]}`), seed
{manifest["seed"]}: {manifest["counts"]["candidates"]:,} candidate questions were generated
exhaustively and balanced to {manifest["counts"]["balanced"]:,}: {_balancing_text(manifest)}
`taskqa build` with the same inputs and seed reproduces every file; the benchmark's
`manifest.json` holds the configuration and the sha256 of each file.

## Fields

{chr(10).join(f"- `{name}`: {text}" for name, text in DESCRIPTIONS.items())}
{pair_fields}

## Videos

`videos.csv` lists, for every clip, the recording, the person, the camera view, the video file
and the start and end seconds of the shown part. When the benchmark's recordings were rendered,
every clip is also cut into `videos/<clip>.mp4` and each question's `video` field names that
file; `source_video`, `start_s` and `end_s` always say where in the recording it comes from.

## Licence

{_licence_text(license, simulated)}

## Limitations

Questions are generated from templates and answered from annotations, so they inherit every
error of the annotations and the phrasing habits of the templates. Balancing removes answer
priors within groups of questions, not every textual shortcut: the build's diagnostics report
how well blind baselines do.
"""


def _licence_text(license: str, simulated: bool) -> str:
    """What the licence covers: everything taskqa made (the rendered videos of a simulation
    too); a real corpus's videos keep their own."""
    covered = "the questions, answers and programs" + (
        " and the rendered videos" if simulated else " (the videos keep their own licence)"
    )
    if license == "other":
        return f"Not a standard licence: ask whoever published this dataset. It covers {covered}."
    url = f" ({LICENSE_URLS[license]})" if license in LICENSE_URLS else ""
    return f"`{license}`{url}: {covered}."


def _balancing_text(manifest: Mapping[str, Any]) -> str:
    """How the build balanced, from its recorded configuration (docs/balancing.md)."""
    config = manifest.get("config", {}).get("balance", {})
    by = config.get("balance_by", "type")
    caps = (
        f"per reasoning type the {float(config.get('alpha', 0.2)):.0%} most frequent open "
        f"answers answer at most {float(config.get('beta', 0.333)):.1%} of its open questions "
        f"and binary : open = 1 : {config.get('open_per_binary', 2)}"
        + (f", at most {int(config['target']):,} questions in all" if config.get("target") else "")
    )
    if by == "type":
        return f"yes and no even within every reasoning type (EgoTaskQA's balancing); {caps}."
    group = (
        "each group of questions that read alike (one template, the same shown parameters and "
        "the same text)"
        if by == "text"
        else "each template"
    )
    text = (
        f"yes and no even within {group}, and no open answer answering more than "
        f"{float(config.get('group_share', 0.2)):.0%} of a group's open questions; then {caps}"
    )
    if config.get("mix", {}).get("enabled"):
        text += (
            "; then over-represented reasoning types cut towards EgoTaskQA's mix of types, "
            "scopes and semantic categories"
        )
    return text + "."


def _questions(manifest: Mapping[str, Any]) -> int:
    """The benchmark's questions: the balanced ones (every family deals them) and the pairs'."""
    counts = manifest.get("counts", {})
    paired = sum(int(counts.get(f"{PAIR_FAMILY}/{split}", 0)) for split in HF_SPLITS)
    return int(counts.get("balanced", 0)) + paired


def _size_category(questions: int) -> str:
    """The Hub's size category of a number of rows."""
    for bound, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if questions < bound:
            return name
    return "100K<n<1M"


def croissant(title: str, files: Mapping[str, str], *, license: str = LICENSE) -> dict[str, Any]:
    """Croissant 1.0 metadata (with RAI fields) for the exported Parquet files."""
    distribution: list[dict[str, Any]] = [
        {
            "@type": "cr:FileObject",
            "@id": path,
            "name": path,
            "contentUrl": path,
            "encodingFormat": "application/x-parquet",
            "sha256": digest,
        }
        for path, digest in files.items()
    ]
    record_sets = []
    families = dict.fromkeys(path.split("/")[1] for path in files if path.startswith("data/"))
    for family in families:
        for hf_split in HF_SPLITS.values():
            source = f"data/{family}/{hf_split}.parquet"
            set_id = f"{family}_{hf_split}"
            choice = family.endswith(MC_SUFFIX)
            schema, described = (MC_SCHEMA, MC_DESCRIPTIONS) if choice else (SCHEMA, DESCRIPTIONS)
            if family == PAIR_FAMILY:
                schema, described = PAIR_SCHEMA, {**DESCRIPTIONS, **PAIR_DESCRIPTIONS}
            what = "multiple-choice asks" if choice else "questions"
            record_sets.append(
                {
                    "@type": "cr:RecordSet",
                    "@id": set_id,
                    "name": set_id,
                    "description": f"The {hf_split} {what} of the {family} split.",
                    "field": [_field(set_id, source, c, described) for c in schema],
                }
            )
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "name": title,
        "description": (
            "A diagnostic video question answering benchmark about goal-oriented tasks, generated "
            "by taskqa from annotated recordings: templated questions with programs and answers."
        ),
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "license": LICENSE_URLS.get(license, license),
        "version": __version__,
        "citeAs": "taskqa: diagnostic benchmarks from annotated task recordings",
        "distribution": distribution,
        "recordSet": record_sets,
        **RAI,
    }


def _field(
    set_id: str, source: str, column: pa.Field, described: Mapping[str, str]
) -> dict[str, Any]:
    listed = pa.types.is_list(column.type)
    value_type = column.type.value_type if listed else column.type
    field: dict[str, Any] = {
        "@type": "cr:Field",
        "@id": f"{set_id}/{column.name}",
        "name": column.name,
        "description": described[column.name],
        "dataType": _data_type(value_type),
        "source": {"fileObject": {"@id": source}, "extract": {"column": column.name}},
    }
    if listed:
        field["repeated"] = True
    return field


def _data_type(value_type: pa.DataType) -> str:
    if pa.types.is_integer(value_type):
        return "sc:Integer"
    if pa.types.is_floating(value_type):
        return "sc:Float"
    return "sc:Text"


RAI = {
    "rai:dataCollection": (
        "Questions are generated by taskqa's templates from annotated recordings of people doing "
        "tasks (a simulated household world or a user's own annotations); no person is asked "
        "anything and no new recording is made."
    ),
    "rai:dataCollectionType": "Machine-generated from annotations",
    "rai:dataAnnotationProtocol": (
        "Answers are computed by executing each question's program on the annotations of the "
        "recording; `taskqa check` re-executes every program."
    ),
    "rai:dataBiases": (
        "Template phrasing and the distribution of tasks in the source recordings shape the "
        "questions; balancing evens yes/no answers and caps frequent open answers within each "
        "reasoning type, but textual regularities remain (see the build diagnostics)."
    ),
    "rai:dataLimitations": (
        "Answers are only as correct as the annotations; questions use a fixed vocabulary of "
        "templates and do not cover free-form language."
    ),
    "rai:personalSensitiveInformation": (
        "None in the questions; the referenced videos may show people and homes and stay under "
        "their own licence."
    ),
    "rai:dataUseCases": (
        "Evaluating and diagnosing video and language models on reasoning about actions, world "
        "states, intents and other people's awareness in goal-oriented tasks."
    ),
    "rai:dataSocialImpact": (
        "A diagnostic benchmark; it supports research on assistive agents that follow what people "
        "do. It is not meant for surveillance or for judging individuals."
    ),
}

CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "samplingRate": "cr:samplingRate",
    "equivalentProperty": "cr:equivalentProperty",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
