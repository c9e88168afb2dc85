"""``taskqa physics``: CLEVRER-style scenes, events, causal event graphs and scoring."""

from __future__ import annotations

import random
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table as RichTable

from taskqa import terminal
from taskqa.atomic import write_text
from taskqa.data.resolve import input_paths
from taskqa.execution import ExecutorKind
from taskqa.execution.options import (
    ExecutorOption,
    RayAddressOption,
    ResumeOption,
    WorkersOption,
    execution,
    reported,
)
from taskqa.outputs import (
    PHYSICS_REPORTS,
    PHYSICS_SCENES,
    PHYSICS_VIDEOS,
    OverwriteOption,
    claim_output,
    say_replaced,
)
from taskqa.physics.scoring import TypeScore
from taskqa.problems import InvalidInputError, Problem
from taskqa.render.options import BackendOption, announce_backend
from taskqa.terminal import GuardedTyper, console, errors

app = GuardedTyper(
    name="physics",
    help=(
        "CLEVRER-style collision scenes from the Bullet engine, their events, "
        "CLEVRER-Humans-style causal event graphs, responsibility questions and scoring."
    ),
    no_args_is_help=True,
)


class Baseline(StrEnum):
    TEXT_ONLY = "text-only"
    PRIOR = "prior"


class VideoFormat(StrEnum):
    MP4 = "mp4"
    GIF = "gif"


@app.command()
def simulate(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the annotation files.")],
    scenes: Annotated[int, typer.Option(min=1, help="Number of scenes.")] = 20,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives byte-identical files.")] = 0,
    first_index: Annotated[int, typer.Option(min=0, help="Scene index of the first scene.")] = 0,
    render: Annotated[
        bool,
        typer.Option(help="Also draw each scene through CLEVRER's camera (video_XXXXX.mp4)."),
    ] = False,
    backend: BackendOption = "auto",
    workers: WorkersOption = 1,
    executor: ExecutorOption = ExecutorKind.LOCAL,
    ray_address: RayAddressOption = None,
    resume: ResumeOption = False,
    overwrite: OverwriteOption = False,
) -> None:
    """Simulate CLEVRER-like scenes: one CLEVRER annotation JSON per scene, plus scenes.json."""
    from taskqa.physics.simulate_shards import simulate_scenes

    run = execution(executor, workers, ray_address, resume)
    replaced = claim_output(out, PHYSICS_SCENES, overwrite)
    chosen = announce_backend(backend) if render else "tiny"
    with reported(), terminal.progress(transient=True, unit="scenes") as progress:
        task = progress.add_task("simulating", total=scenes)
        done = simulate_scenes(
            out,
            scenes,
            seed,
            first_index,
            render,
            run,
            lambda n: progress.advance(task, n),
            chosen,
        )
    if replaced is not None:
        console.print(replaced, highlight=False, markup=False)
    collisions = done.collisions
    videos = f", {scenes} videos" if render else ""
    console.print(f"{scenes} scenes, {collisions} collisions{videos} -> {out}")


@app.command()
def validate(
    files: Annotated[
        list[Path],
        typer.Argument(help="CLEVRER annotation or question files.", callback=input_paths),
    ],
) -> None:
    """Check CLEVRER annotation and question files; problems name the record path."""
    from taskqa.jsonio import load_json
    from taskqa.physics.clevrer_format import parse_annotation
    from taskqa.physics.clevrer_questions import parse_questions

    problems: list[Problem] = []
    for path in files:
        try:
            raw = load_json(path)
            if isinstance(raw, dict) and "motion_trajectory" in raw:
                parse_annotation(raw, path.name)
            else:
                parse_questions(raw, path.name)
            console.print(f"[green]✓[/green] {path}")
        except InvalidInputError as error:
            problems.extend(error.problems)
    if problems:
        raise InvalidInputError(problems)


