"""The ``taskqa`` command line."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from taskqa import __version__
from taskqa.benchmark.mix import MIX_KEEP
from taskqa.data.resolve import data_paths, input_paths
from taskqa.execution.base import ExecutorKind
from taskqa.execution.options import (
    ExecutorOption,
    RayAddressOption,
    ResumeOption,
    WorkersOption,
    execution,
    reported,
)
from taskqa.outputs import (
    BENCHMARK,
    CAUSAL_GRAPHS,
    CHOICE_EXPORT,
    CORPUS,
    EGOTASKQA,
    EGOTASKQA_QUESTIONS,
    HF_EXPORT,
    JSON_SCHEMA,
    LMMS_EXPORT,
    QUESTIONS,
    STATS,
    VLMEVAL_EXPORT,
    OverwriteOption,
    claim_output,
)
from taskqa.problems import InvalidInputError, Problem
from taskqa.terminal import GuardedTyper, console, errors, print_problems, progress

if TYPE_CHECKING:  # the model (and networkx) load only for the commands that use them
    from taskqa.model import Recording

app = GuardedTyper(
    name="taskqa",
    help=(
        "Build diagnostic benchmarks from annotated recordings of goal-oriented tasks.\n\n"
        "Start with `taskqa simulate` to make a corpus in the built-in household world, "
        "`taskqa validate` to check any supported annotation file, and `taskqa stats` to "
        "see what a corpus contains."
    ),
    no_args_is_help=True,
    rich_markup_mode="rich",
)


def _version(value: bool) -> None:
    if value:
        console.print(f"taskqa {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """taskqa command line."""


@app.command()
def simulate(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write the corpus to.")],
    episodes: Annotated[int, typer.Option(min=1, help="Number of recordings to simulate.")] = 400,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives byte-identical files.")] = 0,
    workers: WorkersOption = 1,
    domain: Annotated[
        Path | None,
        typer.Option(
            help="A domain YAML file instead of the built-in household world.",
            callback=input_paths,
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            help="A JSON file of SimulationConfig fields to override.", callback=input_paths
        ),
    ] = None,
    render: Annotated[
        bool, typer.Option("--render", help="Also render every recording to MP4 (OUT/videos).")
    ] = False,
    fps: Annotated[float, typer.Option(help="With --render: frames per second.")] = 2.0,
    size: Annotated[str, typer.Option(help="With --render: 224 or WIDTHxHEIGHT.")] = "224",
    executor: ExecutorOption = ExecutorKind.LOCAL,
    ray_address: RayAddressOption = None,
    resume: ResumeOption = False,
    overwrite: OverwriteOption = False,
) -> None:
    """Simulate annotated household recordings (LEMMA/EgoTaskQA shaped) into a corpus folder.

    An earlier corpus in OUT is replaced; one with rendered videos only with --overwrite."""
    from taskqa.execution import journal_beside
    from taskqa.simulation.config import load_config
    from taskqa.simulation.corpus import simulate_corpus_lines, write_simulated_lines
    from taskqa.simulation.domain import load_domain

    world = load_domain(domain)
    settings = load_config(config, episodes=episodes, seed=seed)
    replaced = claim_output(out, CORPUS, overwrite)
    with reported(), progress(unit="recordings") as bars:
        task = bars.add_task("simulating", total=settings.episodes)
        lines = simulate_corpus_lines(
            settings,
            world,
            workers,
            lambda n: bars.advance(task, n),
            execution(executor, workers, ray_address, resume),
            journal_beside(out),
        )
    manifest = write_simulated_lines(out, settings, lines, world)
    _say_replaced(replaced)
    console.print(
        f"wrote {manifest.recordings} recordings, {manifest.actions} actions to {out}",
        highlight=False,
    )
    if render:
        from taskqa.household.cli import render_into_corpus

        run = execution(executor, workers, ray_address, resume)
        render_into_corpus(out, None, fps, size, "first,third", False, workers, execution=run)


def _say_replaced(line: str | None) -> None:
    """What a command's write replaced (taskqa.outputs.claim_output), once it is written."""
    if line is not None:
        console.print(line, highlight=False, markup=False)


