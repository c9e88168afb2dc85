"""``taskqa build``: corpus → candidates → balanced set → splits, as one benchmark folder.

The folder layout is documented in docs/benchmark-folder.md. Every step is seeded and global,
so the same corpus, templates and configuration give byte-identical files for any number of
workers; the manifest lists every file with its sha256.

A build says what it will do in one line, then each stage as it goes (``BuildProgress``). With
a ``journal`` (the command line's: a hidden folder beside the output) the work of its long
stages is kept there until the build ends, so that an interrupted build resumed with
``execution.resume`` takes it up again: the generation shards and the candidates they made,
the grounding shards, the minimal pairs' episodes and grounding shards, and the pairs' second
recordings already rendered (``kept_work`` says what is there).
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taskqa import __version__
from taskqa.answers import normalize_answer
from taskqa.atomic import staged_directory
from taskqa.benchmark import diagnostics
from taskqa.benchmark.balance import BalanceConfig, Balanced, balance
from taskqa.benchmark.candidates import Candidates, read_candidates
from taskqa.benchmark.evidence import cap_single_frame, per_template, tag_records
from taskqa.benchmark.folder import (
    HELD_OUT_OBJECTS,
    INDIRECT,
    MORE_STEPS,
    NORMAL,
    NOVEL_COMPOSITION,
    PAIR_FAMILY,
    FolderWriter,
    SplitQuestion,
    has_video,
)
from taskqa.benchmark.generalisation import (
    Family,
    held_out_objects,
    more_steps,
    novel_composition,
)
from taskqa.benchmark.grounding import ground_candidates
from taskqa.benchmark.multiple_choice import text_only_on_choices
from taskqa.benchmark.pairs import (
    add_second_recordings,
    asked_by_recording,
    blind_pair_scores,
    pairs_for_build,
    simulated_count,
    write_pairs,
)
from taskqa.benchmark.progress import BuildProgress, NoProgress
from taskqa.benchmark.report import build_report, category_counts
from taskqa.benchmark.splits import SPLITS, Disjoint, Split, indirect_split, normal_split
from taskqa.corpus import is_corpus
from taskqa.execution import Execution, fingerprint
from taskqa.jsonio import dumps_compact, load_json, write_json
from taskqa.model import Recording
from taskqa.problems import InvalidInputError, Problem, problems_from_validation_error
from taskqa.programs.clips import ClipRecord, read_clips
from taskqa.questions.config import GenerationConfig
from taskqa.questions.generate import clips_path, generate_file, summary_path
from taskqa.questions.records import Question
from taskqa.questions.self_check import check_records
from taskqa.questions.template import Template, load_templates
from taskqa.questions.world import CorpusWorld
from taskqa.reports import write_report


class BuildConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = 0
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    balance: BalanceConfig = Field(default_factory=BalanceConfig)
    disjoint: Disjoint = Field(
        "none", description="normal split: share clips between splits (none, as released), or not"
    )
    grounding: bool = Field(
        True, description="drop candidates whose evidence is off screen (docs/grounding.md)"
    )
    pairs: bool = Field(
        False, description="minimal pairs: a split family of questions asked of two recordings"
    )
    max_single_frame: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="most share of a template's questions one frame may answer (docs/evidence.md)",
    )
    allow_reference_mismatch: bool = Field(
        False,
        description="write the benchmark although some questions' references disagree with the "
        "clip's shown actions (the self-check, docs/questions.md); a warning says how many",
    )


def build_benchmark(
    corpus: Path,
    out: Path,
    config: BuildConfig,
    templates: Sequence[Template] | None = None,
    workers: int = 1,
    progress: BuildProgress | None = None,
    candidates_file: Path | None = None,
    execution: Execution | None = None,
    journal: Path | None = None,
) -> dict[str, Any]:
    """Build the benchmark folder ``out`` from ``corpus``; return its manifest.

    ``candidates_file`` reuses questions ``taskqa generate`` already made from this corpus (with
    its summary beside it), so balancing can be tried several ways without generating again.
    ``journal`` is the folder (and the stem of the folders beside it) that keeps the long
    stages' work until the build ends, for ``execution.resume`` after an interruption.
    """
    said = progress or NoProgress()
    execution = execution or Execution(workers=workers)
    world = CorpusWorld.open(corpus)  # the recordings and the corpus's own rules, read once
    recordings, verb_templates = list(world.recordings), dict(world.verb_templates or {})
    chosen = list(templates) if templates is not None else load_templates()
    generation = config.generation.model_copy(update={"seed": config.seed})
    balancing = config.balance.model_copy(update={"seed": config.seed})
    said.note(build_plan(corpus, recordings, config, candidates_file))
    with staged_directory(out) as stage:
        first_asked: dict[str, str] | None = None  # what generation asked, for --pairs
        if candidates_file is None:
            candidates_file, summary = _generate(
                world, chosen, generation, execution, stage, journal, said
            )
            if config.pairs:  # read before the grounding check rewrites the file
                first_asked = asked_by_recording(candidates_file)
        else:
            summary, generation = _candidates_generation(candidates_file)
            config = config.model_copy(update={"generation": generation})
        clips = read_clips(clips_path(candidates_file), _shown(candidates_file, clips_path))
        said.stage("grounding check: is each question's evidence on screen")
        grounded = ground_candidates(
            world,
            candidates_file,
            clips,
            stage / ".candidates.jsonl",
            config.grounding,
            execution,
            journal,
            said.status,
        )
        said.stage("balancing")
        candidates = read_candidates(grounded.path, balancing.with_reference)
        if not candidates.ids:
            # refused here, before an empty benchmark reaches baselines and exports
            raise InvalidInputError(
                [Problem(str(corpus), "", "no question could be generated from these recordings")]
            )
        balanced = balance(candidates, balancing)
        if not balanced.rows:
            message = f"balancing kept none of {len(candidates.ids):,} candidate questions"
            if balancing.balance_by != "type":
                message += "; too few of them read alike to pair (try --balance-by type)"
            raise InvalidInputError([Problem(str(corpus), "", message)])
        records = dict(zip(balanced.rows, candidates.records(balanced.rows), strict=True))
        _keep_distinct_aliases(records.values())
        said.stage("auditing what each answer needs of its clip")
        clips_name = _shown(candidates_file, clips_path)  # named in problems
        evidence = _audit_evidence(records, world, clips, clips_name)
        if config.max_single_frame is not None:
            capped = cap_single_frame(
                records, balanced.partners, config.max_single_frame, config.seed
            )
            balanced = replace(
                balanced,
                rows=[r for r in balanced.rows if r not in capped],
                partners={
                    a: b
                    for a, b in balanced.partners.items()
                    if a not in capped and b not in capped
                },
            )
            records = {r: records[r] for r in balanced.rows}
            evidence["dropped_by_cap"] = len(capped)
        evidence["kept"] = per_template(records.values())
        said.stage("self-check: each reference against the clip's shown actions")
        evidence["self_check"] = _self_check(records, world, clips, clips_name)
        _refuse_mismatches(evidence["self_check"], config.allow_reference_mismatch, said)
        _keep_present_direct_forms(records.values())
        said.stage("splitting, with each split family's diagnostics")
        assignments = {
            NORMAL: normal_split(
                candidates, balanced.rows, config.seed, config.disjoint, balanced.partners
            ),
            INDIRECT: indirect_split(candidates, balanced.rows, config.seed, balanced.partners),
        }
        families = _generalisation(records, balanced.partners, recordings, config.seed)
        assignments.update({name: f.assignment for name, f in families.items() if f.assignment})
        writer = FolderWriter(stage)
        sizes = _write_splits(writer, balanced.rows, records, assignments)
        results = {
            family: _diagnose(records, assignments[family], family) for family in assignments
        }
        for name, assignment in assignments.items():
            results[name]["multiple_choice"] = text_only_on_choices(
                _split_questions(records, assignment)
            )
        for name, family in families.items():
            results.setdefault(name, {"split_family": name})["info"] = family.info
        results[NORMAL]["disjoint_variants"] = _disjoint_effect(
            candidates, balanced, records, config.seed
        )
        built_pairs = None
        if config.pairs:
            built_pairs = pairs_for_build(
                corpus,
                recordings,
                chosen,
                generation,
                verb_templates,
                config.seed,
                config.grounding,
                execution,
                writer,
                said,
                kept_folder(journal, "pairs"),
                first_asked,
            )
            sizes[PAIR_FAMILY] = write_pairs(writer, built_pairs)
            built_pairs.summary["blind"] = blind_pair_scores(built_pairs.pairs)
        said.stage("writing the corpus copy, video list and report")
        writer.copy_corpus(corpus, recordings)
        used = _used_clips(clips, records.values(), candidates_file)
        every_recording = list(recordings)
        if built_pairs is not None:
            every_recording += add_second_recordings(
                writer,
                built_pairs,
                execution,
                said,
                kept_folder(journal, "pairs-videos"),
            )
            known = {clip.id for clip in used}
            used += [clip for clip in built_pairs.clips if clip.id not in known]
            said.stage("writing the video list and report")
        writer.write_clips(used)
        writer.write_videos(every_recording, used)
        writer.write_diagnostics(
            {
                **results,
                "balancing": _balancing_summary(balancing, balanced),
                "grounding": grounded.summary(),
                "evidence": evidence,
                **({"pairs": built_pairs.summary} if built_pairs is not None else {}),
            }
        )
        report = build_report(
            balanced.before,
            balanced.after,
            candidates.categories,
            category_counts(list(records.values())),
            sizes,
            results,
            balancing.alpha,
            _balancing_summary(balancing, balanced),
            grounded.summary(),
            evidence,
            built_pairs.summary if built_pairs is not None else None,
        )
        write_report(report, writer.diagnostics)
        for scratch in (stage / ".candidates.jsonl", stage / ".candidates.summary.json"):
            scratch.unlink(missing_ok=True)
        (stage / ".candidates.clips.jsonl").unlink(missing_ok=True)
        fields = {
            "taskqa_version": __version__,
            "seed": config.seed,
            "corpus": {
                "path": str(corpus),
                "recordings": len(recordings),
                "sha256": writer.corpus_digest(),
            },
            "config": config.model_dump(mode="json"),
            # how the questions were made (the candidates' own settings when given): clips.jsonl
            # carries the same per clip; readers use Benchmark.generation_config
            "generation": generation.model_dump(mode="json"),
            "clips": len(used),
            "templates": summary["templates"],
            "counts": {
                "candidates": len(candidates),
                "balanced": len(balanced.rows),
                "rejected": grounded.rejected(summary["rejected"]),
                **{f"{family}/{split}": n for family, s in sizes.items() for split, n in s.items()},
            },
            "grounding": grounded.summary(),
        }
        manifest = writer.manifest(fields)  # last: it lists every other file's sha256
        writer.write_manifest(manifest)
    said.finish()
    if journal is not None:
        for _, folder in kept_folders(journal):
            shutil.rmtree(folder, ignore_errors=True)
    return manifest


def build_plan(
    corpus: Path,
    recordings: Sequence[Recording],
    config: BuildConfig,
    candidates_file: Path | None,
) -> str:
    """The line a build starts with: what it reads, simulates and renders."""
    rendered = sum(1 for r in recordings if has_video(corpus, r)) if is_corpus(corpus) else 0
    shown = f"{rendered:,} of them rendered" if rendered else "none rendered"
    parts = [f"building from {len(recordings):,} recordings ({shown})"]
    parts.append(
        f"questions from {candidates_file}"
        if candidates_file is not None
        else "questions generated from every recording"
    )
    if config.grounding:
        parts.append("each checked on screen (low-resolution masks drawn, cached)")
    if config.pairs:
        episodes = simulated_count(recordings)
        parts.append(
            f"--pairs: {episodes:,} episodes simulated again, each with up to 16 changes; "
            + (
                f"the second recordings of the pairs of the {rendered:,} rendered episodes "
                "rendered as the corpus's videos were (the rest: `taskqa render BENCH`)"
                if rendered
                else "nothing rendered (`taskqa render BENCH` renders the benchmark's videos)"
            )
        )
    elif not rendered:
        parts.append("nothing rendered")
    return "; ".join(parts)


def _generate(
    world: CorpusWorld,
    templates: Sequence[Template],
    generation: GenerationConfig,
    execution: Execution,
    stage: Path,
    journal: Path | None,
    said: BuildProgress,
) -> tuple[Path, dict[str, Any]]:
    """Every candidate question, and generation's summary. With a journal they are written
    beside the output rather than into the staged folder, which an interruption deletes, and
    a resumed build takes them as they are (``build-candidates.json`` says for which run)."""
    folder = kept_folder(journal, "candidates")
    path = (folder or stage) / ".candidates.jsonl"
    recordings, verb_templates = world.recordings, dict(world.verb_templates or {})
    settings = [[t.digest() for t in templates], generation.model_dump(mode="json")]
    run = fingerprint(
        "build candidates",
        dumps_compact([settings, verb_templates, world.world]),
        *(r.model_dump_json() for r in recordings),
    )
    if folder is not None:
        marker = folder / KEPT_CANDIDATES
        if execution.resume and marker.is_file():
            if load_json(marker) != {"run": run}:
                message = (
                    "the interrupted build had other inputs or settings; run again without "
                    "--resume to start over"
                )
                raise InvalidInputError([Problem(str(folder), "", message)])
            said.note(f"resuming: the candidates generated before are in {folder}")
            return path, load_json(summary_path(path))
        shutil.rmtree(folder, ignore_errors=True)
    said.stage("generating candidates", len(recordings))
    summary = generate_file(
        recordings,
        templates,
        path,
        generation,
        verb_templates,
        on_progress=said.advance,
        domain=world.domain,
        execution=execution,
        journal=journal,
    )
    if folder is not None:
        write_json(folder / KEPT_CANDIDATES, {"run": run})  # last: the folder is complete
    return path, summary


KEPT_CANDIDATES = "build-candidates.json"
# The folders beside the output that keep a build's work until it ends, after the journal's own
# name (``.BENCH.shards``): what each holds, for the message an interruption prints.
KEPT = (
    ("", "generation shards"),
    ("candidates", "generated candidates"),
    ("grounding", "grounding-check shards"),
    ("pairs", "minimal-pair episodes"),
    ("pairs-grounding", "minimal-pair grounding-check shards"),
    ("pairs-videos", "rendered second recordings"),
)


def kept_folder(journal: Path | None, part: str) -> Path | None:
    """The folder beside the output that keeps ``part`` of a build (None without a journal)."""
    return None if journal is None else _beside(journal, part)


def kept_folders(journal: Path) -> list[tuple[str, Path]]:
    """Every folder a build may keep beside its output, with what it holds."""
    return [(what, _beside(journal, part)) for part, what in KEPT]


def _beside(journal: Path, part: str) -> Path:
    """``.BENCH.shards-PART`` (the journal itself for the generation shards, part "")."""
    return journal.with_name(f"{journal.name}-{part}") if part else journal


def kept_work(journal: Path) -> list[str]:
    """What an interrupted build left for ``--resume``, one phrase per folder that holds work
    (``minimal-pair episodes: 12 of 30 done (.bench.shards-pairs)``)."""
    from taskqa.execution.journal import JOURNAL

    said = []
    for what, folder in kept_folders(journal):
        if (folder / KEPT_CANDIDATES).is_file():
            said.append(f"{what}: all ({folder.name})")
            continue
        header = folder / JOURNAL
        if not header.is_file():
            header = folder / ".journal" / JOURNAL  # the rendered recordings' own journal
        try:
            total = int(load_json(header)["shards"])
        except (InvalidInputError, OSError, KeyError, TypeError, ValueError):
            continue
        done = sum(1 for _ in header.parent.glob("*.sha256"))
        if done:
            said.append(f"{what}: {done:,} of {total:,} done ({folder.name})")
    return said


def interrupted_message(out: Path, journal: Path) -> str:
    """What an interrupted build prints: what it kept and how to take it up again."""
    kept = kept_work(journal)
    if not kept:
        return (
            f"build interrupted; {out} was not written and no stage had finished work to keep "
            "(masks the grounding check drew stay cached); run the command again"
        )
    return (
        f"build interrupted; {out} was not written. Kept beside it for --resume: "
        + "; ".join(kept)
        + ". Run the same command with --resume to go on from there (without --resume the "
        "build starts over and removes them)."
    )


def _audit_evidence(
    records: Mapping[int, dict[str, Any]],
    world: CorpusWorld,
    clips: Mapping[str, ClipRecord],
    clips_name: str,
) -> dict[str, Any]:
    """Tag every kept record with what its answer needs of the clip (``evidence``), and say
    how the tags fall before any cap."""
    kept = list(records.values())
    tag_records(kept, world, clips, clips_name)
    return {"audited": per_template(kept)}


def _self_check(
    records: Mapping[int, dict[str, Any]],
    world: CorpusWorld,
    clips: Mapping[str, ClipRecord],
    clips_name: str,
) -> dict[str, Any]:
    """Every kept question's references worked out again from its clip's shown actions."""
    return check_records(records.values(), world, clips, clips_name).summary()


def _refuse_mismatches(found: Mapping[str, Any], allowed: bool, said: BuildProgress) -> None:
    """No benchmark is written with a question whose references the clip's actions contradict,
    unless the user allows it (then a warning says how many)."""
    count = int(found["disagreeing"])
    if count == 0:
        return
    templates = ", ".join(f"{t} ({n})" for t, n in found["by_template"].items())
    message = (
        f"{count:,} questions' references disagree with their clips' shown actions "
        f"(self-check; by template: {templates})"
    )
    if not allowed:
        raise InvalidInputError(
            [Problem("build", "", message + "; --allow-reference-mismatch writes them anyway")]
        )
    said.note("warning: " + message + "; written anyway (--allow-reference-mismatch)")


def _generalisation(
    records: Mapping[int, dict[str, Any]],
    partners: Mapping[int, int],
    recordings: Sequence[Recording],
    seed: int,
) -> dict[str, Family]:
    """The generalisation split families (generalisation.py), by name."""
    by_id = {recording.id: recording for recording in recordings}
    return {
        NOVEL_COMPOSITION: novel_composition(records, partners, seed),
        MORE_STEPS: more_steps(records, partners, seed),
        HELD_OUT_OBJECTS: held_out_objects(records, partners, by_id, seed),
    }


def _keep_present_direct_forms(records: Iterable[dict[str, Any]]) -> None:
    """``direct_equiv`` only where the direct form is a question of the benchmark too."""
    every = list(records)
    present = {str(r["id"]) for r in every}
    for record in every:
        if record.get("direct_equiv") not in present:
            record["direct_equiv"] = None


def _keep_distinct_aliases(records: Iterable[dict[str, Any]]) -> None:
    """Drop an answer alias that reads as another answer of the benchmark ("watch tv", the raw
    form of the task "watching TV", is also the action "watch the TV"): it would make a
    prediction right for two answers. Every scorer (``evaluate``, the exports) then agrees."""
    every = list(records)
    answers = {normalize_answer(str(r["answer"])) for r in every}
    for record in every:
        own = normalize_answer(str(record["answer"]))
        aliases = record.get("answer_aliases") or []
        record["answer_aliases"] = [
            a for a in aliases if normalize_answer(a) == own or normalize_answer(a) not in answers
        ]


def _balancing_summary(config: BalanceConfig, balanced: Balanced) -> dict[str, Any]:
    return {
        "balance_by": config.balance_by,
        "group_share": config.group_share,
        "semantic_shares": config.semantic_shares,
        "groups": balanced.groups,
        "dropped": balanced.dropped,
        "lost_by_type": balanced.lost_by_type,
        "mix": balanced.mix,
    }


def _write_splits(
    writer: FolderWriter,
    rows: Sequence[int],
    records: Mapping[int, dict[str, Any]],
    assignments: Mapping[str, Mapping[int, Split]],
) -> dict[str, dict[str, int]]:
    """Every balanced family's split files and train answer vocabulary; returns their sizes."""
    sizes: dict[str, dict[str, int]] = {}
    for family, assignment in assignments.items():
        by_split: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLITS}
        for row in rows:  # file order, so splits read like the candidates
            if row in assignment:
                by_split[assignment[row]].append(records[row])
        sizes[family] = writer.write_family(family, by_split)
        writer.write_answers(family, diagnostics.vocabulary(by_split["train"]))
    return sizes


