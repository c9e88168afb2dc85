"""``taskqa verify``: build the EgoTV-style benchmark, parse descriptions, evaluate verifiers."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from taskqa import terminal
from taskqa.atomic import write_text
from taskqa.data.resolve import data_paths
from taskqa.execution import ExecutorKind
from taskqa.execution.options import (
    ExecutorOption,
    RayAddressOption,
    ResumeOption,
    WorkersOption,
    execution,
    reported,
)
from taskqa.problems import InvalidInputError, Problem
from taskqa.terminal import console

app = typer.Typer(
    name="verify",
    help="Task verification (EgoTV-style): build the benchmark, parse descriptions, evaluate.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _fail(problems: list[Problem]) -> typer.Exit:
    return terminal.fail(problems)


@app.command()
def parse(
    descriptions: Annotated[Path, typer.Argument(help="Text file, one description per line.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Graphs file, one DSL graph per line.")],
) -> None:
    """Parse task descriptions into partial-order query graphs (EgoTV's DSL notation)."""
    from taskqa.verify.parser import DescriptionError, parse_description

    try:
        lines = descriptions.read_text(encoding="utf-8").splitlines()
    except (FileNotFoundError, UnicodeDecodeError) as error:
        raise _fail([Problem.at(descriptions, [], f"cannot read: {error}")]) from None
    graphs, problems = [], []
    for number, line in enumerate(lines):
        try:
            graphs.append(parse_description(line).to_dsl())
        except DescriptionError as error:
            problems.append(Problem.at(descriptions, [number], str(error)))
    if problems:
        raise _fail(problems)
    write_text(out, "".join(g + "\n" for g in graphs))
    console.print(f"parsed {len(graphs)} descriptions into {out}")


@app.command("parse-score")
def parse_score(
    gold: Annotated[
        Path,
        typer.Argument(
            help="EgoTV TSV: description, NL graph, DSL graph (data:egotv/proscript_data.tsv).",
            callback=data_paths,
        ),
    ],
    out: Annotated[Path | None, typer.Option(help="Write the scores as JSON here.")] = None,
) -> None:
    """Exact-match rate and graph edit distance of the parser against gold graphs."""
    from taskqa.verify.parse_eval import read_gold_graphs, score_parser

    try:
        score = score_parser(read_gold_graphs(gold))
    except InvalidInputError as error:
        raise _fail(error.problems) from None
    figures = score.as_dict()
    for key, value in figures.items():
        console.print(f"{key}: {value:.4f}" if isinstance(value, float) else f"{key}: {value}")
    if out is not None:
        write_text(out, json.dumps(figures, indent=1, sort_keys=True) + "\n")


@app.command()
def build(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write the benchmark to.")],
    trials: Annotated[int, typer.Option(min=1, help="Trials per split (2 pairs each).")] = 200,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives byte-identical files.")] = 0,
    render: Annotated[
        bool, typer.Option(help="Also write an egocentric MP4 per episode (videos/<id>.mp4).")
    ] = False,
    fps: Annotated[float, typer.Option(min=1.0, help="Frames per second of the videos.")] = 6.0,
    size: Annotated[int, typer.Option(min=16, help="Video frame side in pixels (even).")] = 224,
    workers: WorkersOption = 1,
    executor: ExecutorOption = ExecutorKind.LOCAL,
    ray_address: RayAddressOption = None,
    resume: ResumeOption = False,
) -> None:
    """Build the benchmark: episodes in the simulated kitchen and labelled pairs, all splits."""
    from taskqa.verify.benchmark import SPLITS, build_benchmark
    from taskqa.verify.render import RenderOptions

    if size % 2:
        raise _fail([Problem("--size", "", f"expected an even number of pixels, got {size}")])
    options = RenderOptions(fps=fps, size=size) if render else None
    run = execution(executor, workers, ray_address, resume)
    with reported(), terminal.progress(transient=True) as progress:
        job = progress.add_task("building", total=trials * len(SPLITS))
        videos = progress.add_task("rendering", total=trials * len(SPLITS) if render else 0)
        manifest = build_benchmark(
            out,
            trials,
            seed,
            lambda: progress.advance(job),
            options,
            lambda: progress.advance(videos),
            run,
        )
    console.print(f"wrote {out}: {json.dumps(manifest['pairs'])}")


@app.command()
def evaluate(
    benchmark: Annotated[Path, typer.Argument(help="A folder written by `verify build`.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for results.json and report.")],
    noise: Annotated[list[float], typer.Option(help="Flip rates of noisy oracles.")] = [0.05, 0.1],  # noqa: B006
    text2text: Annotated[bool, typer.Option(help="Run the sentence-embedding baseline.")] = True,
    logits: Annotated[
        Path | None, typer.Option(help="JSONL of learned-model logits per pair.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the noisy oracles.")] = 0,
) -> None:
    """Score oracle, noisy oracles, Text2Text (and your model's logits) on every split."""
    from taskqa.verify.evaluation import load_benchmark, run_verifier, summarize, write_results
    from taskqa.verify.scorers import (
        AlignedVerifier,
        LogitsFileScorer,
        NoisyOracleScorer,
        OracleScorer,
        Text2TextVerifier,
        Verifier,
    )

    try:
        pairs = load_benchmark(benchmark)
        verifiers: list[Verifier] = [
            AlignedVerifier(OracleScorer()), AlignedVerifier(OracleScorer(symmetric=True)),
            *[AlignedVerifier(NoisyOracleScorer(rate, seed)) for rate in noise],
        ]  # fmt: skip
        if logits is not None:
            verifiers.append(AlignedVerifier(LogitsFileScorer(logits)))
    except InvalidInputError as error:
        raise _fail(error.problems) from None
    notes = [f"{len(pairs)} pairs from {benchmark.name}; F1 of the positive class at 0.5."]
    if text2text:
        baseline = Text2TextVerifier()
        train = [p for p in pairs if p.split == "train"]
        threshold = baseline.fit_threshold([p.view for p in train], [p.label for p in train])
        notes.append(f"Text2Text threshold {threshold:.4f}, the best accuracy on the train split.")
        verifiers.append(baseline)
    results = {}
    with terminal.progress(transient=True) as progress:
        for verifier in verifiers:
            job = progress.add_task(verifier.name, total=len(pairs))
            try:
                probabilities = run_verifier(verifier, pairs, partial(progress.advance, job))
            except InvalidInputError as error:
                raise _fail(error.problems) from None
            results[verifier.name] = summarize(pairs, probabilities)
    write_results(out, results, notes)
    for name, result in results.items():
        figures = ", ".join(f"{s} {v['f1']:.1f}" for s, v in result["splits"].items())
        console.print(f"{name}: F1 {figures}")