@app.command()
def validate(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Files or folders to check (data:NAME: a cached file).", callback=data_paths
        ),
    ],
) -> None:
    """Check annotation files and corpora, reporting every problem found.

    Each problem names the file, the record path and what was expected; the exit status is 1
    if anything is wrong. Reads taskqa corpus folders (shape, state continuity, the
    domain's action rules), CaptainCook4D and ProMQA annotation files or folders,
    EgoTaskQA/LEMMA annotations, and domain YAML files.
    """
    from taskqa.validate import validate_path

    failed = False
    for path in paths:
        kind, problems, remote = validate_path(path)
        if problems:
            failed = True
            errors.print(f"[bold red]{escape(str(path))}[/] ({kind}): {len(problems)} problem(s)")
            print_problems(problems)
        else:
            console.print(f"[green]✓[/green] {escape(str(path))} ({kind}): valid", highlight=False)
        if remote:
            console.print(
                f"  {len(remote)} video reference(s) at URLs (such as {remote[0]}) not checked: "
                "validate reads local files only",
                highlight=False,
                markup=False,
            )
    if failed:
        raise typer.Exit(code=1)


@app.command()
def stats(
    corpus: Annotated[Path, typer.Argument(help="A taskqa corpus folder.", callback=input_paths)],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for tables and plots.")],
    overwrite: OverwriteOption = False,
) -> None:
    """Corpus statistics as Markdown/JSON tables and PNG plots (EgoTaskQA supplementary style)."""
    from taskqa.corpus import read_corpus
    from taskqa.stats import compute_stats, render_stats_tables, write_stats

    recordings = read_corpus(corpus)
    replaced = claim_output(out, STATS, overwrite)
    summary = compute_stats(recordings)
    for table in render_stats_tables(summary):
        console.print(table)
    written = write_stats(summary, out)
    _say_replaced(replaced)
    console.print(f"wrote {len(written)} files to {out}", highlight=False)


@app.command()
def causal(
    corpus: Annotated[Path, typer.Argument(help="A taskqa corpus folder.", callback=input_paths)],
    recording: Annotated[
        str | None, typer.Option(help="Recording id; needed when the corpus has several.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Folder for <id>.dot and <id>.png.")
    ] = None,
    spatial: Annotated[
        bool, typer.Option(help="Also link actions through spatial relations (released code).")
    ] = True,
    visibility: Annotated[
        bool, typer.Option(help="Also compare the visibility attributes.")
    ] = False,
    schemas: Annotated[
        bool,
        typer.Option(
            help="For a simulated recording, follow the domain's preconditions by replay; "
            "--no-schemas uses Algorithm 1 on the annotations, as for real recordings."
        ),
    ] = True,
    overwrite: OverwriteOption = False,
) -> None:
    """Print the causal dependency structure of a recording; write it as DOT and PNG."""
    from taskqa.atomic import write_bytes, write_text
    from taskqa.causal import DependencyRules, build_structure
    from taskqa.causal.render import structure_table, to_dot, to_png
    from taskqa.questions.world import CorpusWorld

    world = CorpusWorld.open(corpus)
    templates = dict(world.verb_templates or {})
    chosen = _pick_recording(list(world.recordings), recording, corpus)
    replaced = claim_output(out, CAUSAL_GRAPHS, overwrite) if out is not None else None
    rules = DependencyRules(spatial=spatial, include_visibility=visibility, schemas=schemas)
    structure = build_structure(chosen, rules, world.domain)
    console.print(structure_table(structure, chosen, templates))
    if out is not None:
        write_text(out / f"{chosen.id}.dot", to_dot(structure, chosen, templates))
        write_bytes(out / f"{chosen.id}.png", to_png(structure, chosen))
        _say_replaced(replaced)
        console.print(f"wrote {chosen.id}.dot and {chosen.id}.png to {out}", highlight=False)


