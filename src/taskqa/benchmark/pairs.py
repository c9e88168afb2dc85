"""Minimal pairs: one question text, two clips that differ in one fact, two answers.

``taskqa build --pairs`` re-simulates each simulated recording, changes it in one place
(``simulation/intervene.py``: an action skipped, failed or done in another order, or an object
starting in another state), and asks both versions. A question is kept as a pair when its text
is the same on the same clip window of both recordings and its answer differs. A model that
reads only the text answers both alike and gets no pair right; one that watches gets both.
Docs: docs/minimal-pairs.md.

The first recording's questions are every question of every template (in a build, its own
candidates); the second recording is asked only the texts the first one asked on each window
whose frames changed (``questions_for_recording(texts=...)``), which gives exactly the questions
with those texts that asking everything gives, so the pairs are the same.

Per episode at most ``per_variant`` pairs are kept from each second recording, one per template,
and a question of the first recording is used in one pair only (ids stay unique in a split);
the choice is seeded. Both questions of a pair go to the same split, drawn per episode.

A pair's two clips are rendered both or neither: a second recording is rendered in a build only
where its first recording has video, so a partly rendered corpus gives no pair with one side
to see; ``taskqa render BENCH`` renders the rest.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taskqa.answers import normalize_answer
from taskqa.atomic import sha256_file
from taskqa.benchmark.balance import rank
from taskqa.benchmark.folder import (
    PAIR_FAMILY,
    FolderWriter,
    has_video,
    pair_id,
    pairs_both_right,
)
from taskqa.benchmark.progress import BuildProgress, NoProgress
from taskqa.benchmark.splits import SPLITS
from taskqa.execution import Execution, ShardJournal, fingerprint, run_shards
from taskqa.jsonio import dumps_compact, read_jsonl_objects, record_text
from taskqa.model import Recording
from taskqa.problems import InvalidInputError, Problem
from taskqa.programs.clips import Clip, ClipConfig, ClipRecord, cut_clips, windows
from taskqa.questions.config import GenerationConfig
from taskqa.questions.generate import questions_for_recording
from taskqa.questions.records import Question
from taskqa.questions.template import Template
from taskqa.questions.world import World
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import run_episode
from taskqa.simulation.domain import Domain, parse_domain
from taskqa.simulation.intervene import variants

if TYPE_CHECKING:  # the renderer loads only where a build renders
    from taskqa.household.options import RenderOptions

SPLIT_SHARES = (("test", 0.2), ("val", 0.1))  # the rest is train
SIDES = ("question_a", "question_b")  # a pair's two question records, a then b
_EPISODE = re.compile(r"-(\d{5})$")


@dataclass(frozen=True)
class PairConfig:
    per_kind: int = 4  # second recordings per intervention kind and episode
    per_variant: int = 4  # pairs kept per second recording
    seed: int = 0


@dataclass
class PairSet:
    """What ``make_pairs`` found: the pairs (a then b question records each), the second
    recordings they need, and counts."""

    pairs: list[dict[str, Any]] = field(default_factory=list)
    recordings: list[Recording] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)

    def questions(self) -> list[dict[str, Any]]:
        return [
            record for pair in self.pairs for record in (pair["question_a"], pair["question_b"])
        ]


# What every shard shares: templates, generation settings, verb templates, the world, the
# domain's source and file name, the simulation settings, and the pair settings.
PairContext = tuple[
    list[Template],
    GenerationConfig,
    dict[str, str] | None,
    World,
    str,
    str,
    dict[str, Any],
    PairConfig,
]


def make_pairs(
    recordings: Sequence[Recording],
    domain: Domain,
    simulation: SimulationConfig,
    templates: Sequence[Template],
    generation: GenerationConfig,
    verb_templates: dict[str, str] | None,
    world: World,
    config: PairConfig,
    execution: Execution | None = None,
    on_progress: Callable[[int], None] | None = None,
    journal: Path | None = None,
    first_asked: Mapping[str, str] | None = None,
) -> PairSet:
    """The minimal pairs of every simulated recording, one shard per recording.

    ``journal`` records each finished shard for a resumed run (``execution.resume``); it is
    left in place for the caller to remove once what it feeds is done. ``first_asked`` holds
    the questions generation already asked of the recordings with these templates, settings
    and world (by recording id, the lines ``generate_file`` writes; ``asked_by_recording``):
    they are the first recordings' questions, not asked again."""
    execution = execution or Execution()
    context: PairContext = (
        list(templates),
        generation,
        verb_templates,
        world,
        domain.source_text,
        domain.file_name,
        simulation.model_dump(mode="json"),
        config,
    )
    chosen = [r for r in recordings if _EPISODE.search(r.id)]
    # each episode travels with its questions' lines after its own one-line JSON, if given
    payloads = [
        r.model_dump_json() + ("" if first_asked is None else "\n" + first_asked.get(r.id, ""))
        for r in chosen
    ]
    labels = [f"{index} (recording {r.id})" for index, r in enumerate(chosen)]
    found = PairSet()
    found.counts["recordings not simulated"] = len(recordings) - len(chosen)
    shards = None
    if journal is not None:
        settings = [
            [t.digest() for t in templates],
            generation.model_dump(mode="json"),
            verb_templates,
            world,
            domain.source_text,
            simulation.model_dump(mode="json"),
            asdict(config),
        ]
        run = fingerprint("pairs", dumps_compact(settings), *payloads)
        shards = ShardJournal(journal, run, len(payloads), execution.resume)
    with execution.open() as executor:
        results = run_shards(executor, _pair_shard, context, payloads, labels, shards)
        for pairs, seconds, counts in results:
            found.pairs += pairs
            found.recordings += [Recording.model_validate_json(text) for text in seconds]
            found.counts.update(counts)
            if on_progress is not None:
                on_progress(1)
    return found


