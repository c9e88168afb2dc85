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
from taskqa.outputs import EVALUATION, PREDICTIONS, OverwriteOption, claim_output, say_replaced
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


@contextmanager
def _setup_stated() -> Iterator[None]:
    """The model's server failing for good (unreachable, refusing the model name or the key,
    answering something that is not a chat completion, retries spent) or a clip video that
    cannot be read is the user's setup, not a bug in taskqa: one problem line, exit 1."""
    from taskqa.evaluation.adapters.frames import VideoError
    from taskqa.llm import LLMError

    try:
        yield
    except LLMError as error:
        where = error.where or "taskqa baseline"
        raise InvalidInputError([Problem(where, "", error.reason)]) from None
    except VideoError as error:
        raise InvalidInputError([Problem("taskqa baseline", "", str(error))]) from None


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
        bool,
        typer.Option(
            help="Exit 1, after writing the results, when a file has duplicate ids or is "
            "incomplete (what --allow-partial let through)."
        ),
    ] = False,
    allow_partial: Annotated[
        bool,
        typer.Option(
            "--allow-partial",
            help="Score a file that leaves questions of the split unanswered on the questions "
            "it answers (its coverage, answered of the split's questions, is shown beside its "
            "score), and one made for another benchmark or with ids the split does not have "
            "(all refused by default: their score would look like a result). A file that "
            "answers none is refused even so.",
        ),
    ] = False,
    mc: Annotated[
        Path | None,
        typer.Option(
            "--mc",
            help="Score multiple-choice replies (ids <question id>#<rotation>, a letter or an "
            "option's text) on this `taskqa export mc` folder: per-item and circular accuracy "
            "per category, beside the text-only baseline and chance; writes mc-results.json "
            "(with --split all/SPLIT, one per family and mc-families.json). Missing and unknown "
            "ids follow the rule of open questions (--allow-partial).",
        ),
    ] = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Score prediction files on a benchmark split: results.json plus a Markdown/HTML report.

    Predictions are JSON Lines: one {"question_id": ..., "prediction": ...} object per line.
    A file that does not fit the split (questions unanswered, ids the split does not have, made
    for another benchmark) is refused unless --allow-partial, which scores it on the questions
    it answers and shows its coverage beside its score.
    """
    from taskqa.atomic import write_text
    from taskqa.benchmark.folder import Benchmark, parse_split_name
    from taskqa.evaluation.evaluate import dump_results, evaluate, results_json
    from taskqa.evaluation.metrics import BootstrapConfig
    from taskqa.evaluation.report import build_report
    from taskqa.reports import write_report

    bench = Benchmark(benchmark)
    replaced = claim_output(out, EVALUATION, overwrite)
    if mc is not None:
        _evaluate_choices(bench, mc, split, predictions, name, out, allow_partial)
        say_replaced(replaced)
        return
    if split.startswith(f"{ALL_FAMILIES}/"):
        _evaluate_families(
            bench, split, predictions, out, name, BootstrapConfig(resamples, seed), most_likely,
            allow_partial,
        )  # fmt: skip
        say_replaced(replaced)
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
    say_replaced(replaced)
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
    allow_partial: bool,
) -> None:
    """``--mc``: one split, or with ``all/SPLIT`` that split of every family the export has,
    each into OUT/FAMILY/mc-results.json, with ``mc-families.json`` across them."""
    from taskqa.atomic import write_text
    from taskqa.evaluation.choice import choice_families, choice_options, evaluate_choices
    from taskqa.evaluation.evaluate import model_names
    from taskqa.evaluation.families import plan_families
    from taskqa.evaluation.predictions import read_replies
    from taskqa.jsonio import dumps

    if not split.startswith(f"{ALL_FAMILIES}/"):
        with _stated("evaluate"):
            results = evaluate_choices(bench, export, split, predictions, names, allow_partial)
        write_text(out / "mc-results.json", dumps(results))
        _print_choices({split: results})
        console.print(f"wrote mc-results.json to {out}", highlight=False)
        return
    part = split.partition("/")[2]
    _check_split_part(part)
    with _stated("evaluate"):
        labels = model_names(predictions, names)
        families = choice_families(export, part)
        options = {family: choice_options(export, family, part) for family in families}
        wanted = {family: set(asks) for family, asks in options.items()}
        answered = [set(read_replies(path)[0]) for path in predictions]
        plan = plan_families(answered, wanted, labels, allow_partial)
        if plan.unused:  # refused before anything is written
            message = (
                f"answers the multiple-choice {part} split of no family in full (pass "
                "--allow-partial to score it on the items it answers)"
            )
            raise InvalidInputError(
                [Problem(str(predictions[i]), "", message) for i in plan.unused]
            )
        _refuse_shared_replies(part, options, plan.chosen, predictions)
        scored: dict[str, dict[str, object]] = {}
        for family in families:
            chosen = plan.chosen[family]
            scored[family] = evaluate_choices(
                bench, export, f"{family}/{part}", [predictions[i] for i in chosen],
                [labels[i] for i in chosen], allow_partial, other_ids=True,
            )  # fmt: skip
            scored[family]["skipped"] = plan.skipped[family]
    for family, results in scored.items():
        write_text(out / family / "mc-results.json", dumps(results))
    summary = {"split": part, "families": scored}
    write_text(out / "mc-families.json", dumps(summary))
    _print_choices({f"{family}/{part}": results for family, results in scored.items()})
    console.print(
        f"wrote {len(scored)} families' mc-results.json and mc-families.json to {out}",
        highlight=False,
    )


def _refuse_shared_replies(
    part: str,
    options: dict[str, dict[str, tuple[str, ...]]],
    chosen: dict[str, list[int]],
    predictions: list[Path],
) -> None:
    """One file scored on several families must not answer an ask that two of them show with
    other options: a question in two families draws its distractors from each family's split,
    so one id can be "B" in one and "D" in the other, and a single reply cannot answer both."""
    from itertools import combinations

    families = list(options)
    problems = []
    for index, path in enumerate(predictions):
        mine = [family for family in families if index in chosen[family]]
        for first, second in combinations(mine, 2):
            differ = sorted(
                ask
                for ask in options[first].keys() & options[second].keys()
                if options[first][ask] != options[second][ask]
            )
            if differ:
                message = (
                    f"ask {differ[0]} (and {len(differ) - 1:,} more) is shown with other options "
                    f"in {first}/{part} than in {second}/{part}, so one reply cannot answer both: "
                    "give one predictions file per family"
                )
                problems.append(Problem(str(path), "", message))
    if problems:
        raise InvalidInputError(problems)


def _check_split_part(part: str) -> None:
    """Refuse a SPLIT of all/SPLIT that is no split (train, val, test)."""
    from taskqa.benchmark.folder import NORMAL, parse_split_name

    parse_split_name(f"{NORMAL}/{part}")


def _print_choices(by_split: dict[str, dict[str, object]]) -> None:
    """A table per split: per-item and circular accuracy with what each file answers beside."""
    from rich.table import Table

    for split, results in by_split.items():
        if not results["items"]:
            # a split whose texts each have one answer has no fair distractor, so no item
            console.print(f"{split}: no multiple-choice items", highlight=False)
            continue
        table = Table(title=f"{split}: {results['items']:,} multiple-choice items")
        columns = ("model", "per item", "circular", "chance", "answered asks", "invalid asks")
        for column in columns:
            table.add_column(column, justify="left" if column == "model" else "right")
        for model, result in results["models"].items():  # type: ignore[attr-defined]
            overall = result["scores"]["all"]
            answered = f"{result['answered_asks']:,} of {result['asks']:,}"
            if result["partial"]:
                answered += f" ({result['items_scored']:,} items scored)"
            table.add_row(
                model,
                f"{100 * overall['item_accuracy']:.1f}",
                f"{100 * overall['circular_accuracy']:.1f}",
                f"{100 * overall['chance']:.1f}",
                answered,
                str(overall["invalid_asks"]),
            )
        console.print(table)
        skipped = results.get("skipped") or {}
        for label, why in skipped.items():  # type: ignore[attr-defined]
            console.print(
                f"{label} left out of {split} ({why}; --allow-partial scores it on those)",
                highlight=False,
            )


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
    from taskqa.benchmark.folder import NORMAL, families_in, parse_split_name
    from taskqa.evaluation.evaluate import dump_results, evaluate, model_names, results_json
    from taskqa.evaluation.families import (
        answered_ids,
        families_summary,
        plan_families,
        summary_markdown,
    )
    from taskqa.evaluation.report import build_report
    from taskqa.reports import write_report

    part = split.partition("/")[2]
    parse_split_name(f"{NORMAL}/{part}")
    labels = model_names(predictions, names)
    ids = [answered_ids(path) for path in predictions]
    wanted = {
        family: {q.question.id for q in bench.questions(family, part)}
        for family in families_in(bench.root)
    }
    plan = plan_families(ids, wanted, labels, allow_partial)
    if plan.unused:  # refused before anything is written
        message = (
            f"answers no {part} split of any family in full (pass --allow-partial to score it "
            "on the questions it answers)"
        )
        raise InvalidInputError([Problem(str(predictions[i]), "", message) for i in plan.unused])
    scored: dict[str, dict[str, object]] = {}
    for family, chosen in plan.chosen.items():
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
    summary = families_summary(scored, part, plan.skipped)
    write_text(out / "families.json", dump_results(summary))
    write_text(out / "families.md", summary_markdown(summary))
    console.print(summary_markdown(summary), highlight=False, markup=False)
    console.print(
        f"wrote {len(scored)} families' results and families.json/.md to {out}", highlight=False
    )


def _print_summary(results: dict[str, object]) -> bool:
    """A line per model: accuracy and interval, how many of the split's questions its file
    answers (beside the score, which is over those for a file scored on what it answers), and
    pair accuracy where the split has minimal pairs; a warning for a file that is incomplete.
    Whether any is (``--strict`` fails then)."""
    incomplete = False
    for model in results["models"]:  # type: ignore[attr-defined]
        coverage = model["coverage"]
        overall = model["breakdowns"]["overall"]["all"]
        low, high = overall["ci95"]
        on_answered = model.get("scored_on") == "answered"
        # a human study's sample (its meta file's scored_on) misses none; a file --allow-partial
        # let through misses what it leaves unanswered
        sampled = on_answered and not model.get("partial")
        missing = 0 if sampled else coverage["missing_ids"]
        questions = coverage.get("questions", overall["questions"])
        where = (
            f"scored on the {model['questions_scored']} questions its file answers, "
            if on_answered
            else ""
        )
        pairs = (model.get("pairs") or {}).get("all")
        paired = (
            f"; pair accuracy {_percent(pairs['pair_accuracy'])}% over {pairs['pairs']:,} pairs"
            if pairs
            else ""
        )
        console.print(
            f"{model['name']}: {_percent(overall['accuracy'])}% "
            f"[{_percent(low)}, {_percent(high)}] "
            f"({where}{coverage['answered']:,} of {questions:,} answered; "
            f"invalid {overall['invalid']}, missing {missing}, "
            f"unknown ids {coverage['unknown_ids']}, duplicates {coverage['duplicate_ids']})"
            f"{paired}",
            highlight=False,
        )
        if missing or coverage["unknown_ids"] or coverage["duplicate_ids"]:
            incomplete = True
            partial = (
                f"scored on the {coverage['answered']:,} of {questions:,} questions it answers "
                "(--allow-partial); "
                if model.get("partial")
                else ""
            )
            errors.print(
                f"[yellow]warning:[/] {model['name']}: {partial}{missing} missing, "
                f"{coverage['unknown_ids']} unknown and {coverage['duplicate_ids']} duplicate ids "
                f"(examples in results.json)",
                highlight=False,
            )
    return incomplete


def _percent(value: float | None) -> str:
    """A fraction in percent, two decimals; "-" for none (a group without questions)."""
    return "-" if value is None else f"{100 * value:.2f}"


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
    overwrite: OverwriteOption = False,
) -> None:
    """Write a predictions file from a baseline or a model behind an OpenAI-compatible server.

    An earlier predictions file at OUT is replaced; any other file only with --overwrite."""
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
    replaced = claim_output(out, PREDICTIONS, overwrite)
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
        # transient: a run the server refuses ends in its one problem line, not under a bar
        with (
            _setup_stated(),
            _stated("baseline"),
            reported(),
            terminal.progress(transient=True, unit="questions") as progress,
        ):
            task = progress.add_task("asking the model", total=len(questions))
            run_chat(
                bench, split, questions, settings, out, lambda n: progress.advance(task, n),
                spread,
            )  # fmt: skip
        say_replaced(replaced)
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
    say_replaced(replaced)
    console.print(f"wrote {len(questions)} predictions to {out}", highlight=False)
