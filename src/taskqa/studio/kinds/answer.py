"""``answer``: a person watches a question's clip and answers it (EgoTaskQA's Human row).

Items are a seeded sample of a built benchmark's split, up to ``--per-category`` questions per
reasoning type (a question with two types is counted for the first type that picks it). Catch
trials are questions of the family's train split, whose answers are known and never exported.
The export is a prediction file that ``taskqa evaluate`` scores; its meta file names the model
"Human" so the report's column is labelled as such, and says ``"scored_on": "answered"``, so
that it is scored on the sampled questions only (EgoTaskQA's Human row), not on the whole split.
"""

from __future__ import annotations

import os
import random
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

from taskqa.answers import normalize_answer
from taskqa.benchmark.clip_videos import clip_filename, cut_clip, videos_by_clip
from taskqa.benchmark.folder import NORMAL, Benchmark, SplitQuestion, parse_split_name
from taskqa.jsonio import dumps, jsonl_text
from taskqa.questions.tags import BINARY_ANSWERS
from taskqa.studio.db import Item, items, responses
from taskqa.studio.kinds.base import CreateOptions, ItemSpec, Level, Plan
from taskqa.studio.security import FormError, text_field

CATEGORIES = ("descriptive", "predictive", "explanatory", "counterfactual")
MAX_ANSWER_CHARS = 200
MAX_SUGGESTIONS = 300  # answers offered as completions under an open question
HUMAN = "Human"


class AnswerKind:
    name = "answer"
    title = "Answer the question about the video"
    template = "answer.html"
    default_per_item = 1
    level: Level = "nominal"

    def plan(self, source: Path, options: CreateOptions) -> Plan:
        bench = Benchmark(source)
        family, split = parse_split_name(options.split)
        media_root = (options.media or source).resolve()
        clips = videos_by_clip(bench.videos())
        suggestions = _answers_by_template(bench)
        cut = options.clip_folder
        if cut is not None:
            cut.mkdir(parents=True, exist_ok=True)
            media_root = cut.resolve()

        def spec(question: SplitQuestion, category: str, catch: bool) -> ItemSpec | None:
            q = question.question
            row = clips.get(q.clip)
            media: str | None
            if cut is not None and row is not None and row.video.is_file():
                name = clip_filename(q.clip)
                if not (cut / name).is_file():  # clips are deterministic: one cut serves all
                    cut_clip(row, cut / name)
                media, row = name, None  # the file is the clip: no span to seek to
            else:
                media = _media_path(row.video if row else None, media_root)
            if options.require_video and media is None:
                return None
            return ItemSpec(
                key=q.id,
                category=category,
                payload={
                    "question": q.question,
                    "answer_kind": q.answer_kind,
                    "suggestions": suggestions.get(q.template, [])[:MAX_SUGGESTIONS],
                    "clip": q.clip,
                },
                media=media,
                start_s=row.start_s if row else None,
                end_s=row.end_s if row else None,
                expected=q.answer,
                catch=catch,
            )

        rng = random.Random(f"studio:answer:{options.seed}")
        chosen = _sample(bench.questions(family, split), options.per_category, rng, spec)
        catch_pool = bench.questions(family, "train") if split != "train" else []
        chosen_ids = {item.key for item in chosen}
        catches = [
            s
            for s in _sample(catch_pool, options.catch, rng, lambda q, c, _: spec(q, c, True))
            if s.key not in chosen_ids
        ][: options.catch]
        return Plan(
            chosen,
            catches,
            media_root,
            {"benchmark": str(source.resolve()), "split": options.split,
             "manifest_sha256": bench.manifest_sha256},
        )  # fmt: skip

    def parse(
        self, form: dict[str, str], item: Item, stage: str, connection: sqlite3.Connection
    ) -> dict[str, Any]:
        answer = text_field(form, "answer", MAX_ANSWER_CHARS)
        normalized = normalize_answer(answer)
        if not normalized:
            raise FormError("the answer is empty once punctuation and articles are removed")
        if item.payload["answer_kind"] == "binary" and normalized not in BINARY_ANSWERS:
            raise FormError("this question is answered yes or no")
        return {"answer": answer, "normalized": normalized}

    def catch_correct(self, response: dict[str, Any], expected: Any) -> bool:
        return bool(response["normalized"] == normalize_answer(str(expected)))

    def agreement_value(self, response: dict[str, Any]) -> str | int | None:
        return str(response["normalized"])

    def context(self, connection: sqlite3.Connection, item: Item, stage: str) -> dict[str, Any]:
        return {}

    def exports(self, connection: sqlite3.Connection, flagged: set[str]) -> dict[str, bytes]:
        study_items = {item.id: item for item in items(connection) if not item.catch}
        per_rater: dict[str, list[tuple[str, str]]] = {}
        votes: dict[int, list[tuple[str, str]]] = {}
        for response in responses(connection):
            item = study_items.get(response.item_id)
            if item is None:
                continue
            pair = (item.key, response.response["answer"])
            per_rater.setdefault(response.rater, []).append(pair)
            if response.rater not in flagged:
                votes.setdefault(item.id, []).append(
                    (response.response["normalized"], response.response["answer"])
                )
        files: dict[str, bytes] = {}
        pooled = [(study_items[i].key, _majority(v)) for i, v in sorted(votes.items())]
        files["human.jsonl"] = _jsonl(pooled)
        files["human.meta.json"] = _meta(
            HUMAN, "majority answer of the raters not flagged", flagged
        )
        for rater, answers in sorted(per_rater.items()):
            files[f"human-{rater}.jsonl"] = _jsonl(sorted(answers))
            files[f"human-{rater}.meta.json"] = _meta(f"{HUMAN} ({rater})", rater, flagged)
        return files