def _split_questions(
    records: Mapping[int, dict[str, Any]], assignment: Mapping[int, Split]
) -> dict[str, list[SplitQuestion]]:
    """A family's questions by split, as the split files will hold them."""
    parts = _by_split(records, assignment)
    return {
        split: [SplitQuestion(Question.model_validate(r), split) for r in rows]
        for split, rows in parts.items()
    }


def _by_split(
    records: Mapping[int, dict[str, Any]], assignment: Mapping[int, Split]
) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLITS}
    for row in sorted(assignment):
        grouped[assignment[row]].append(records[row])
    return grouped


def _diagnose(
    records: Mapping[int, dict[str, Any]], assignment: Mapping[int, Split], family: str
) -> dict[str, Any]:
    parts = _by_split(records, assignment)
    train, test = parts["train"], parts["test"]
    predictions = {
        "most likely": diagnostics.most_likely(train, test),
        "question text": diagnostics.question_text(train, test),
        "text classifier": diagnostics.text_classifier(train, test),
    }
    return {
        "split_family": family,
        "out_of_vocabulary": {
            "val": diagnostics.out_of_vocabulary(train, parts["val"]),
            "test": diagnostics.out_of_vocabulary(train, test),
        },
        "baselines": {
            name: diagnostics.accuracy(test, predicted) for name, predicted in predictions.items()
        },
        "chance": diagnostics.chance(train, test),
        "templates": diagnostics.by_template(
            test, predictions, diagnostics.chance_values(train, test)
        ),
    }


