"""``taskqa procedural``: ProMQA-style procedural QA from annotated cooking recordings.

Heavy modules (matplotlib, the LLM client, reports) are imported inside the commands that need
them: ``candidates`` is run again and again while people tune the prefix rule, and its start-up
time is most of its run time.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from taskqa.data.resolve import input_paths
from taskqa.execution import Execution, ExecutorKind
from taskqa.execution.options import ExecutorOption, RayAddressOption, execution, reported
from taskqa.outputs import (
    PROCEDURAL_CANDIDATES,
    PROCEDURAL_GENERATED,
    PROCEDURAL_GRAPHS,
    PROCEDURAL_JUDGED,
    PROCEDURAL_JUDGMENTS,
    PROCEDURAL_OPEN_ITEMS,
    PROCEDURAL_PREDICTIONS,
    PROCEDURAL_REPORT,
    PROCEDURAL_VERIFIED,
    OverwriteOption,
    claim_output,
    say_replaced,
)
from taskqa.problems import InvalidInputError, Problem
from taskqa.terminal import GuardedTyper, errors

LOCAL = "local"

app = GuardedTyper(
    name="procedural",
    help=(
        "Procedural QA after ProMQA: candidates (question prefixes and targets) from "
        "CaptainCook4D annotations, seeded sampling, recipe and status graphs, LLM question "
        "generation, verification, and LLM-as-judge scoring."
    ),
    no_args_is_help=True,
)


def dump_records(path: Path, records: Any) -> None:
    """JSON as the release writes it (4-space indent, trailing newline), atomically."""
    from taskqa.jsonio import write_records

    write_records(path, records)


def _failed(error: Exception) -> typer.Exit:
    """A failure that is not bad input (the LLM server, the renderer): its one line, exit 1."""
    errors.print(f"[red]✗[/red] {escape(str(error))}", highlight=False)
    return typer.Exit(code=1)


@app.command()
def candidates(
    annotations: Annotated[
        Path,
        typer.Option(
            help="ProMQA's cleaned_error_annotations.json, or a CaptainCook4D folder (raw "
            "annotations, read by taskqa's reader), or a taskqa corpus folder (e.g. simulated); "
            "data:NAME reads a file of `taskqa data`.",
            callback=input_paths,
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the candidates.")],
    graphs: Annotated[
        Path | None,
        typer.Option(
            help="ProMQA's graphs.json or a task_graphs/ folder; needed for the cleaned file, "
            "optional for folders (whose recordings carry their graphs).",
            callback=input_paths,
        ),
    ] = None,
    recordings: Annotated[
        Path | None,
        typer.Option(
            help="A JSON list of recording ids to keep (e.g. those with 4K video).",
            callback=input_paths,
        ),
    ] = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Every (prefix, question type) candidate, in ProMQA's released record format."""
    from taskqa.procedural.annotations import load_cleaned_annotations, load_recording_ids, restrict
    from taskqa.procedural.candidates import build_candidates, count_by_type
    from taskqa.procedural.recipes import load_recipe_graphs

    replaced = claim_output(out, PROCEDURAL_CANDIDATES, overwrite)
    if annotations.is_dir():
        loaded, recipe_graphs = _recordings_from_folder(annotations)
    elif graphs is None:
        message = "an annotation file needs --graphs (graphs.json or a task_graphs/ folder)"
        raise InvalidInputError([Problem(str(annotations), "", message)])
    else:
        loaded, recipe_graphs = load_cleaned_annotations(annotations), {}
    if graphs is not None:
        recipe_graphs = load_recipe_graphs(graphs)
    if recordings is not None:
        loaded = restrict(loaded, load_recording_ids(recordings))
    built = build_candidates(loaded, recipe_graphs)
    dump_records(out, built)
    say_replaced(replaced)
    counts = ", ".join(f"{name} {count}" for name, count in count_by_type(built).items())
    typer.echo(f"{len(built)} candidates from {len(loaded)} recordings ({counts}) -> {out}")