def _pair_shard(
    context: PairContext, payload: str
) -> tuple[list[dict[str, Any]], list[str], Counter[str]]:
    """One episode's pairs; ``payload`` is the recording as one line of JSON, then the lines of
    the questions generation asked of it, if it did (without: they are asked here)."""
    templates, generation, verb_templates, world, source, file_name, simulated, config = context
    domain = parse_domain(source, file_name)
    recording_json, given, asked_lines = payload.partition("\n")
    recording = Recording.model_validate_json(recording_json)
    counts: Counter[str] = Counter()
    match = _EPISODE.search(recording.id)
    if match is None:
        return [], [], counts
    run = run_episode(domain, SimulationConfig.model_validate(simulated), int(match.group(1)))
    first = run.recording()
    if run.name != recording.id or first.actions != recording.actions:
        counts["recordings the corpus's settings do not simulate again"] += 1
        return [], [], counts
    if not given:
        asked_first = _keyed(recording, templates, generation, verb_templates, world)
    else:
        asked_first = _keyed_lines(recording, asked_lines, generation.clips)
    shown_first, seen_first = _shown(recording, generation.clips)
    said_first = {key: normalize_answer(question.answer) for key, question in asked_first.items()}
    used: set[str] = set()
    pairs: list[dict[str, Any]] = []
    seconds: list[str] = []
    for variant in variants(run, config.per_kind, config.seed):
        counts[f"second recordings: {variant.intervention.kind}"] += 1
        second = variant.recording
        shown_second, seen_second = _shown(second, generation.clips)
        # only clips whose frames differ: a change in the unseen future alone would flip an
        # answer while both videos look the same
        changed = {
            key
            for key, seen in seen_second.items()
            if seen_first.get(key) != seen and shown_first.get(key) != shown_second[key]
        }
        # a pair is one text on one window of both: the second recording is asked only the
        # texts the first asked on its changed windows (a question used in a pair already
        # pairs no more), and generation skips all that cannot read as one of them
        wanted: dict[tuple[str, int], set[str]] = {}
        for (agent, window, _, text), question in asked_first.items():
            if (agent, window) in changed and question.id not in used:
                wanted.setdefault((agent, window), set()).add(text)
        asked_second = _keyed(second, templates, generation, verb_templates, world, wanted)
        found = [
            (asked_first[key], question)
            for key, question in asked_second.items()
            if key in asked_first and said_first[key] != normalize_answer(question.answer)
        ]
        found.sort(key=lambda pair: rank(config.seed, f"pair:{pair[1].id}"))
        kept: list[tuple[Question, Question]] = []
        templates_kept: set[str] = set()
        for a, b in found:
            if len(kept) >= config.per_variant:
                break
            if a.id in used or a.template in templates_kept:
                continue
            used.add(a.id)
            templates_kept.add(a.template)
            kept.append((a, b))
        if not kept:
            counts[f"second recordings without a pair: {variant.intervention.kind}"] += 1
            continue
        seconds.append(second.model_dump_json())
        for a, b in kept:
            pairs.append(
                {
                    "a": a.id,
                    "b": b.id,
                    "intervention": variant.intervention.to_json(),
                    "recording_a": recording.id,
                    "recording_b": second.id,
                    "question_a": _record(a),
                    "question_b": _record(b),
                }
            )
        counts[f"pairs: {variant.intervention.kind}"] += len(kept)
    return pairs, seconds, counts