def _disjoint_effect(
    candidates: Candidates, balanced: Balanced, records: Mapping[int, dict[str, Any]], seed: int
) -> dict[str, Any]:
    """The normal split's diagnostics when clips or recordings may not cross splits."""
    effect: dict[str, Any] = {}
    modes: tuple[Disjoint, ...] = ("none", "clip", "recording")
    for disjoint in modes:
        assignment = normal_split(candidates, balanced.rows, seed, disjoint, balanced.partners)
        result = _diagnose(records, assignment, NORMAL)
        parts = _by_split(records, assignment)
        train_clips = {r["clip"] for r in parts["train"]}
        shared = sum(r["clip"] in train_clips for r in parts["test"])
        result["test_questions_on_train_clips"] = (
            shared / len(parts["test"]) if parts["test"] else 0
        )
        result["sizes"] = {split: len(items) for split, items in parts.items()}
        effect[disjoint] = result
    return effect


def _candidates_generation(candidates: Path) -> tuple[dict[str, Any], GenerationConfig]:
    """The summary ``taskqa generate`` wrote beside ``candidates``, and its generation settings
    (the clip length and rules the questions were really made with)."""
    summary_file = summary_path(candidates)
    if not summary_file.is_file():
        message = (
            f"no {summary_file.name} beside it; expected the output of `taskqa generate`, which "
            "writes the questions, their summary and their clips"
        )
        raise InvalidInputError([Problem(str(candidates), "", message)])
    summary = load_json(summary_file)
    shown = _shown(candidates, summary_path)
    if not isinstance(summary, dict) or not isinstance(summary.get("config"), dict):
        raise InvalidInputError([Problem.at(shown, ["config"], "expected the generation settings")])
    try:
        generation = GenerationConfig.model_validate(summary["config"])
    except ValidationError as error:
        raise InvalidInputError(problems_from_validation_error(shown, ["config"], error)) from None
    if not clips_path(candidates).is_file():
        message = (
            f"no {clips_path(candidates).name} beside it (made by taskqa 0.x before clips were "
            "written); run `taskqa generate` again"
        )
        raise InvalidInputError([Problem(str(candidates), "", message)])
    return summary, generation


def _shown(candidates: Path, sidecar: Callable[[Path], Path]) -> str:
    """A sidecar file's name as problems show it: the scratch candidates are named plainly."""
    path = sidecar(candidates)
    return path.name if candidates.name == ".candidates.jsonl" else str(path)


def _used_clips(
    clips: Mapping[str, ClipRecord], records: Iterable[Mapping[str, Any]], candidates: Path
) -> list[ClipRecord]:
    """The clips the benchmark's questions are asked on, in the candidates' clip order."""
    used = {str(r["clip"]) for r in records}
    missing = sorted(used - clips.keys())
    if missing:
        message = (
            f"{len(missing)} clips of its questions are not in {clips_path(candidates).name} "
            f"(first: {missing[0]!r}); the files do not belong together"
        )
        raise InvalidInputError([Problem(str(candidates), "", message)])
    return [record for clip, record in clips.items() if clip in used]


def counts_by_answer(records: Sequence[Mapping[str, Any]]) -> Counter[str]:
    return Counter(str(r["answer"]) for r in records)