def _pick_recording(recordings: list[Recording], wanted: str | None, source: Path) -> Recording:
    if wanted is None and len(recordings) == 1:
        return recordings[0]
    if wanted is None:
        message = "several recordings; pass --recording ID"
        raise InvalidInputError([Problem(str(source), "", message)])
    for candidate in recordings:
        if candidate.id == wanted:
            return candidate
    raise InvalidInputError([Problem(str(source), "", f"no recording with id {wanted!r}")])


@app.command()
def generate(
    corpus: Annotated[
        Path,
        typer.Argument(help="A taskqa corpus (or EgoTaskQA/LEMMA folder).", callback=input_paths),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Questions file to write (JSONL).")],
    workers: WorkersOption = 1,
    seed: Annotated[int, typer.Option(help="Seed for the choice of text variants.")] = 0,
    templates: Annotated[
        list[Path] | None,
        typer.Option(
            help="Template files or folders instead of the built-ins.", callback=input_paths
        ),
    ] = None,
    clip_seconds: Annotated[float, typer.Option(help="Target clip length in seconds.")] = 20.0,
    obfuscation: Annotated[
        int,
        typer.Option(min=0, max=2, help="Most objects of an action said as 'something' (0-2)."),
    ] = 2,
    indirect: Annotated[
        bool,
        typer.Option(help="Also refer to objects indirectly (the first thing they changed, ...)."),
    ] = True,
    executor: ExecutorOption = ExecutorKind.LOCAL,
    ray_address: RayAddressOption = None,
    resume: ResumeOption = False,
    overwrite: OverwriteOption = False,
) -> None:
    """Generate every question of every template on every clip (EgoTaskQA style).

    An earlier questions file at OUT is replaced; any other file only with --overwrite."""
    from taskqa.execution import journal_beside
    from taskqa.programs.clips import ClipConfig
    from taskqa.questions.config import GenerationConfig
    from taskqa.questions.generate import generate_file, summary_path
    from taskqa.questions.template import load_templates
    from taskqa.questions.world import CorpusWorld

    world = CorpusWorld.open(corpus)
    recordings, verb_templates = list(world.recordings), dict(world.verb_templates or {})
    chosen = load_templates(templates)
    replaced = claim_output(out, QUESTIONS, overwrite)
    config = GenerationConfig(
        seed=seed,
        clips=ClipConfig(seconds=clip_seconds),
        obfuscation=obfuscation,
        indirect=indirect,
    )
    run = execution(executor, workers, ray_address, resume)
    with reported(), progress(unit="recordings") as bars:
        task = bars.add_task("generating", total=len(recordings))
        summary = generate_file(
            recordings,
            chosen,
            out,
            config,
            verb_templates,
            workers,
            lambda n: bars.advance(task, n),
            domain=world.domain,
            execution=run,
            journal=journal_beside(out),
        )
    dropped = ", ".join(f"{n:,} {reason}" for reason, n in summary["rejected"].items())
    _say_replaced(replaced)
    console.print(
        f"wrote {summary['counts'].get('questions', 0):,} questions to {out} "
        f"(rejected: {dropped or 'none'}; summary: {summary_path(out)})",
        highlight=False,
    )


@app.command()
def build(
    corpus: Annotated[
        Path,
        typer.Argument(help="A taskqa corpus (or EgoTaskQA/LEMMA folder).", callback=input_paths),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Benchmark folder to write.")],
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    workers: WorkersOption = 1,
    target: Annotated[int, typer.Option(min=0, help="Most questions kept (0: no limit).")] = 40_000,
    min_binary: Annotated[
        int, typer.Option(help="Drop a reasoning type's yes/no questions below this count.")
    ] = 10,
    alpha: Annotated[float, typer.Option(help="Share of most frequent open answers capped.")] = 0.2,
    beta: Annotated[float, typer.Option(help="Most of a type those answers may answer.")] = 0.333,
    disjoint: Annotated[
        str, typer.Option(help="normal split: none (as released), clip or recording.")
    ] = "none",
    templates: Annotated[
        list[Path] | None,
        typer.Option(
            help="Template files or folders instead of the built-ins.", callback=input_paths
        ),
    ] = None,
    candidates: Annotated[
        Path | None,
        typer.Option(
            help="Questions `taskqa generate` already made from CORPUS (skips generation).",
            callback=input_paths,
        ),
    ] = None,
    balance_by: Annotated[
        str,
        typer.Option(
            help="Balance answers within each reasoning type, template, or text group "
            "(template + shown parameters + text)."
        ),
    ] = "text",
    group_share: Annotated[
        float,
        typer.Option(
            min=0.01, max=1.0, help="Most of a group's open questions one answer may answer."
        ),
    ] = 0.2,
    grounding: Annotated[
        bool,
        typer.Option(
            help="Drop questions whose evidence is off screen, from instance masks of a "
            "simulated corpus (docs/grounding.md)."
        ),
    ] = True,
    mix: Annotated[
        bool,
        typer.Option(
            help="Cut over-represented reasoning types towards target shares of each type, "
            "scope and semantic category (EgoTaskQA's mix; docs/balancing.md)."
        ),
    ] = True,
    mix_keep: Annotated[
        float,
        typer.Option(min=0.01, max=1.0, help="Least share of the balanced questions --mix keeps."),
    ] = MIX_KEEP,
    pairs: Annotated[
        bool,
        typer.Option(
            "--pairs",
            help="Minimal pairs: re-simulate each episode with one change (an action skipped, "
            "failed or reordered, an object starting otherwise), keep questions whose text is "
            "the same on both recordings and whose answer differs (split family `pairs`, "
            "pairs.jsonl; docs/minimal-pairs.md). Needs a simulated corpus.",
        ),
    ] = False,
    max_single_frame: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="At most this share of each template's questions may be answerable from one "
            "frame of the clip (or none), by the vision-ablation audit (docs/evidence.md); "
            "default: every question is kept and the report says how many are.",
        ),
    ] = None,
    allow_reference_mismatch: Annotated[
        bool,
        typer.Option(
            "--allow-reference-mismatch",
            help="Write the benchmark even where the self-check finds questions whose "
            "references disagree with the actions their clip shows (refused by default; a "
            "warning says how many; docs/questions.md).",
        ),
    ] = False,
    executor: ExecutorOption = ExecutorKind.LOCAL,
    ray_address: RayAddressOption = None,
    resume: ResumeOption = False,
    overwrite: OverwriteOption = False,
) -> None:
    """Generate, balance and split into a benchmark folder with diagnostics (docs/balancing.md).

    An earlier benchmark in OUT is replaced; any other non-empty folder only with --overwrite."""
    from taskqa.benchmark.balance import BalanceConfig
    from taskqa.benchmark.build import BuildConfig, build_benchmark, interrupted_message
    from taskqa.benchmark.progress import build_progress
    from taskqa.execution import journal_beside
    from taskqa.questions.template import load_templates

    if disjoint not in ("none", "clip", "recording"):
        raise typer.BadParameter("expected none, clip or recording", param_hint="--disjoint")
    if balance_by not in ("type", "template", "text"):
        raise typer.BadParameter("expected type, template or text", param_hint="--balance-by")
    balancing = BalanceConfig.model_validate(
        {
            **{"target": target, "min_binary": min_binary, "alpha": alpha, "beta": beta},
            **{"balance_by": balance_by, "group_share": group_share},
            "mix": {"enabled": mix, "keep": mix_keep},
        }
    )
    config = BuildConfig.model_validate(
        {
            "seed": seed,
            "balance": balancing,
            "disjoint": disjoint,
            "grounding": grounding,
            "max_single_frame": max_single_frame,
            "pairs": pairs,
            "allow_reference_mismatch": allow_reference_mismatch,
        }
    )
    chosen = load_templates(templates)
    replaced = claim_output(out, BENCHMARK, overwrite)
    journal = journal_beside(out)
    try:
        # stages as progress bars on a terminal, as lines in a log (benchmark/progress.py)
        with reported(), build_progress() as said:
            manifest = build_benchmark(
                corpus,
                out,
                config,
                chosen,
                workers,
                said,
                candidates,
                execution(executor, workers, ray_address, resume),
                journal,
            )
    except KeyboardInterrupt:
        # Ctrl-C: the work kept beside OUT stays for --resume; say what it is
        errors.print(interrupted_message(out, journal), highlight=False, markup=False)
        raise typer.Exit(130) from None
    _say_replaced(replaced)
    counts = manifest["counts"]
    console.print(
        f"{counts['candidates']:,} candidates -> {counts['balanced']:,} balanced questions; "
        f"normal {counts['normal/train']:,}/{counts['normal/val']:,}/{counts['normal/test']:,}, "
        f"indirect {counts['indirect/train']:,}/{counts['indirect/val']:,}/"
        f"{counts['indirect/test']:,}"
        + (
            f", pairs {counts['pairs/train'] // 2:,}/{counts['pairs/val'] // 2:,}/"
            f"{counts['pairs/test'] // 2:,} (pairs of questions)"
            if "pairs/test" in counts
            else ""
        )
        + f" -> {out} (report: {out / 'diagnostics' / 'report.md'})",
        highlight=False,
    )