def _recordings_from_folder(folder: Path) -> tuple[Any, Any]:
    """Recordings and graphs from a taskqa corpus or a raw CaptainCook4D release folder."""
    from taskqa.corpus import is_corpus, read_corpus
    from taskqa.procedural.adapters import from_recordings
    from taskqa.sources.captaincook4d import read_captaincook4d

    source = read_corpus(folder) if is_corpus(folder) else read_captaincook4d(folder)
    return from_recordings(source)


@app.command()
def sample(
    candidates_file: Annotated[
        Path,
        typer.Option(
            "--candidates", help="Candidates written by `candidates`.", callback=input_paths
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the samples.")],
    seed: Annotated[int, typer.Option(help="Seed; 42 reproduces the released sample.")] = 42,
    remainder: Annotated[
        Path | None, typer.Option(help="Also write the candidates not drawn here.")
    ] = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Seeded stratified sample (400 next, 400 missing, 50 per error type) of candidates."""
    from taskqa.jsonio import load_json
    from taskqa.procedural.candidates import count_by_type
    from taskqa.procedural.sampling import sample_candidates

    replaced = [claim_output(out, PROCEDURAL_CANDIDATES, overwrite)]
    if remainder is not None:
        replaced.append(claim_output(remainder, PROCEDURAL_CANDIDATES, overwrite, "--remainder"))
    loaded = load_json(candidates_file)
    drawn = sample_candidates(loaded, seed)
    dump_records(out, drawn.samples)
    if remainder is not None:
        dump_records(remainder, drawn.remainder)
    for line in replaced:
        say_replaced(line)
    counts = ", ".join(f"{name} {count}" for name, count in count_by_type(drawn.samples).items())
    typer.echo(f"{len(drawn.samples)} samples ({counts}) -> {out}")


def _load_records(path: Path) -> list[dict[str, Any]]:
    from taskqa.jsonio import load_json

    data = load_json(path)
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise InvalidInputError([Problem(str(path), "", "expected a JSON list of records")])
    return data


def _graphs_by_name(path: Path) -> dict[str, Any]:
    from taskqa.procedural.recipes import load_recipe_graphs

    return {graph.name: graph for graph in load_recipe_graphs(path).values()}


@contextmanager
def _client(
    base_url: str, cache: Path | None, concurrency: int, run: Execution | None = None
) -> Iterator[Any]:
    """A client for ``base_url``; ``local`` starts the bundled SmolLM2 on loopback for the run.
    With ``run``, request batches go to its executor; the cache stays here, on the driver."""
    if run is not None:
        with reported(), run.open() as executor, _client(base_url, cache, concurrency) as client:
            client.executor = executor
            yield client
        return
    from taskqa.llm import LLMClient, ResponseCache

    response_cache = ResponseCache(cache) if cache is not None else None
    if base_url != LOCAL:
        yield LLMClient(base_url, cache=response_cache, max_concurrency=concurrency)
        return
    from taskqa.llm.local import LocalModelUnavailable, LocalServer

    try:
        server = LocalServer(parallel=concurrency)
    except LocalModelUnavailable as error:
        raise InvalidInputError([Problem("--base-url local", "", str(error))]) from None
    with server:
        yield LLMClient(server.base_url, cache=response_cache, max_concurrency=concurrency)


def _run(executor: ExecutorKind, workers: int, ray_address: str | None) -> Execution | None:
    """Where request batches go; None keeps today's threads in this process."""
    if executor is ExecutorKind.LOCAL and workers == 1:
        return None
    return execution(executor, workers, ray_address)


def _progress(total: int, description: str) -> Any:
    from taskqa.terminal import progress as bars

    progress = bars(transient=True, unit="records")
    progress.add_task(description, total=total)
    return progress


BaseUrl = Annotated[
    str,
    typer.Option(
        help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 or a hosted API (key "
        "from OPENAI_API_KEY); `local` runs the bundled SmolLM2-135M in-process (offline)."
    ),
]
Model = Annotated[str, typer.Option(help="Model name sent to the server.")]
Cache = Annotated[
    Path | None, typer.Option(help="SQLite file caching responses by request (resumable runs).")
]
Concurrency = Annotated[
    int, typer.Option(min=1, help="Requests in flight at once (per worker, with --workers).")
]
Workers = Annotated[
    int,
    typer.Option(
        min=1, help="Processes sending request batches (local: this machine; ray: the CPUs)."
    ),
]
Graphs = Annotated[
    Path, typer.Option(help="graphs.json or a task_graphs/ folder.", callback=input_paths)
]


@app.command()
def graph(
    graphs: Graphs,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the .dot and .png files.")],
    activity: Annotated[str, typer.Option(help="Activity id or recipe name.")],
    records: Annotated[
        Path | None,
        typer.Option(
            help="Candidate records, to draw one prefix's status graph.", callback=input_paths
        ),
    ] = None,
    question_id: Annotated[
        str | None, typer.Option(help="The record (question id) whose status to draw.")
    ] = None,
    engine: Annotated[
        str,
        typer.Option(help="auto (Graphviz if installed, else matplotlib), graphviz, matplotlib"),
    ] = "auto",
    overwrite: OverwriteOption = False,
) -> None:
    """Write a recipe as DOT and, for one candidate, its status graph as DOT and PNG."""
    from taskqa.atomic import write_bytes, write_text
    from taskqa.procedural.dot import recipe_dot, status_dot, step_statuses
    from taskqa.procedural.recipes import load_recipe_graphs
    from taskqa.procedural.render import RenderError, render_status_png

    loaded = load_recipe_graphs(graphs)
    chosen = [g for g in loaded.values() if activity in (str(g.activity_id), g.name)]
    if not chosen:
        names = ", ".join(f"{g.activity_id} ({g.name})" for g in loaded.values())
        message = f"no recipe {activity!r}; expected one of: {names}"
        raise InvalidInputError([Problem(str(graphs), "", message)])
    recipe = chosen[0]
    replaced = claim_output(out, PROCEDURAL_GRAPHS, overwrite)
    write_text(out / "recipe.dot", recipe_dot(recipe) + "\n")
    say_replaced(replaced)
    typer.echo(f"recipe {recipe.name} -> {out / 'recipe.dot'}")
    if records is None or question_id is None:
        return
    found = [r for r in _load_records(records) if r.get("question_id") == question_id]
    if not found:
        message = f"no record with question_id {question_id!r}"
        raise InvalidInputError([Problem(str(records), "", message)])
    statuses = step_statuses(recipe, found[0])
    dot_text = status_dot(recipe, statuses) + "\n"
    try:
        png, used = render_status_png(recipe, statuses, dot_text, engine)  # type: ignore[arg-type]
    except RenderError as error:
        raise _failed(error) from None
    write_text(out / f"{question_id}.dot", dot_text)
    write_bytes(out / f"{question_id}.png", png)
    typer.echo(f"status graph ({used}) -> {out / f'{question_id}.png'}")


@app.command()
def generate(
    samples: Annotated[
        Path, typer.Option(help="Sampled candidates (from `sample`).", callback=input_paths)
    ],
    graphs: Graphs,
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write generated records.")],
    base_url: BaseUrl,
    model: Model,
    seed: Annotated[int, typer.Option(help="Seeds the request and the choice of pair.")] = 0,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.7,
    max_tokens: Annotated[int, typer.Option(help="Longest reply.")] = 512,
    cache: Cache = None,
    concurrency: Concurrency = 4,
    limit: Annotated[int | None, typer.Option(help="Only the first N samples.")] = None,
    workers: Workers = 1,
    executor: ExecutorOption = ExecutorKind.LOCAL,
    ray_address: RayAddressOption = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Ask an LLM for three QA pairs per sample and keep one, chosen with the seed."""
    from taskqa.llm import LLMError
    from taskqa.procedural.generation import generate as run_generation

    records = _load_records(samples)[:limit]
    by_name = _graphs_by_name(graphs)
    replaced = claim_output(out, PROCEDURAL_GENERATED, overwrite)
    try:
        with (
            _client(base_url, cache, concurrency, _run(executor, workers, ray_address)) as client,
            _progress(len(records), "generating") as progress,
        ):
            task = progress.tasks[0].id
            generated = run_generation(
                records, by_name, client, model, seed, temperature, max_tokens,
                on_done=lambda _i, _c: progress.advance(task),
            )  # fmt: skip
    except LLMError as error:
        raise _failed(error) from None
    dump_records(out, generated)
    say_replaced(replaced)
    parsed = sum(r["generation"]["qas"][0]["question"] is not None for r in generated)
    typer.echo(f"{len(generated)} generated ({parsed} with a parsable pair) -> {out}")


@app.command("import-released")
def import_released(
    released: Annotated[
        Path, typer.Option(help="A ProMQA release file (examples.json).", callback=input_paths)
    ],
    generated_out: Annotated[Path, typer.Option(help="Where to write the generated records.")],
    judgments_out: Annotated[Path, typer.Option(help="Where to write the verification file.")],
    overwrite: OverwriteOption = False,
) -> None:
    """Split released records into generated records and a verification file for `verify`."""
    from taskqa.jsonio import load_json
    from taskqa.procedural.release import import_records, judgments_json

    examples = import_records(load_json(released), str(released))
    replaced = [
        claim_output(generated_out, PROCEDURAL_GENERATED, overwrite, "--generated-out"),
        claim_output(judgments_out, PROCEDURAL_JUDGMENTS, overwrite, "--judgments-out"),
    ]
    dump_records(generated_out, [example.generated for example in examples])
    dump_records(judgments_out, [judgments_json(example) for example in examples])
    for line in replaced:
        say_replaced(line)
    typer.echo(f"{len(examples)} records -> {generated_out}, {judgments_out}")


@app.command()
def verify(
    generated: Annotated[
        Path, typer.Option(help="Generated records (from `generate`).", callback=input_paths)
    ],
    judgments: Annotated[
        Path,
        typer.Option(
            help="Verification file: two annotators and the adjudicator.", callback=input_paths
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Verified records (release format).")],
    seed: Annotated[int, typer.Option(help="Seeds the order of the adjudicator's pool.")] = 0,
    open_items: Annotated[
        Path | None, typer.Option(help="Where to list questions still needing the adjudicator.")
    ] = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Adjudicate two annotators' judgments (paper's Table 13) and export released records."""
    from taskqa.procedural.release import verify_all

    result = verify_all(_load_records(generated), _load_records(judgments), str(judgments), seed)
    replaced = claim_output(out, PROCEDURAL_VERIFIED, overwrite)
    if open_items is not None:
        claim_output(open_items, PROCEDURAL_OPEN_ITEMS, overwrite, "--open-items")
    if result.open_items:
        if open_items is not None:
            dump_records(open_items, result.open_items)
        typer.echo(
            f"✗ {len(result.open_items)} question(s) need an adjudicator decision"
            + (f" (listed in {open_items})" if open_items else ""),
            err=True,
        )
        raise typer.Exit(code=2)
    dump_records(out, result.kept)
    say_replaced(replaced)
    agreement = result.agreement
    typer.echo(
        f"{len(result.kept)} verified, {result.rejected} rejected -> {out}; annotator agreement: "
        f"questions {_share(agreement.questions)}, answers {_share(agreement.answers)}"
    )


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


@app.command()
def predict(
    records: Annotated[
        Path, typer.Option(help="Verified records (question + answers).", callback=input_paths)
    ],
    graphs: Graphs,
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write predictions.")],
    base_url: BaseUrl,
    model: Model,
    frames: Annotated[
        Path | None,
        typer.Option(
            help="Folder of <recording_id>/<second>.png frames (1 fps); text only if unset.",
            callback=input_paths,
        ),
    ] = None,
    max_frames: Annotated[int, typer.Option(min=1, help="Most frames per question.")] = 20,
    max_tokens: Annotated[int, typer.Option(help="Longest answer.")] = 128,
    cache: Cache = None,
    concurrency: Concurrency = 4,
    workers: Workers = 1,
    executor: ExecutorOption = ExecutorKind.LOCAL,
    ray_address: RayAddressOption = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Answer each question from the recipe DOT, the clip's frames and the question."""
    from taskqa.llm import LLMError
    from taskqa.procedural.answering import predict as run_predict

    loaded = _load_records(records)
    by_name = _graphs_by_name(graphs)
    replaced = claim_output(out, PROCEDURAL_PREDICTIONS, overwrite)
    run = _run(executor, workers, ray_address)
    try:
        with _client(base_url, cache, concurrency, run) as client:
            predicted = run_predict(loaded, by_name, client, model, frames, max_frames, max_tokens)
    except LLMError as error:
        raise _failed(error) from None
    dump_records(out, predicted)
    say_replaced(replaced)
    typer.echo(f"{len(predicted)} predictions -> {out}")


@app.command()
def judge(
    predictions: Annotated[
        Path, typer.Option(help="Records with predictions.", callback=input_paths)
    ],
    graphs: Graphs,
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write judged records.")],
    base_url: BaseUrl,
    model: Model,
    scale: Annotated[str, typer.Option(help="ternary (0/1/2) or binary (0/1).")] = "ternary",
    context: Annotated[str, typer.Option(help="default, dot or step.")] = "step",
    retries: Annotated[int, typer.Option(min=0, help="Re-asks after an unreadable verdict.")] = 2,
    max_tokens: Annotated[int, typer.Option(help="Longest verdict reply.")] = 256,
    seed: Annotated[int, typer.Option(help="Seed of the first attempt.")] = 0,
    cache: Cache = None,
    concurrency: Concurrency = 4,
    workers: Workers = 1,
    executor: ExecutorOption = ExecutorKind.LOCAL,
    ray_address: RayAddressOption = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Rate each prediction against the gold answers with an LLM judge."""
    from taskqa.llm import LLMError
    from taskqa.procedural.judge import judge_records

    if scale not in ("ternary", "binary"):
        raise typer.BadParameter(f"{scale!r}: expected ternary or binary", param_hint="--scale")
    if context not in ("default", "dot", "step"):
        message = f"{context!r}: expected default, dot or step"
        raise typer.BadParameter(message, param_hint="--context")
    loaded = _load_records(predictions)
    by_name = _graphs_by_name(graphs)
    replaced = claim_output(out, PROCEDURAL_JUDGED, overwrite)
    try:
        with (
            _client(base_url, cache, concurrency, _run(executor, workers, ray_address)) as client,
            _progress(len(loaded), "judging") as progress,
        ):
            task = progress.tasks[0].id
            judged = judge_records(
                loaded, by_name, client, model, scale, context, seed, retries, max_tokens,  # type: ignore[arg-type]
                on_done=lambda _i: progress.advance(task),
            )  # fmt: skip
    except LLMError as error:
        raise _failed(error) from None
    dump_records(out, judged)
    say_replaced(replaced)
    unjudged = sum(r["evaluation"]["judge"] is None for r in judged)
    typer.echo(f"{len(judged)} judged ({unjudged} unjudged) -> {out}")


@app.command()
def report(
    judged: Annotated[
        list[str], typer.Option(help="NAME=FILE of judged records; repeat for each run.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for report.md/.html.")],
    human: Annotated[
        Path | None,
        typer.Option(
            help="Human ratings (a JSON list of {question_id, predictor, rating}) for "
            "calibration.",
            callback=input_paths,
        ),
    ] = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Score table (overall, clean/noisy, per type), judge calibration and self-preference."""
    from taskqa.procedural.reporting import build_report, load_human_ratings
    from taskqa.reports import write_report

    runs: dict[str, list[dict[str, Any]]] = {}
    for item in judged:
        name, separator, file = item.partition("=")
        if not separator:
            raise typer.BadParameter(f"{item!r}: expected NAME=FILE", param_hint="--judged")
        runs[name] = _load_records(Path(file))
    ratings = load_human_ratings(human) if human is not None else None
    replaced = claim_output(out, PROCEDURAL_REPORT, overwrite)
    written = write_report(build_report(runs, ratings), out)
    say_replaced(replaced)
    typer.echo(f"report -> {written[0]}")
