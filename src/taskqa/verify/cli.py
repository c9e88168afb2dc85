"""``taskqa verify``: build the EgoTV-style benchmark, parse descriptions, evaluate verifiers."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated

import typer

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
from taskqa.jsonio import record_text, write_json
from taskqa.outputs import (
    DSL_GRAPHS,
    PARSER_SCORES,
    VERIFY_BENCHMARK,
    VERIFY_RESULTS,
    OverwriteOption,
    claim_output,
    say_replaced,
)
from taskqa.problems import InvalidInputError, Problem
from taskqa.render.options import BackendOption, announce_backend
from taskqa.terminal import GuardedTyper, console

app = GuardedTyper(
    name="verify",
    help="Task verification (EgoTV-style): build the benchmark, parse descriptions, evaluate.",
    no_args_is_help=True,
)


@app.command()
def parse(
    descriptions: Annotated[
        Path, typer.Argument(help="Text file, one description per line.", callback=input_paths)
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Graphs file, one DSL graph per line.")],
    overwrite: OverwriteOption = False,
) -> None:
    """Parse task descriptions into partial-order query graphs (EgoTV's DSL notation)."""
    from taskqa.verify.parser import DescriptionError, parse_description

    try:
        lines = descriptions.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInputError([Problem.at(descriptions, [], f"cannot read: {error}")]) from None
    graphs, problems = [], []
    for number, line in enumerate(lines):
        try:
            graphs.append(parse_description(line).to_dsl())
        except DescriptionError as error:
            problems.append(Problem.at(descriptions, [number], str(error)))
    if problems:
        raise InvalidInputError(problems)
    replaced = claim_output(out, DSL_GRAPHS, overwrite)
    write_text(out, "".join(g + "\n" for g in graphs))
    say_replaced(replaced)
    console.print(f"parsed {len(graphs)} descriptions into {out}")


@app.command("parse-score")
def parse_score(
    gold: Annotated[
        Path,
        typer.Argument(
            help="EgoTV TSV: description, NL graph, DSL graph (data:egotv/proscript_data.tsv).",
            callback=input_paths,
        ),
    ],
    out: Annotated[Path | None, typer.Option(help="Write the scores as JSON here.")] = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Exact-match rate and graph edit distance of the parser against gold graphs."""
    from taskqa.verify.parse_eval import read_gold_graphs, score_parser

    replaced = claim_output(out, PARSER_SCORES, overwrite) if out is not None else None
    score = score_parser(read_gold_graphs(gold))
    figures = score.as_dict()
    for key, value in figures.items():
        console.print(f"{key}: {value:.4f}" if isinstance(value, float) else f"{key}: {value}")
    if out is not None:
        write_json(out, figures, sort_keys=True, indent=1)
        say_replaced(replaced)


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
    backend: BackendOption = "auto",
    workers: WorkersOption = 1,
    executor: ExecutorOption = ExecutorKind.LOCAL,
    ray_address: RayAddressOption = None,
    resume: ResumeOption = False,
    overwrite: OverwriteOption = False,
) -> None:
    """Build the benchmark: episodes in the simulated kitchen and labelled pairs, all splits."""
    from taskqa.verify.benchmark import SPLITS, build_benchmark
    from taskqa.verify.render import KitchenRenderOptions

    if size % 2:
        message = f"expected an even number of pixels, got {size}"
        raise InvalidInputError([Problem("--size", "", message)])
    options = (
        KitchenRenderOptions(fps=fps, size=size, backend=announce_backend(backend))
        if render
        else None
    )
    run = execution(executor, workers, ray_address, resume)
    replaced = claim_output(out, VERIFY_BENCHMARK, overwrite)
    with reported(), terminal.progress(transient=True, unit="trials") as progress:
        job = progress.add_task("building", total=trials * len(SPLITS))
        videos = progress.add_task(
            "rendering", total=trials * len(SPLITS) if render else 0, unit="videos"
        )
        manifest = build_benchmark(
            out,
            trials,
            seed,
            lambda: progress.advance(job),
            options,
            lambda: progress.advance(videos),
            run,
        )
    if replaced is not None:
        console.print(replaced, highlight=False, markup=False)
    console.print(f"wrote {out}: {record_text(manifest['pairs'])}", highlight=False, markup=False)


@app.command()
def evaluate(
    benchmark: Annotated[
        Path, typer.Argument(help="A folder written by `verify build`.", callback=input_paths)
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for results.json and report.")],
    noise: Annotated[list[float], typer.Option(help="Flip rates of noisy oracles.")] = [0.05, 0.1],  # noqa: B006
    text2text: Annotated[bool, typer.Option(help="Run the sentence-embedding baseline.")] = True,
    logits: Annotated[
        Path | None,
        typer.Option(help="JSONL of learned-model logits per pair.", callback=input_paths),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the noisy oracles.")] = 0,
    overwrite: OverwriteOption = False,
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

    pairs = load_benchmark(benchmark)
    replaced = claim_output(out, VERIFY_RESULTS, overwrite)
    verifiers: list[Verifier] = [
        AlignedVerifier(OracleScorer()), AlignedVerifier(OracleScorer(symmetric=True)),
        *[AlignedVerifier(NoisyOracleScorer(rate, seed)) for rate in noise],
    ]  # fmt: skip
    if logits is not None:
        verifiers.append(AlignedVerifier(LogitsFileScorer(logits)))
    notes = [f"{len(pairs)} pairs from {benchmark.name}; F1 of the positive class at 0.5."]
    if text2text:
        baseline = Text2TextVerifier()
        train = [p for p in pairs if p.split == "train"]
        threshold = baseline.fit_threshold([p.view for p in train], [p.label for p in train])
        notes.append(f"Text2Text threshold {threshold:.4f}, the best accuracy on the train split.")
        verifiers.append(baseline)
    results = {}
    with terminal.progress(transient=True, unit="pairs") as progress:
        for verifier in verifiers:
            job = progress.add_task(verifier.name, total=len(pairs))
            probabilities = run_verifier(verifier, pairs, partial(progress.advance, job))
            results[verifier.name] = summarize(pairs, probabilities)
    write_results(out, results, notes)
    say_replaced(replaced)
    for name, result in results.items():
        figures = ", ".join(f"{s} {v['f1']:.1f}" for s, v in result["splits"].items())
        console.print(f"{name}: F1 {figures}")