@app.command()
def check(
    questions: Annotated[
        Path, typer.Argument(help="A questions JSONL file.", callback=input_paths)
    ],
    annotations: Annotated[
        Path, typer.Option(help="The corpus the questions were made from.", callback=input_paths)
    ],
) -> None:
    """Re-execute every stored program on the annotations; report answers that differ."""
    from taskqa.benchmark.folder import clips_of_split_file
    from taskqa.questions.check import check_questions
    from taskqa.questions.world import CorpusWorld

    world = CorpusWorld.open(annotations)
    checked, problems = check_questions(questions, world, clips_of_split_file(questions))
    if problems:
        errors.print(f"{len(problems)} of {checked} questions differ", highlight=False)
        print_problems(problems)
        raise typer.Exit(code=1)
    console.print(f"[green]✓[/green] all {checked} answers reproduced", highlight=False)


@app.command("export-egotaskqa")
def export_egotaskqa(
    questions: Annotated[
        Path, typer.Argument(help="A questions JSONL file.", callback=input_paths)
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the EgoTaskQA QA files.")],
    overwrite: OverwriteOption = False,
) -> None:
    """Write questions as EgoTaskQA's released QA files (tagged_qas.json, vid_intervals.json)."""
    from taskqa.questions.egotaskqa_format import write_egotaskqa_questions
    from taskqa.questions.records import read_questions

    replaced = claim_output(out, EGOTASKQA_QUESTIONS, overwrite)
    count = write_egotaskqa_questions((q for _, q in read_questions(questions)), out)
    _say_replaced(replaced)
    console.print(f"wrote {count} questions to {out}", highlight=False)


@app.command("lint-templates")
def lint_templates_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Template files or folders (default: built-ins).", callback=input_paths
        ),
    ] = None,
) -> None:
    """Check question templates: program, parameters, texts and tags."""
    from taskqa.questions.lint import lint_templates
    from taskqa.questions.template import load_templates

    loaded = load_templates(paths or None)
    problems = lint_templates(loaded)
    if problems:
        print_problems(problems)
        raise typer.Exit(code=1)
    console.print(f"[green]✓[/green] {len(loaded)} templates", highlight=False)