def _majority(votes: list[tuple[str, str]]) -> str:
    """The most frequent normalized answer; ties go to the one given first (submission order)."""
    counts = Counter(normalized for normalized, _ in votes)
    best = max(counts.values())
    for normalized, raw in votes:
        if counts[normalized] == best:
            return raw
    raise AssertionError("no votes")


def _jsonl(pairs: list[tuple[str, str]]) -> bytes:
    records = ({"question_id": key, "prediction": answer} for key, answer in pairs)
    return jsonl_text(records).encode("utf-8")


def _meta(name: str, who: str, flagged: set[str]) -> bytes:
    meta = {
        "report_name": name,  # taskqa evaluate labels the column with it
        # the study asked a sample of the split: score it on those questions, not the split
        # (a question nobody was asked is not a wrong answer); the report says so
        "scored_on": "answered",
        "baseline": "human",
        "source": f"taskqa studio answer study: {who}",
        "flagged_raters_left_out": sorted(flagged),
        "normalization": "taskqa.answers.normalize_answer",
    }
    return dumps(meta, sort_keys=True).encode("utf-8")


def _sample(
    questions: list[SplitQuestion],
    per_category: int,
    rng: random.Random,
    spec: Any,
) -> list[ItemSpec]:
    """Up to ``per_category`` questions per reasoning type, in a seeded order."""
    order = sorted(questions, key=lambda q: q.id)
    rng.shuffle(order)
    chosen: list[ItemSpec] = []
    taken: set[str] = set()
    for category in CATEGORIES:
        count = 0
        for question in order:
            if count >= per_category:
                break
            if question.id in taken or category not in question.question.types:
                continue
            made = spec(question, category, False)
            if made is None:
                continue
            chosen.append(made)
            taken.add(question.id)
            count += 1
    return chosen


def _answers_by_template(bench: Benchmark) -> dict[str, list[str]]:
    """Answers seen per template across the benchmark: the completions an open question offers."""
    found: dict[str, set[str]] = {}
    for family in (NORMAL,):
        for split in ("train", "val", "test"):
            if bench.split_path(family, split).is_file():
                for q in bench.questions(family, split):
                    found.setdefault(q.question.template, set()).add(q.question.answer)
    return {template: sorted(answers) for template, answers in found.items()}


def _media_path(video: Path | None, root: Path) -> str | None:
    if video is None or not video.is_file():
        return None
    resolved = video.resolve()
    if not resolved.is_relative_to(root):
        return None
    return os.path.relpath(resolved, root).replace(os.sep, "/")