def _keyed(
    recording: Recording,
    templates: Sequence[Template],
    generation: GenerationConfig,
    verb_templates: dict[str, str] | None,
    world: World,
    wanted: Mapping[tuple[str, int], Collection[str]] | None = None,
) -> dict[tuple[str, int, str, str], Question]:
    """The recording's questions by (person, clip window, template, text): the same key on
    both recordings of a pair is the same question asked of the same stretch of time.
    ``wanted`` limits them to these texts on these (person, window) clips."""
    window = _windows(recording, generation.clips)

    def texts(clip: Clip) -> Collection[str]:
        return () if wanted is None else wanted.get((clip.agent, window[clip.id]), ())

    asked = questions_for_recording(
        recording,
        templates,
        generation,
        verb_templates,
        None,
        world,
        None if wanted is None else texts,
    )
    return {(q.agent, window[q.clip], q.template, q.question): q for q in asked}


def asked_by_recording(candidates: Path) -> dict[str, str]:
    """The lines of a file of generated questions by recording id: what ``pairs_for_build``
    takes as the questions already asked of the first recordings."""
    lines: dict[str, list[str]] = {}
    with candidates.open(encoding="utf-8", newline="\n") as stream:
        for line in stream:
            if line.strip():
                lines.setdefault(json.loads(line)["recording"], []).append(line)
    return {recording: "".join(texts) for recording, texts in lines.items()}


def _keyed_lines(
    recording: Recording, lines: str, clips: ClipConfig
) -> dict[tuple[str, int, str, str], Question]:
    """``_keyed`` of questions generation already asked of ``recording`` (its JSONL lines)."""
    window = _windows(recording, clips)
    # split at newlines only: JSON text may hold other line breaks (U+2028) that splitlines cuts
    asked = [Question.model_construct(**json.loads(line)) for line in lines.split("\n") if line]
    return {(q.agent, window[q.clip], q.template, q.question): q for q in asked}


def _shown(
    recording: Recording, clips: ClipConfig
) -> tuple[dict[tuple[str, int], str], dict[tuple[str, int], str]]:
    """What each (person, window) clip holds, as text: every action it shows, overlaps and has
    next, with its outcome and the states around it (ids left out, since a skipped action
    renumbers the rest); and the same without what it has next. Where the first texts of a
    pair's two recordings agree, so do the answers; where the second ones do, the frames."""
    window = _windows(recording, clips)
    said = {a.id: a.model_dump(mode="json", exclude={"id"}) for a in recording.actions}
    held: dict[tuple[str, int], str] = {}
    seen: dict[tuple[str, int], str] = {}
    for clip in cut_clips(recording, clips):
        observed, others, future = (
            [said[i] for i in group if i in said]
            for group in (clip.observed, clip.others, clip.future)
        )
        key = (clip.agent, window[clip.id])
        held[key] = record_text([observed, others, future], sort_keys=True)
        seen[key] = record_text([observed, others], sort_keys=True)
    return held, seen