class SchemaModel(StrEnum):
    recording = "recording"
    corpus = "corpus"


@app.command()
def schema(
    model: Annotated[
        SchemaModel, typer.Argument(help="Which model to describe.")
    ] = SchemaModel.recording,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write to a file.")] = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Print the JSON Schema of the recording model (or of a corpus manifest)."""
    from taskqa.jsonio import dumps, write_json
    from taskqa.schema import json_schema

    schema = json_schema(model.value)
    if out is None:
        typer.echo(dumps(schema, sort_keys=True), nl=False)
        return
    replaced = claim_output(out, JSON_SCHEMA, overwrite)
    write_json(out, schema, sort_keys=True)
    _say_replaced(replaced)
    console.print(f"wrote {out}", highlight=False)


class Format(StrEnum):
    taskqa = "taskqa"
    egotaskqa = "egotaskqa"


@app.command()
def convert(
    source: Annotated[
        Path,
        typer.Argument(
            help="A taskqa corpus, an EgoTaskQA/LEMMA folder or a CaptainCook4D folder.",
            callback=input_paths,
        ),
    ],
    to: Annotated[Format, typer.Option("--to", help="Output format.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")],
    overwrite: OverwriteOption = False,
) -> None:
    """Convert recordings between formats (e.g. a simulated corpus to EgoTaskQA's files)."""
    from taskqa.convert import convert_recordings

    replaced = claim_output(out, CORPUS if to is Format.taskqa else EGOTASKQA, overwrite)
    count = convert_recordings(source, to.value, out)
    _say_replaced(replaced)
    console.print(f"wrote {count} recordings as {to.value} to {out}", highlight=False)


export_app = GuardedTyper(
    name="export",
    help="Publish a built benchmark: Hugging Face datasets + Croissant, or an lmms-eval task.",
    no_args_is_help=True,
)
app.add_typer(export_app, name="export")


# The benchmark folder every export reads.
BenchArgument = Annotated[
    Path, typer.Argument(help="A benchmark folder (`taskqa build`).", callback=input_paths)
]
AllowMissingVideosOption = Annotated[
    bool,
    typer.Option(
        help="Export a benchmark whose clips have no video file (an unrendered corpus); the "
        "questions of those clips get an empty video field. Default: refused."
    ),
]


def _warn_missing_videos(missing: int, clips: int) -> None:
    if missing:
        errors.print(
            f"warning: {missing:,} of {clips:,} clips have no video (their questions have an "
            "empty video field); `taskqa render BENCH` renders them into the benchmark",
            highlight=False,
        )


@export_app.command("hf")
def export_hf_command(
    bench: BenchArgument,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write.")],
    name: Annotated[str | None, typer.Option(help="Dataset name (default: the folder's).")] = None,
    overwrite: OverwriteOption = False,
    allow_missing_videos: AllowMissingVideosOption = False,
    license: Annotated[
        str,
        typer.Option(
            "--license",
            help="The licence the dataset card and Croissant give, as a Hugging Face licence id "
            "(cc-by-4.0, cc-by-nc-4.0, mit, other, ...).",
        ),
    ] = "cc-by-4.0",
) -> None:
    """Parquet splits, a dataset card with `configs`, and Croissant JSON-LD with RAI fields."""
    from taskqa.benchmark.export_hf import export_hf

    replaced = claim_output(out, HF_EXPORT, overwrite)
    files = export_hf(bench, out, name, allow_missing_videos=allow_missing_videos, license=license)
    _say_replaced(replaced)
    _warn_missing_videos(files.missing_videos, files.clips)
    console.print(
        f"wrote {len(files)} files to {out}; load with datasets.load_dataset", highlight=False
    )


@export_app.command("lmms-eval")
def export_lmms_command(
    bench: BenchArgument,
    out: Annotated[Path, typer.Option("--out", "-o", help="Task folder to write.")],
    overwrite: OverwriteOption = False,
    allow_missing_videos: AllowMissingVideosOption = False,
) -> None:
    """An lmms-eval task folder (YAML + utils.py + Parquet) for the open-answer format."""
    from taskqa.benchmark.export_lmms import export_lmms_eval

    replaced = claim_output(out, LMMS_EXPORT, overwrite)
    files = export_lmms_eval(bench, out, allow_missing_videos=allow_missing_videos)
    _say_replaced(replaced)
    _warn_missing_videos(files.missing_videos, files.clips)
    # the task names are the YAML files written, one open and one multiple-choice task a family
    tasks = sorted(path.stem for path in files if path.suffix == ".yaml" and path.parent == out)
    console.print(
        f"wrote {len(files)} files to {out} ({len(tasks)} tasks: {', '.join(tasks)})",
        highlight=False,
    )


@export_app.command("vlmevalkit")
def export_vlmevalkit_command(
    bench: BenchArgument,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write.")],
    nframe: Annotated[
        int, typer.Option(min=1, help="Frames VLMEvalKit samples per clip unless told otherwise.")
    ] = 8,
    overwrite: OverwriteOption = False,
    allow_missing_videos: AllowMissingVideosOption = False,
) -> None:
    """A VLMEvalKit video dataset: the TaskQA class (a VideoBaseDataset), a TSV per split
    family's test split, the clip videos, and taskqa's answer normaliser beside them."""
    from taskqa.benchmark.export_vlmeval import export_vlmevalkit

    replaced = claim_output(out, VLMEVAL_EXPORT, overwrite)
    files = export_vlmevalkit(bench, out, nframe=nframe, allow_missing_videos=allow_missing_videos)
    _say_replaced(replaced)
    _warn_missing_videos(files.missing_videos, files.clips)
    console.print(
        f"wrote {len(files)} files to {out}; load with `from taskqa_vlmeval import TaskQA`",
        highlight=False,
    )


@export_app.command("mc")
def export_mc_command(
    bench: BenchArgument,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write.")],
    options: Annotated[
        int, typer.Option(min=2, max=8, help="Options per open question (yes/no keep two).")
    ] = 4,
    seed: Annotated[int, typer.Option(help="Seed of the distractors and the option order.")] = 0,
    overwrite: OverwriteOption = False,
) -> None:
    """Multiple choice that the text cannot solve: distractors are answers the same question
    text has on other clips; every item asked once per rotation of its options (circular).

    Example: taskqa export mc out/bench --out out/mc; score replies with
    taskqa evaluate -b out/bench --mc out/mc -p replies.jsonl -o out/mc-eval
    """
    from taskqa.benchmark.folder import Benchmark
    from taskqa.benchmark.multiple_choice import write_choice_export

    replaced = claim_output(out, CHOICE_EXPORT, overwrite)
    manifest = write_choice_export(Benchmark(bench), out, options, seed)
    _say_replaced(replaced)
    for family, splits in manifest["splits"].items():
        test = splits["test"]
        console.print(
            f"{family}: {test['items']:,} test items ({test['asks']:,} asks, chance "
            f"{100 * test['chance']:.1f}%)",
            highlight=False,
        )
    console.print(f"wrote the multiple-choice export to {out}", highlight=False)


# Benchmark families with command groups of their own.
from taskqa.physics.cli import app as physics_app  # noqa: E402

app.add_typer(physics_app, name="physics")
from taskqa.verify.cli import app as verify_app  # noqa: E402

app.add_typer(verify_app, name="verify")
from taskqa.household import benchmark_videos as render_benchmark  # noqa: E402
from taskqa.household.cli import app as render_app  # noqa: E402

app.add_typer(render_app, name="render")


def _benchmark_videos() -> render_benchmark.BenchmarkVideos:
    """`taskqa render BENCH`'s view of a benchmark folder (household cannot import benchmark/)."""
    from taskqa.benchmark import folder

    return render_benchmark.BenchmarkVideos(
        folder.benchmark_of,
        folder.recordings_without_video,
        lambda bench: folder.rewrite_video_list(bench).line(bench),
        lambda bench: bench / folder.CORPUS,
    )


render_benchmark.benchmark_videos = _benchmark_videos
from taskqa.procedural.cli import app as procedural_app  # noqa: E402

app.add_typer(procedural_app, name="procedural")
from taskqa.data.cli import app as data_app  # noqa: E402

app.add_typer(data_app, name="data")
from taskqa.evaluation.cli import baseline_command, evaluate_command  # noqa: E402

app.command("evaluate")(evaluate_command)
app.command("baseline")(baseline_command)
from taskqa.studio.cli import app as studio_app  # noqa: E402

app.add_typer(studio_app, name="studio")
