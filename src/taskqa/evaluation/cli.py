"""``taskqa evaluate`` and ``taskqa baseline``: plain functions the main CLI registers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from taskqa import terminal
from taskqa.data.resolve import input_paths
from taskqa.execution import ExecutorKind
from taskqa.execution.options import ExecutorOption, RayAddressOption, execution, reported
from taskqa.problems import InvalidInputError, Problem
from taskqa.terminal import console, errors

if TYPE_CHECKING:
    from taskqa.benchmark.folder import Benchmark
    from taskqa.evaluation.metrics import BootstrapConfig

Bench = Annotated[
    Path,
    typer.Option("--benchmark", "-b", help="A built benchmark folder.", callback=input_paths),
]


@contextmanager
def _stated(command: str) -> Iterator[None]:
    """A ValueError the evaluation code raises for a mistake in the options (a --name per file,
    --base-url for chat) becomes one problem line naming the command."""
    try:
        yield
    except InvalidInputError:
        raise
    except ValueError as error:
        raise InvalidInputError([Problem(f"taskqa {command}", "", str(error))]) from None


def evaluate_command(
    benchmark: Bench,
    predictions: Annotated[
        list[Path],
        typer.Option(
            "--predictions",
            "-p",
            help="A predictions file (repeat the option for several): JSON Lines, one object "
            'per line with the keys "question_id" and "prediction" (the answer text, or null '
            "for none), as `taskqa baseline` writes them.",
            callback=input_paths,
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for results.json and reports.")],
    split: Annotated[
        str,
        typer.Option(
            help="Split scored, FAMILY/SPLIT; all/SPLIT scores that split of every family the "
            "benchmark has, each in a folder of its own, with a summary across them."
        ),
    ] = "normal/test",
    name: Annotated[
        list[str] | None, typer.Option("--name", help="Model names, one per file (default: stems).")
    ] = None,
    resamples: Annotated[int, typer.Option(min=1, help="Bootstrap resamples of clips.")] = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    most_likely: Annotated[
        bool, typer.Option(help="Add the most-likely (train prior) column.")
    ] = True,
    strict: Annotated[
        bool, typer.Option(help="Fail when a file has unknown, duplicate or missing ids.")
    ] = False,
    allow_partial: Annotated[
        bool,
        typer.Option(
            "--allow-partial",
            help="Score a file that was made for another benchmark, leaves questions of the "
            "split unanswered or answers ids it does not have (refused by default: its score "
            "would look like a result).",
        ),
    ] = False,
    mc: Annotated[
        Path | None,
        typer.Option(
            "--mc",
            help="Score multiple-choice replies (ids <question id>#<rotation>, a letter or an "
            "option's text) on this `taskqa export mc` folder: per-item and circular accuracy "
            "per category, beside the text-only baseline and chance; writes mc-results.json.",
        ),
    ] = None,
) -> None:
    """Score prediction files on a benchmark split: results.json plus a Markdown/HTML report.

    Predictions are JSON Lines: one {"question_id": ..., "prediction": ...} object per line.
    A file that does not fit the split is refused unless --allow-partial.
    """
    from taskqa.atomic import write_text
    from taskqa.benchmark.folder import Benchmark, parse_split_name
    from taskqa.evaluation.evaluate import dump_results, evaluate, results_json
    from taskqa.evaluation.metrics import BootstrapConfig
    from taskqa.evaluation.report import build_report
    from taskqa.reports import write_report

    bench = Benchmark(benchmark)
    if mc is not None:
        _evaluate_choices(bench, mc, split, predictions, name, out)
        return
    if split.startswith(f"{ALL_FAMILIES}/"):
        _evaluate_families(
            bench, split, predictions, out, name, BootstrapConfig(resamples, seed), most_likely,
            allow_partial,
        )  # fmt: skip
        return
    parse_split_name(split)
    with _stated("evaluate"):
        evaluation = evaluate(
            bench,
            split,
            predictions,
            name,
            BootstrapConfig(resamples, seed),
            most_likely,
            allow_partial,
        )
    results = results_json(evaluation)
    write_text(out / "results.json", dump_results(results))
    write_report(build_report(evaluation, results), out)
    incomplete = _print_summary(results)
    console.print(f"wrote results.json, report.md and report.html to {out}", highlight=False)
    if strict and incomplete:
        raise typer.Exit(code=1)


ALL_FAMILIES = "all"


def _evaluate_choices(
    bench: Benchmark,
    export: Path,
    split: str,
    predictions: list[Path],
    names: list[str] | None,
    out: Path,
) -> None:
    from rich.table import Table

    from taskqa.atomic import write_text
    from taskqa.evaluation.choice import evaluate_choices
    from taskqa.jsonio import dumps

    with _stated("evaluate"):
        results = evaluate_choices(bench, export, split, predictions, names)
    write_text(out / "mc-results.json", dumps(results))
    table = Table(title=f"{split}: {results['items']:,} multiple-choice items")
    for column in ("model", "per item", "circular", "chance", "invalid asks", "missing asks"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for model, result in results["models"].items():
        overall = result["scores"]["all"]
        table.add_row(
            model,
            f"{100 * overall['item_accuracy']:.1f}",
            f"{100 * overall['circular_accuracy']:.1f}",
            f"{100 * overall['chance']:.1f}",
            str(overall["invalid_asks"]),
            str(overall["missing_asks"]),
        )
    console.print(table)
    console.print(f"wrote mc-results.json to {out}", highlight=False)


def _evaluate_families(
    bench: Benchmark,
    split: str,
    predictions: list[Path],
    out: Path,
    names: list[str] | None,
    config: BootstrapConfig,
    most_likely: bool,
    allow_partial: bool,
) -> None:
    """``--split all/SPLIT``: every family's SPLIT scored on the files that answer all of it
    (a model trained per family has a file per family; a zero-shot model one for them all),
    each into OUT/FAMILY, then one table across families (``families.json``, ``families.md``)."""
    from taskqa.atomic import write_text
    from taskqa.benchmark.folder import families_in, parse_split_name
    from taskqa.evaluation.evaluate import dump_results, evaluate, model_names, results_json
    from taskqa.evaluation.families import answered_ids, families_summary, summary_markdown
    from taskqa.evaluation.report import build_report
    from taskqa.reports import write_report

    part = split.partition("/")[2]
    parse_split_name(f"normal/{part}")
    labels = model_names(predictions, names)
    ids = [answered_ids(path) for path in predictions]
    plan: dict[str, list[int]] = {}
    skipped: dict[str, dict[str, str]] = {}
    for family in families_in(bench.root):
        wanted = {q.question.id for q in bench.questions(family, part)}
        answered = [len(seen & wanted) for seen in ids]
        # a file that answers only part of a family's split (made for another family) is left
        # out of that family, and said so, unless --allow-partial scores it on what it answers
        plan[family] = [
            i for i, n in enumerate(answered) if n and (allow_partial or n == len(wanted))
        ]
        skipped[family] = {
            labels[i]: f"answers {n:,} of {len(wanted):,}"
            for i, n in enumerate(answered)
            if n and i not in plan[family]
        }
    used = {i for chosen in plan.values() for i in chosen}
    unused = [str(path) for i, path in enumerate(predictions) if i not in used]
    if unused:  # refused before anything is written
        message = (
            f"answers no {part} split of any family in full (pass --allow-partial to score it "
            "on the questions it answers)"
        )
        raise InvalidInputError([Problem(path, "", message) for path in unused])
    scored: dict[str, dict[str, object]] = {}
    for family, chosen in plan.items():
        if not chosen and not most_likely:
            continue
        with _stated("evaluate"):
            evaluation = evaluate(
                bench,
                f"{family}/{part}",
                [predictions[i] for i in chosen],
                [labels[i] for i in chosen],
                config,
                most_likely,
                allow_partial,
                other_ids=True,
            )
        results = results_json(evaluation)
        write_text(out / family / "results.json", dump_results(results))
        write_report(build_report(evaluation, results), out / family)
        scored[family] = results
    summary = families_summary(scored, part, skipped)
    write_text(out / "families.json", dump_results(summary))
    write_text(out / "families.md", summary_markdown(summary))
    console.print(summary_markdown(summary), highlight=False, markup=False)
    console.print(
        f"wrote {len(scored)} families' results and families.json/.md to {out}", highlight=False
    )


def _print_summary(results: dict[str, object]) -> bool:
    incomplete = False
    for model in results["models"]:  # type: ignore[attr-defined]
        coverage = model["coverage"]
        overall = model["breakdowns"]["overall"]["all"]
        low, high = overall["ci95"]
        # a file scored on the questions it answers (a human study's sample) misses none
        sampled = model.get("scored_on") == "answered"
        missing = 0 if sampled else coverage["missing_ids"]
        where = (
            f"scored on the {model['questions_scored']} questions its file answers, "
            if sampled
            else ""
        )
        console.print(
            f"{model['name']}: {100 * overall['accuracy']:.2f}% "
            f"[{100 * (low or 0):.2f}, {100 * (high or 0):.2f}] "
            f"({where}invalid {overall['invalid']}, missing {missing}, "
            f"unknown ids {coverage['unknown_ids']}, duplicates {coverage['duplicate_ids']})",
            highlight=False,
        )
        if missing or coverage["unknown_ids"] or coverage["duplicate_ids"]:
            incomplete = True
            errors.print(
                f"[yellow]warning:[/] {model['name']}: {missing} missing, "
                f"{coverage['unknown_ids']} unknown and {coverage['duplicate_ids']} duplicate ids "
                f"(examples in results.json)",
                highlight=False,
            )
    return incomplete


def baseline_command(
    baseline: Annotated[
        str,
        typer.Argument(
            help="most-likely, text-only, text-embedding, oracle, noisy-oracle or chat."
        ),
    ],
    benchmark: Bench,
    out: Annotated[Path, typer.Option("--out", "-o", help="Predictions file to write (JSONL).")],
    split: Annotated[str, typer.Option(help="Split to answer, FAMILY/SPLIT.")] = "normal/test",
    flip: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="noisy-oracle: share P of the annotations' state facts flipped before the "
            "oracle's programs run (facts, not answers: P=0.1 still answers about 97% right).",
        ),
    ] = 0.1,
    seed: Annotated[int, typer.Option(help="Seed of the noise / of the model's sampling.")] = 0,
    limit: Annotated[
        int | None, typer.Option(min=1, help="Answer only the first N questions (quick trials).")
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(help="chat: the OpenAI-compatible server, e.g. http://localhost:8000/v1."),
    ] = None,
    model: Annotated[
        str, typer.Option(help="chat: the model name sent to the server.")
    ] = "default",
    frames: Annotated[
        int, typer.Option(min=0, help="chat: frames sampled uniformly per clip.")
    ] = 8,
    fps: Annotated[
        float | None, typer.Option(help="chat: sample at this rate instead (capped by --frames).")
    ] = None,
    prompt: Annotated[
        str, typer.Option(help="chat: a built-in prompt template name or a template file.")
    ] = "default",
    concurrency: Annotated[int, typer.Option(min=1, help="chat: requests in flight.")] = 4,
    max_tokens: Annotated[int, typer.Option(min=1, help="chat: reply length limit.")] = 32,
    cache: Annotated[
        Path | None, typer.Option(help="chat: SQLite response cache (default: OUT.cache.sqlite).")
    ] = None,
    extract: Annotated[
        bool, typer.Option(help="chat: ask the model to map an unmatched reply to the vocabulary.")
    ] = False,
    videos: Annotated[
        Path | None,
        typer.Option(
            help="chat: folder that relative paths in videos.csv start from.", callback=input_paths
        ),
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, help="chat: processes sending request batches (ray: CPUs).")
    ] = 1,
    executor: ExecutorOption = ExecutorKind.LOCAL,
    ray_address: RayAddressOption = None,
) -> None:
    """Write a predictions file from a baseline or a model behind an OpenAI-compatible server."""
    from taskqa.benchmark.folder import Benchmark, parse_split_name
    from taskqa.evaluation.baselines.run import BaselineName, offline_predictions
    from taskqa.evaluation.output import write_predictions

    try:
        chosen = BaselineName(baseline)
    except ValueError:
        choices = ", ".join(b.value for b in BaselineName)
        message = f"unknown baseline {baseline!r}; expected one of {choices}"
        raise InvalidInputError([Problem("taskqa baseline", "", message)]) from None
    family, part = parse_split_name(split)
    bench = Benchmark(benchmark)
    questions = bench.questions(family, part)[:limit]
    if not questions:
        empty = bench.split_path(family, part)
        raise InvalidInputError([Problem(str(empty), "", "holds no questions to predict")])
    if chosen is BaselineName.chat:
        from taskqa.evaluation.adapters.run import ChatSettings, run_chat

        settings = ChatSettings(
            base_url=base_url or "", model=model, frames=frames, fps=fps, prompt=prompt,
            concurrency=concurrency, max_tokens=max_tokens, seed=seed, extract=extract,
            cache=cache or out.with_name(out.name + ".cache.sqlite"), videos=videos,
        )  # fmt: skip
        spread = None
        if executor is not ExecutorKind.LOCAL or workers > 1:
            spread = execution(executor, workers, ray_address)
        with _stated("baseline"), reported(), terminal.progress(unit="questions") as progress:
            task = progress.add_task("asking the model", total=len(questions))
            run_chat(
                bench, split, questions, settings, out, lambda n: progress.advance(task, n),
                spread,
            )  # fmt: skip
        console.print(f"wrote {len(questions)} predictions to {out}", highlight=False)
        return
    with _stated("baseline"), terminal.progress(unit="questions") as progress:
        task = progress.add_task(chosen.value, total=len(questions))
        predicted, meta = offline_predictions(
            chosen, bench, split, questions, flip, seed, lambda n: progress.advance(task, n)
        )
        progress.update(task, completed=len(questions))
    meta.update({"split": split, "benchmark_manifest_sha256": bench.manifest_sha256})
    write_predictions(out, questions, predicted, meta)
    console.print(f"wrote {len(questions)} predictions to {out}", highlight=False)