def _windows(recording: Recording, clips: ClipConfig) -> dict[str, int]:
    """Each clip's window number: clips are cut in equal windows of the recording's duration,
    so a clip's start tells its window whatever actions it shows."""
    _, width = windows(recording, clips)
    return {clip.id: int(clip.start // width) for clip in cut_clips(recording, clips)}


def _record(question: Question) -> dict[str, Any]:
    record = dict(question.__dict__)
    del record["split"]
    return record


def pair_split(recording: str, seed: int) -> str:
    """The split of an episode's pairs: a seeded draw per first recording."""
    draw = rank(seed, f"pairs-split:{recording}") / 2**64
    bound = 0.0
    for split, share in SPLIT_SHARES:
        bound += share
        if draw < bound:
            return split
    return "train"


def pair_line(pair: Mapping[str, Any]) -> dict[str, Any]:
    """A line of ``pairs.jsonl``: the pair's id, its two question ids, the intervention, both
    recordings, and what a reader wants at a glance (template, text, both answers, split)."""
    a, b = pair["question_a"], pair["question_b"]
    return {
        "id": pair_id(pair["a"], pair["b"]),
        "a": pair["a"],
        "b": pair["b"],
        "intervention": pair["intervention"],
        "recording_a": pair["recording_a"],
        "recording_b": pair["recording_b"],
        "split": pair["split"],
        "template": a["template"],
        "question": a["question"],
        "answer_a": a["answer"],
        "answer_b": b["answer"],
    }


def summary(pairs: Sequence[Mapping[str, Any]], counts: Counter[str]) -> dict[str, Any]:
    """Pairs per intervention kind, split, reasoning type and semantic category."""
    kinds = Counter(str(p["intervention"]["kind"]) for p in pairs)
    splits = Counter(str(p["split"]) for p in pairs)
    types = Counter(t for p in pairs for t in p["question_a"]["types"])
    semantic = Counter(str(p["question_a"]["semantic"]) for p in pairs)
    return {
        "pairs": len(pairs),
        "by_intervention": dict(sorted(kinds.items())),
        "by_split": dict(sorted(splits.items())),
        "by_type": dict(sorted(types.items())),
        "by_semantic": dict(sorted(semantic.items())),
        "second_recordings": len({p["recording_b"] for p in pairs}),
        "counts": dict(sorted(counts.items())),
    }


# --- in a build ------------------------------------------------------------------------------


@dataclass
class BuiltPairs:
    """The pairs a build keeps (each with its ``split``), the second recordings they need, the
    clips of both sides, and the summary the diagnostics carry."""

    pairs: list[dict[str, Any]]
    recordings: list[Recording]
    clips: list[ClipRecord]
    summary: dict[str, Any]


def pairs_for_build(
    corpus: Path,
    recordings: Sequence[Recording],
    templates: Sequence[Template],
    generation: GenerationConfig,
    verb_templates: dict[str, str] | None,
    seed: int,
    grounding: bool,
    execution: Execution,
    writer: FolderWriter,
    progress: BuildProgress | None = None,
    journal: Path | None = None,
    first_asked: Mapping[str, str] | None = None,
) -> BuiltPairs:
    """Find the pairs, drop those with a side whose evidence is off screen (the grounding check
    the other questions pass), and draw each episode's split. ``writer`` is the benchmark
    folder being built, which keeps the questions asked of both recordings
    (``pairs.candidates.jsonl``); ``journal`` (a folder beside the output) keeps the finished
    episodes and grounding shards for a resumed build. ``first_asked`` are the questions the
    build generated from ``recordings`` with these templates and settings
    (``asked_by_recording``): the first recordings' questions, taken rather than asked again."""
    from taskqa.benchmark.grounding import ground_candidates
    from taskqa.corpus import read_manifest
    from taskqa.programs.clips import clip_record
    from taskqa.questions.indirect import with_indirect
    from taskqa.questions.world import CorpusWorld, corpus_world
    from taskqa.simulation.corpus import corpus_domain

    manifest = read_manifest(corpus)
    if not manifest.config:
        message = "--pairs re-simulates episodes; expected a corpus made by `taskqa simulate`"
        raise InvalidInputError([Problem(str(corpus), "", message)])
    simulation = SimulationConfig.model_validate(
        {k: v for k, v in manifest.config.items() if k != "domain_sha256"}
    )
    domain = corpus_domain(corpus, recordings)
    if domain is None:
        message = "--pairs re-simulates episodes; the corpus's recordings name no known domain"
        raise InvalidInputError([Problem(str(corpus), "", message)])
    said = progress or NoProgress()
    chosen = with_indirect(templates) if generation.indirect else list(templates)
    said.stage(
        "minimal pairs: re-simulating each episode with one change",
        simulated_count(recordings),
        "episodes",
    )
    found = make_pairs(
        recordings,
        domain,
        simulation,
        chosen,
        generation,
        verb_templates,
        corpus_world(recordings, domain),
        PairConfig(seed=seed),
        execution,
        said.advance,
        journal,
        first_asked,
    )
    settings = generation.model_dump(mode="json")
    every = [*recordings, *found.recordings]
    clips = {
        clip.id: ClipRecord.model_validate(clip_record(clip, settings))
        for recording in every
        for clip in cut_clips(recording, generation.clips)
    }
    asked = writer.write_pair_candidates(found.questions())
    said.stage("minimal pairs: grounding check of both clips of every pair")
    asked_world = CorpusWorld.of(every, verb_templates, domain)  # both sides, one world
    grounded = ground_candidates(
        asked_world, asked, clips, asked, grounding, execution, journal, said.status
    )
    kept_ids = {str(record["id"]) for _, record in read_jsonl_objects(grounded.path)}
    pairs = [p for p in found.pairs if p["a"] in kept_ids and p["b"] in kept_ids]
    found.counts["pairs with a side off screen"] = len(found.pairs) - len(pairs)
    for pair in pairs:
        pair["split"] = pair_split(pair["recording_a"], seed)
    from taskqa.benchmark.evidence import tag_records

    records = [p[key] for p in pairs for key in ("question_a", "question_b")]
    tag_records(records, asked_world, clips, asked.name)
    needed = {p["recording_b"] for p in pairs}
    used_clips = {str(p[key]["clip"]) for p in pairs for key in ("question_a", "question_b")}
    return BuiltPairs(
        pairs=pairs,
        recordings=[r for r in found.recordings if r.id in needed],
        clips=[record for clip, record in clips.items() if clip in used_clips],
        summary=summary(pairs, found.counts),
    )


def write_pairs(writer: FolderWriter, built: BuiltPairs) -> dict[str, int]:
    """``pairs.jsonl`` and the ``pairs`` split family (both questions of a pair, a then b, in
    the pair's split); returns the split sizes."""
    writer.write_pairs(pair_line(p) for p in built.pairs)
    by_split: dict[str, list[dict[str, Any]]] = {
        split: [p[key] for p in built.pairs if p["split"] == split for key in SIDES]
        for split in SPLITS
    }
    return writer.write_family(PAIR_FAMILY, by_split)


def blind_pair_scores(pairs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the build's text-only baselines get on the test pairs, trained on the train pairs'
    questions: per question and per pair (both right), beside the chance a guess has of
    getting a pair right (the product of its two questions' chances)."""
    from taskqa.benchmark import diagnostics

    train = [p[k] for p in pairs if p["split"] == "train" for k in SIDES]
    test_pairs = [p for p in pairs if p["split"] == "test"]
    test = [p[k] for p in test_pairs for k in SIDES]
    if not train or not test:
        return {}
    chances = diagnostics.chance_values(train, test)
    scores: dict[str, Any] = {
        "test_pairs": len(test_pairs),
        "chance_per_pair": round(
            100
            * sum(a * b for a, b in zip(chances[::2], chances[1::2], strict=True))
            / len(test_pairs),
            2,
        ),
    }
    for name, predict in (
        ("most likely", diagnostics.most_likely),
        ("question text", diagnostics.question_text),
        ("text classifier", diagnostics.text_classifier),
    ):
        predicted = predict(train, test)
        right = {
            str(record["id"]): answer == record["answer"]
            for record, answer in zip(test, predicted, strict=True)
        }
        # pair accuracy as folder.pair_accuracy counts it, in % as the report prints it
        both, scored = pairs_both_right(test_pairs, right)
        scores[name] = {
            "question_accuracy": round(100 * sum(right.values()) / len(right), 2),
            "pair_accuracy": round(100 * both / scored, 2) if scored else 0.0,
        }
    return scores


def simulated_count(recordings: Sequence[Recording]) -> int:
    """The recordings ``--pairs`` simulates again: simulated episodes (``...-00012``)."""
    return sum(1 for r in recordings if _EPISODE.search(r.id))


def add_second_recordings(
    writer: FolderWriter,
    built: BuiltPairs,
    execution: Execution,
    progress: BuildProgress | None = None,
    scratch: Path | None = None,
) -> list[Recording]:
    """Add the pairs' second recordings to the benchmark's copy of the corpus (``writer``'s), and
    render those
    whose first recording has video there as the corpus's own videos were rendered (same
    options), so that a pair's clips are rendered both or neither; returns them as the copy
    now holds them (video references included).

    ``scratch`` (a folder beside the output) is where they are rendered first, with a journal:
    an interrupted build keeps them there and a resumed one renders only the rest."""
    from taskqa.convert import read_recordings
    from taskqa.household.manifest import rendered_options

    said = progress or NoProgress()
    if not built.recordings:
        return []
    # the copy is the build's own staged folder: its two files are rewritten in place
    corpus = writer.corpus
    existing, _ = read_recordings(corpus)
    writer.add_recordings(existing, built.recordings)
    drawn = seconds_to_render(corpus, existing, built)
    options = rendered_options(corpus)
    if drawn and options is None:
        said.note(
            "minimal pairs: the corpus's videos/manifest.json does not say how its videos were "
            f"rendered, so the {len(drawn):,} second recordings of rendered episodes are not; "
            "`taskqa render BENCH` renders them"
        )
    elif drawn and options is not None:
        said.stage("minimal pairs: rendering second recordings", len(drawn))
        _render_seconds(corpus, drawn, options, execution, said, scratch)
    chosen = {r.id for r in built.recordings}
    return [r for r in read_recordings(corpus)[0] if r.id in chosen]


def seconds_to_render(
    corpus: Path, firsts: Sequence[Recording], built: BuiltPairs
) -> list[Recording]:
    """The second recordings whose first recording has video in ``corpus``: the ones a build
    renders, so that no pair has one clip to see and the other not."""
    drawn_firsts = {r.id for r in firsts if has_video(corpus, r)}
    first_of = {str(p["recording_b"]): str(p["recording_a"]) for p in built.pairs}
    return [r for r in built.recordings if first_of.get(r.id) in drawn_firsts]


def _render_seconds(
    corpus: Path,
    recordings: Sequence[Recording],
    options: RenderOptions,
    execution: Execution,
    progress: BuildProgress,
    scratch: Path | None,
) -> None:
    from taskqa.corpus import point_videos
    from taskqa.household.corpus_videos import render_corpus
    from taskqa.household.manifest import write_manifest

    if scratch is None:
        ids = [r.id for r in recordings]
        render_corpus(
            corpus, options=options, ids=ids, execution=execution, on_progress=progress.advance
        )
        return
    # rendered beside the output, not in the staged folder an interruption deletes: a resumed
    # build finds the files and the journal of the recordings already drawn
    if not execution.resume:
        shutil.rmtree(scratch, ignore_errors=True)
    _write_scratch_corpus(corpus, recordings, scratch)
    rendered = render_corpus(
        scratch,
        options=options,
        execution=execution,
        on_progress=progress.advance,
        journal=scratch / ".journal",
    )
    digests: dict[str, str] = {}
    for recording in rendered:
        for name in recording.files:  # relative to the corpus: the same in both
            (corpus / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(scratch / name, corpus / name)
            digests[name] = sha256_file(corpus / name)
    write_manifest(corpus / "videos", corpus, digests, options)
    point_videos(corpus, {r.recording: r.videos for r in rendered})


def _write_scratch_corpus(source: Path, recordings: Sequence[Recording], scratch: Path) -> None:
    """A corpus of ``recordings`` in ``scratch`` with ``source``'s settings and domain file;
    files already rendered into it stay."""
    from taskqa.corpus import (
        MANIFEST,
        RECORDINGS,
        dump_recording,
        read_manifest,
        write_corpus_files,
    )

    scratch.mkdir(parents=True, exist_ok=True)
    for path in source.iterdir():
        if path.is_file() and path.name not in (MANIFEST, RECORDINGS):
            shutil.copyfile(path, scratch / path.name)
    lines = [dump_recording(r) for r in recordings]
    actions = sum(len(r.actions) for r in recordings)
    write_corpus_files(scratch, lines, actions, read_manifest(source))
