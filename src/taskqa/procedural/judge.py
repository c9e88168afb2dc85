"""LLM-as-judge: a prompt per prediction, a verdict parsed robustly, retries, then "unjudged".

Templates: ``ternary`` (0/1/2) or ``binary`` (0/1). Contexts: ``default`` (the recipe name
only), ``dot`` (plus the recipe as DOT) or ``step`` (plus the steps done so far with their error
tags: the judge may see the errors, the answering model never does). A reply whose verdict
cannot be read is asked again with the next seed (the cache would otherwise return the same
reply); after the last attempt the record is marked unjudged, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal

from taskqa.llm import ChatRequest, LLMClient
from taskqa.procedural.dot import recipe_dot
from taskqa.procedural.generation import fill
from taskqa.procedural.recipes import RecipeGraph

if TYPE_CHECKING:
    from taskqa.execution import Executor

Scale = Literal["ternary", "binary"]
Context = Literal["default", "dot", "step"]
SCALE_MAX: dict[str, int] = {"ternary": 2, "binary": 1}
DEFAULT_MAX_TOKENS = 256
DEFAULT_RETRIES = 2

Record = dict[str, Any]

_VERDICT = re.compile(r"\[?\s*judge(?:ment)?\s*\]?\s*[:=\-]?\s*\**\s*([0-9]+)", re.IGNORECASE)
_RATIONALE = re.compile(r"^\s*(?:\[\s*rationale\s*\]\s*:?)?", re.IGNORECASE)


@cache
def judge_template() -> dict[str, Any]:
    import yaml

    text = resources.files("taskqa.procedural").joinpath("templates/judge.yaml").read_text()
    loaded: dict[str, Any] = yaml.safe_load(text)
    return loaded


def format_steps(steps: Sequence[Mapping[str, Any]], with_errors: bool) -> str:
    lines = []
    for step in steps:
        lines.append(f"- {step['description']}")
        if with_errors:
            lines += [f"    - [{e['tag']}] {e['description']}" for e in step.get("errors", [])]
    return "\n".join(lines)


def predicted_answer(record: Mapping[str, Any]) -> str:
    """A human answer when the record carries one (human-performance runs), else the model's."""
    if "human_answer" in record:
        return str(record["human_answer"])
    return str(record["prediction"]["response"])


def judge_prompt(
    record: Mapping[str, Any], graph: RecipeGraph, scale: Scale, context: Context
) -> str:
    parts = judge_template()
    pieces = [parts["prefix"], parts["option"][scale], parts["output"], parts["note"]["default"]]
    if context == "dot":
        pieces.append(parts["note"]["dot"])
    if context == "step":
        pieces.append(parts["note"]["step"])
    pieces.append(parts["task"])
    steps = [*record["previous_steps"], record["current_step"]]
    fields = {
        "activity_name": record["activity_name"],
        "recipe": recipe_dot(graph),
        "step_information": format_steps(steps, with_errors=True),
        "question": f"- {record['question']}",
        "gold_answer": "\n".join(f"- {answer}" for answer in record["answers"]),
        "predicted_answer": f"- {predicted_answer(record)}",
    }
    return fill("\n".join(piece.rstrip("\n") for piece in pieces), fields)


def parse_verdict(response: str, scale: Scale) -> tuple[int | None, str]:
    """The last readable rating in range, and the rationale before it; None if there is none."""
    text = response.replace("**", "")
    found = [m for m in _VERDICT.finditer(text) if 0 <= int(m[1]) <= SCALE_MAX[scale]]
    if not found:
        return None, text.strip()
    verdict = found[-1]
    rationale = _RATIONALE.sub("", text[: verdict.start()], count=1).strip()
    rationale = rationale.removesuffix("## Feedback ##").strip()
    return int(verdict[1]), rationale