@app.command()
def events(
    annotations: Annotated[
        Path, typer.Argument(help="A folder of CLEVRER annotation files.", callback=input_paths)
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for events and the report.")],
    seed: Annotated[int, typer.Option(help="Seed for the wording of descriptions.")] = 0,
    tolerance: Annotated[
        int, typer.Option(min=0, help="Frames a detected collision may be off.")
    ] = 3,
    overwrite: OverwriteOption = False,
) -> None:
    """Ground-truth and detected events with descriptions; detector precision and recall."""
    from taskqa.jsonio import write_json
    from taskqa.physics.clevrer_format import read_annotation_folder
    from taskqa.physics.describe import physical_events
    from taskqa.physics.events import (
        DetectorConfig,
        MatchCounts,
        detect_events,
        ground_truth_events,
        match_collisions,
    )
    from taskqa.physics.report import detector_report
    from taskqa.reports import write_report

    loaded = read_annotation_folder(annotations)
    replaced = claim_output(out, PHYSICS_REPORTS, overwrite)
    config = DetectorConfig()
    total = MatchCounts(0, 0, 0)
    records = []
    for annotation in loaded:
        truth, found = ground_truth_events(annotation), detect_events(annotation, config)
        total = total + match_collisions(found, truth, tolerance)
        rng = random.Random(f"describe:{seed}:{annotation.scene_index}")
        objects = annotation.object_property
        records.append(
            {
                "scene_index": annotation.scene_index,
                "ground_truth": [
                    e.model_dump(mode="json") for e in physical_events(truth, objects, rng, "gt")
                ],
                "detected": [
                    e.model_dump(mode="json")
                    for e in physical_events(found, objects, rng, "detected")
                ],
            }
        )
    write_json(out / "events.json", records, indent=1)
    write_report(detector_report(total, len(loaded), tolerance, config), out, "detector")
    say_replaced(replaced)
    console.print(
        f"collisions: precision {total.precision:.3f}, recall {total.recall:.3f} "
        f"({total.true_positives} of {total.actual} simulated, {total.detected} detected)"
    )


@app.command()
def ceg(
    annotations: Annotated[
        Path,
        typer.Argument(help="A folder written by `taskqa physics simulate`.", callback=input_paths),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for graphs, questions, report.")],
    seed: Annotated[int, typer.Option(help="Seed for wording, ratings and question sampling.")] = 0,
    raters: Annotated[int, typer.Option(min=1, help="Simulated raters per edge.")] = 3,
    agreement: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Chance a simulated rater follows the verdict.")
    ] = 0.85,
    threshold: Annotated[float, typer.Option(help="Scores at or above it are causal.")] = 4.0,
    max_nodes: Annotated[int, typer.Option(min=2, help="Events per graph at most.")] = 6,
    choices: Annotated[int, typer.Option(min=1, help="Choices per question (n_choice).")] = 1,
    judgments: Annotated[
        Path | None,
        typer.Option(
            help="Real graded judgments (JSON) to use instead of simulated raters.",
            callback=input_paths,
        ),
    ] = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Causal event graphs, responsibility questions and the heuristic/counterfactual comparison."""
    from taskqa.physics.ceg import graph_statistics
    from taskqa.physics.clevrer_format import read_annotation_folder
    from taskqa.physics.clevrer_questions import questions_json
    from taskqa.physics.comparison import compare
    from taskqa.physics.pipeline import (
        CegConfig,
        attach_ratings,
        build_scene_ceg,
        cegs_json,
        labelled_pairs,
        layout_problems,
        scene_specs,
    )
    from taskqa.physics.questions import responsibility_questions
    from taskqa.physics.raters import RaterModel, import_judgments, read_judgments
    from taskqa.physics.report import ceg_report
    from taskqa.reports import write_report

    config = CegConfig(
        max_nodes=max_nodes,
        threshold=threshold,
        raters=RaterModel(raters=raters, agreement=agreement),
    )
    loaded = {a.scene_index: a for a in read_annotation_folder(annotations)}
    specs = list(scene_specs(annotations))
    imported = import_judgments(read_judgments(judgments)) if judgments else None
    problems = layout_problems(specs, loaded)
    if problems:
        raise InvalidInputError(problems)
    replaced = claim_output(out, PHYSICS_REPORTS, overwrite)
    built = []
    with terminal.progress(transient=True, unit="graphs") as progress:
        task = progress.add_task("graphs", total=len(specs))
        for spec in specs:
            rng = random.Random(f"ceg:{seed}:{spec.scene_index}")
            annotation = loaded[spec.scene_index]
            built.append(build_scene_ceg(annotation, spec, config, rng, imported is None))
            progress.advance(task)
    unmatched = attach_ratings(built, imported.graphs) if imported else 0
    graphs = [c.graph for c in built]
    question_rng = random.Random(f"questions:{seed}")
    scenes = [responsibility_questions(g, question_rng, choices, threshold) for g in graphs]
    write_text(out / "cegs.json", cegs_json(built, threshold))
    write_text(out / "questions.json", questions_json([s for s in scenes if s.questions]))
    pairs = labelled_pairs(built, threshold)
    ratings = (
        f"imported real judgments from {judgments.name} "
        f"({len(imported.accepted_raters)} raters accepted, {len(imported.rejected_raters)} "
        f"rejected by quality checks, {len(imported.dropped_nodes)} nodes voted incorrect, "
        f"{unmatched} rated edges naming events that are not nodes of these scenes)"
        if imported and judgments
        else f"SIMULATED, not human: {config.raters.describe()}"
    )
    report = ceg_report(
        graph_statistics(graphs, threshold),
        compare(pairs),
        ratings,
        threshold,
        len(pairs),
        sum(c.counterfactual_runs for c in built),
    )
    write_report(report, out, "ceg")
    say_replaced(replaced)
    questions = sum(len(s.questions) for s in scenes)
    console.print(f"{len(graphs)} graphs, {questions} questions, {len(pairs)} rated pairs -> {out}")


@app.command("real-ceg")
def real_ceg(
    questions: Annotated[
        Path,
        typer.Argument(
            help="A CLEVRER-Humans QA file (e.g. train.json, or data:clevrer_humans/train.json).",
            callback=input_paths,
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the report.")],
    overwrite: OverwriteOption = False,
) -> None:
    """Statistics of the causal event graphs that a released CLEVRER-Humans QA file reveals."""
    from taskqa.physics.ceg import graph_statistics
    from taskqa.physics.clevrer_questions import read_questions
    from taskqa.physics.questions import graphs_from_questions
    from taskqa.physics.report import real_ceg_report
    from taskqa.reports import write_report

    graphs = graphs_from_questions(read_questions(questions))
    replaced = claim_output(out, PHYSICS_REPORTS, overwrite)
    stats = graph_statistics(graphs)
    write_report(real_ceg_report(stats, questions.name), out, "real_ceg")
    say_replaced(replaced)
    console.print(
        f"{stats.graphs} graphs: {stats.mean_nodes:.2f} nodes and {stats.mean_edges:.2f} edges "
        "on average"
    )


@app.command()
def score(
    questions: Annotated[
        Path,
        typer.Option(help="A CLEVRER or CLEVRER-Humans question file.", callback=input_paths),
    ],
    predictions: Annotated[
        Path | None,
        typer.Option(help="Predictions in CLEVRER's submission layout.", callback=input_paths),
    ] = None,
    baseline: Annotated[
        Baseline | None,
        typer.Option(help="Score a language-only baseline trained on the 80% train split."),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Folder for the report.")] = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Per-option and per-question accuracy by question type."""
    from taskqa.physics.baselines import baseline_predictions
    from taskqa.physics.clevrer_questions import predictions_json, read_predictions, read_questions
    from taskqa.physics.report import score_report
    from taskqa.physics.scoring import score as score_questions
    from taskqa.physics.scoring import split_scenes
    from taskqa.reports import write_report

    if (predictions is None) == (baseline is None):
        errors.print("give exactly one of --predictions and --baseline")
        raise typer.Exit(code=2)
    replaced = claim_output(out, PHYSICS_REPORTS, overwrite) if out is not None else None
    try:
        scenes = read_questions(questions)
        if predictions is not None:
            table = read_predictions(predictions)
            evaluated = scenes
            note = f"Predictions {predictions.name} on all of {questions.name}."
        else:
            assert baseline is not None
            train, evaluated = split_scenes(scenes)
            table = baseline_predictions(baseline.value, train, evaluated)
            note = (
                f"Language-only baseline '{baseline.value}' fitted on {len(train)} training "
                f"scenes and scored on {len(evaluated)} validation scenes of {questions.name} "
                "(scene ids shuffled with seed 2021, 80/20)."
            )
    except InvalidInputError:
        raise
    except ValueError as error:  # a baseline that cannot be fitted on these scenes, in words
        errors.print(str(error), highlight=False, markup=False)
        raise typer.Exit(code=1) from None
    rows = score_questions(evaluated, table)
    _print_scores(rows)
    if out is not None:
        write_report(score_report(rows, "Question answering accuracy", note), out, "score")
        if baseline is not None:
            write_text(out / "predictions.json", predictions_json(table))
        say_replaced(replaced)


def _print_scores(rows: Sequence[TypeScore]) -> None:
    table = RichTable("type", "questions", "per-question", "options", "per-option")
    for row in rows:
        table.add_row(
            row.question_type,
            str(row.questions),
            f"{row.per_question:.3f}",
            str(row.options),
            f"{row.per_option:.3f}",
        )
    console.print(table)


@app.command()
def render(
    annotations: Annotated[
        Path, typer.Argument(help="A folder of CLEVRER annotation files.", callback=input_paths)
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the videos.")],
    video_format: Annotated[
        VideoFormat,
        typer.Option(
            "--format",
            help="mp4: CLEVRER's perspective camera, 480x320 H.264; gif: a top-down debug view.",
        ),
    ] = VideoFormat.MP4,
    backend: BackendOption = "auto",
    overwrite: OverwriteOption = False,
) -> None:
    """Draw each annotated scene into a video: video_XXXXX.mp4 (or .gif from above)."""
    from taskqa.atomic import write_bytes
    from taskqa.physics.clevrer_format import (
        annotation_filename,
        read_annotation_folder,
        video_filename,
    )
    from taskqa.physics.render import gif_filename, render_gif
    from taskqa.physics.video import render_mp4

    loaded = read_annotation_folder(annotations)
    replaced = claim_output(out, PHYSICS_VIDEOS, overwrite)
    chosen = announce_backend(backend) if video_format is VideoFormat.MP4 else "tiny"
    with terminal.progress(transient=True, unit="videos") as progress:
        task = progress.add_task("rendering", total=len(loaded))
        for annotation in loaded:
            if video_format is VideoFormat.GIF:
                write_bytes(out / gif_filename(annotation.scene_index), render_gif(annotation))
            elif not annotation.motion_trajectory:
                name = annotation_filename(annotation.scene_index)
                problem = Problem(name, ".motion_trajectory", "expected frames to draw; none")
                raise InvalidInputError([problem])
            else:
                render_mp4(annotation, out / video_filename(annotation.scene_index), backend=chosen)
            progress.advance(task)
    say_replaced(replaced)
    console.print(f"{len(loaded)} videos -> {out}")
