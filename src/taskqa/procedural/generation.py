"""QA generation: a prompt per sampled candidate, an LLM asked for three QA pairs, one kept.

The prompt parts live in ``templates/generation.yaml`` so wording can change without code. The
reply is parsed leniently (bullets ``*``, ``-``, ``•`` or numbers; answers indented under their
question; bold markers dropped), and the pairs are shuffled with a seed derived from the run's
seed and the question id, so the pair kept (``qas[0]``) is reproducible, unlike the release's
unseeded shuffle. Prompt, raw reply, model and template type are stored with the record.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from taskqa.llm import ChatRequest, Completion, LLMClient
from taskqa.procedural.candidates import ERROR_TYPES
from taskqa.procedural.recipes import RecipeGraph

DEFAULT_TEMPERATURE = 0.7
DEFAULT_MAX_TOKENS = 512
PAIRS_ASKED = 3

Record = dict[str, Any]


@cache
def generation_template() -> dict[str, Any]:
    import yaml

    text = resources.files("taskqa.procedural").joinpath("templates/generation.yaml").read_text()
    loaded: dict[str, Any] = yaml.safe_load(text)
    return loaded


def _bullets(items: Sequence[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def generation_prompt(record: Mapping[str, Any], graph: RecipeGraph) -> str:
    """The step-target prompt for one candidate (errors in the history are not shown)."""
    parts = generation_template()
    question_type = record["type"]
    history = [step["description"] for step in record["previous_steps"]]
    error_kind = question_type if question_type in ERROR_TYPES else ""
    fields = {
        "activity_name": record["activity_name"],
        "history": _bullets(history) if history else parts["no_history"],
        "current_step": record["current_step"]["description"],
        "next_steps": _bullets([s["description"] for s in record.get("next_steps", [])]),
        "missing_steps": _bullets([s["description"] for s in record.get("missing_steps", [])]),
        "error_description": record.get("error_description", ""),
        "recipe_step": graph.steps.get(record["current_step"]["step_id"], ""),
        "error_kind": error_kind,
    }
    pieces = [
        parts["prefix"],
        parts["steps"],
        parts["target"][_target_key(record)],
        parts["question"][_family(question_type)],
        parts["constraint"],
        parts["examples"][_family(question_type)],
        parts["suffix"],
    ]
    return fill("\n".join(piece.rstrip("\n") for piece in pieces), fields)


_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def fill(template: str, fields: Mapping[str, str]) -> str:
    """Replace known ``{name}`` placeholders in one pass: braces inside the inserted step texts
    stay as they are, and unknown braces in the template are left alone."""
    return _PLACEHOLDER.sub(lambda m: fields.get(m[1], m[0]), template)


def _family(question_type: str) -> str:
    return question_type if question_type in ("next", "missing", "order") else "error"


def _target_key(record: Mapping[str, Any]) -> str:
    question_type = record["type"]
    if question_type in ("next", "missing"):
        has_any = bool(record[f"{question_type}_steps"])
        return f"{question_type}_{'some' if has_any else 'none'}"
    return _family(question_type)


@dataclass(frozen=True)
class QAPair:
    question: str
    answers: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"question": self.question, "answers": list(self.answers)}


_BULLET = re.compile(r"^(?P<indent>[ \t]*)(?:[*\-•+]|\d+[.)])\s+(?P<text>.+?)\s*$")


def parse_qa_pairs(response: str) -> list[QAPair]:
    """Question bullets at the outermost indentation, answers as deeper bullets below them.

    Lines that are not bullets are ignored; a question with no answer is dropped, since a
    question without an answer cannot be verified.
    """
    lines = []
    for raw in response.replace("**", "").splitlines():
        match = _BULLET.match(raw.expandtabs(4))
        if match:
            lines.append((len(match["indent"]), match["text"].strip()))
    if not lines:
        return []
    outer = min(indent for indent, _ in lines)
    pairs: list[QAPair] = []
    question: str | None = None
    answers: list[str] = []
    for indent, text in lines:
        if indent == outer:
            if question is not None and answers:
                pairs.append(QAPair(question, tuple(answers)))
            question, answers = text, []
        elif question is not None:
            answers.append(text)
    if question is not None and answers:
        pairs.append(QAPair(question, tuple(answers)))
    return pairs


def choose_pairs(pairs: Sequence[QAPair], seed: int, question_id: str) -> list[QAPair]:
    """The pairs in a seeded order; the first is the one kept."""
    shuffled = list(pairs)
    random.Random(f"{seed}:{question_id}").shuffle(shuffled)
    return shuffled


def generation_request(
    record: Mapping[str, Any],
    graph: RecipeGraph,
    model: str,
    seed: int,
    temperature: float = DEFAULT_TEMPERATURE,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> ChatRequest:
    prompt = generation_prompt(record, graph)
    return ChatRequest.user(
        model, prompt, temperature=temperature, seed=seed, max_tokens=max_tokens
    )


def generated_record(
    record: Mapping[str, Any], request: ChatRequest, completion: Completion, seed: int
) -> Record:
    pairs = choose_pairs(parse_qa_pairs(completion.text), seed, record["question_id"])
    qas = [pair.as_json() for pair in pairs] or [{"question": None, "answers": [None]}]
    return {
        **record,
        "generation": {
            "prompt": request.messages[0]["content"],
            "response": completion.text,
            "model_id": request.model,
            "template_type": generation_template()["template_type"],
            "qas": qas,
        },
    }


def generate(
    records: Sequence[Mapping[str, Any]],
    graphs_by_name: Mapping[str, RecipeGraph],
    client: LLMClient,
    model: str,
    seed: int,
    temperature: float = DEFAULT_TEMPERATURE,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    on_done: Callable[[int, Completion], None] | None = None,
) -> list[Record]:
    """Generation records for ``records``, in order; the same seed and cache give the same file."""
    requests = [
        generation_request(
            r, graphs_by_name[r["activity_name"]], model, seed, temperature, max_tokens
        )
        for r in records
    ]
    completions = client.complete_many(requests, on_done)
    return [
        generated_record(r, q, c, seed)
        for r, q, c in zip(records, requests, completions, strict=True)
    ]