def judge_record(
    record: Mapping[str, Any],
    graph: RecipeGraph,
    client: LLMClient,
    model: str,
    scale: Scale = "ternary",
    context: Context = "step",
    seed: int = 0,
    retries: int = DEFAULT_RETRIES,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> Record:
    prompt = judge_prompt(record, graph, scale, context)
    responses = []
    verdict: int | None = None
    rationale = ""
    for attempt in range(retries + 1):
        request = ChatRequest.user(
            model, prompt, temperature=0.0, seed=seed + attempt, max_tokens=max_tokens
        )
        reply = client.complete(request).text
        responses.append(reply)
        verdict, rationale = parse_verdict(reply, scale)
        if verdict is not None:
            break
    return {
        **record,
        "evaluation": {
            "prompt": prompt,
            "model_id": model,
            "template_type": f"{scale}-{context}",
            "response": responses[-1],
            "responses": responses,
            "judge": verdict,
            "rationale": rationale,
            "status": "judged" if verdict is not None else "unjudged",
        },
    }


def judge_records(
    records: Sequence[Mapping[str, Any]],
    graphs_by_name: Mapping[str, RecipeGraph],
    client: LLMClient,
    model: str,
    scale: Scale = "ternary",
    context: Context = "step",
    seed: int = 0,
    retries: int = DEFAULT_RETRIES,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    on_done: Callable[[int], None] | None = None,
) -> list[Record]:
    from concurrent.futures import ThreadPoolExecutor

    if client.executor is not None:
        settings = (scale, context, seed, retries, max_tokens)
        return _judge_sharded(
            records, graphs_by_name, client, client.executor, model, settings, on_done
        )

    def one(record: Mapping[str, Any]) -> Record:
        graph = graphs_by_name[record["activity_name"]]
        return judge_record(record, graph, client, model, scale, context, seed, retries, max_tokens)

    with ThreadPoolExecutor(max_workers=client.max_concurrency) as pool:
        results = []
        for index, result in enumerate(pool.map(one, records)):
            results.append(result)
            if on_done is not None:
                on_done(index)
    return results


# How every judging shard judges: scale, context, seed, retries and the longest reply.
JudgeSettings = tuple[Scale, Context, int, int, int]
JudgeContext = tuple[Mapping[str, RecipeGraph], str, JudgeSettings]


def _judge_sharded(
    records: Sequence[Mapping[str, Any]],
    graphs_by_name: Mapping[str, RecipeGraph],
    client: LLMClient,
    executor: Executor,
    model: str,
    settings: JudgeSettings,
    on_done: Callable[[int], None] | None,
) -> list[Record]:
    """Batches of records judged on the client's executor. A record may need several
    attempts, each a request known in advance (seed + attempt), so the driver's cache answers
    for all of them travel with the batch (``taskqa.llm.sharded``)."""
    from taskqa.llm.sharded import known_answers, run_llm_shards

    scale, context, seed, retries, max_tokens = settings
    size = client.max_concurrency
    batches: list[tuple[Any, dict[str, str]]] = []
    labels: list[str] = []
    for start in range(0, len(records), size):
        batch = list(records[start : start + size])
        attempts = [
            ChatRequest.user(
                model,
                judge_prompt(r, graphs_by_name[r["activity_name"]], scale, context),
                temperature=0.0,
                seed=seed + attempt,
                max_tokens=max_tokens,
            )
            for r in batch
            for attempt in range(retries + 1)
        ]
        batches.append((batch, known_answers(client, attempts)))
        ids = [str(r.get("question_id", start + i)) for i, r in enumerate(batch)]
        labels.append(f"{len(labels)} (records {ids[0]} to {ids[-1]})")
    shared: JudgeContext = (graphs_by_name, model, settings)
    results: list[Record] = []
    for judged in run_llm_shards(client, executor, _judge_batch, shared, batches, labels):
        for record in judged:
            results.append(record)
            if on_done is not None:
                on_done(len(results) - 1)
    return results


def _judge_batch(
    client: LLMClient, shared: JudgeContext, batch: list[Mapping[str, Any]]
) -> list[Record]:
    graphs_by_name, model, (scale, context, seed, retries, max_tokens) = shared
    return judge_records(
        batch, graphs_by_name, client, model, scale, context, seed, retries, max_tokens
    )
