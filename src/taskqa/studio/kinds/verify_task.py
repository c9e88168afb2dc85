"""``verify-task``: EgoTV-style "does this video show the task described?" yes/no.

Items are pairs of a ``taskqa verify build --render`` folder (``pairs.jsonl`` with the episode's
video from ``episodes.jsonl``), up to ``--per-category`` per split. Every pair has a label by
construction; catch trials are further pairs whose label the raters must match. The export,
``verdicts.jsonl``, holds one line per verdict with the pair's label, and ``verdicts.json``
the human accuracy against the labels per split.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

from taskqa.jsonio import dumps, jsonl_text, load_json, read_jsonl_objects
from taskqa.problems import InvalidInputError, Problem
from taskqa.studio.db import Item, items, responses
from taskqa.studio.kinds.base import CreateOptions, ItemSpec, Level, Plan
from taskqa.studio.security import choice_field


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InvalidInputError([Problem(path.name, "", f"not found in {path.parent}")])
    return [record for _, record in read_jsonl_objects(path, path.name)]


class VerifyTaskKind:
    name = "verify-task"
    title = "Does the video show the task described?"
    template = "verify_task.html"
    default_per_item = 1
    level: Level = "nominal"

    def plan(self, source: Path, options: CreateOptions) -> Plan:
        load_json(source / "manifest.json")  # refuses a folder that is not a built benchmark
        episodes = {str(e.get("episode_id")): e for e in _jsonl(source / "episodes.jsonl")}
        media_root = (options.media or source).resolve()
        pairs = _jsonl(source / "pairs.jsonl")
        for index, pair in enumerate(pairs):
            missing = [k for k in ("pair_id", "episode_id", "split", "description", "label")
                       if k not in pair]  # fmt: skip
            if missing:
                raise InvalidInputError(
                    [Problem.at("pairs.jsonl", [index], f"missing {', '.join(missing)}")]
                )
        rng = random.Random(f"studio:verify-task:{options.seed}")
        order = sorted(pairs, key=lambda p: str(p["pair_id"]))
        rng.shuffle(order)
        chosen: list[ItemSpec] = []
        catches: list[ItemSpec] = []
        counts: dict[str, int] = {}
        for pair in order:
            video = episodes.get(str(pair["episode_id"]), {}).get("video")
            if options.require_video and not (
                isinstance(video, str) and (source / video).is_file()
            ):
                continue
            split = str(pair["split"])
            spec = ItemSpec(
                key=str(pair["pair_id"]),
                category=split,
                payload={"description": str(pair["description"]), "split": split,
                         "episode_id": str(pair["episode_id"])},
                media=video if isinstance(video, str) else None,
                expected="yes" if pair["label"] else "no",
            )  # fmt: skip
            if counts.get(split, 0) < options.per_category:
                counts[split] = counts.get(split, 0) + 1
                chosen.append(spec)
            elif len(catches) < options.catch:
                catches.append(ItemSpec(**{**spec.__dict__, "catch": True}))
        return Plan(chosen, catches, media_root, {"benchmark": str(source.resolve())})

    def parse(
        self, form: dict[str, str], item: Item, stage: str, connection: sqlite3.Connection
    ) -> dict[str, Any]:
        return {"shows": choice_field(form, "shows", ("yes", "no"))}

    def catch_correct(self, response: dict[str, Any], expected: Any) -> bool:
        return bool(response["shows"] == expected)

    def agreement_value(self, response: dict[str, Any]) -> str | int | None:
        return str(response["shows"])

    def context(self, connection: sqlite3.Connection, item: Item, stage: str) -> dict[str, Any]:
        return {}

    def exports(self, connection: sqlite3.Connection, flagged: set[str]) -> dict[str, bytes]:
        study = {item.id: item for item in items(connection) if not item.catch}
        lines = []
        per_split: dict[str, list[bool]] = {}
        for response in responses(connection):
            item = study.get(response.item_id)
            if item is None:
                continue
            agrees = response.response["shows"] == item.expected
            lines.append({
                "pair_id": item.key, "episode_id": item.payload["episode_id"],
                "split": item.category, "rater": response.rater,
                "shows": response.response["shows"] == "yes", "label": int(item.expected == "yes"),
                "agrees_with_label": agrees, "flagged_rater": response.rater in flagged,
            })  # fmt: skip
            if response.rater not in flagged:
                per_split.setdefault(item.category, []).append(agrees)
        lines.sort(key=lambda line: (line["pair_id"], line["rater"]))
        summary = {
            split: {"verdicts": len(v), "agree_with_label": sum(v) / len(v)}
            for split, v in sorted(per_split.items())
        }
        return {
            "verdicts.jsonl": jsonl_text(lines, sort_keys=True).encode("utf-8"),
            "verdicts.json": dumps(summary, sort_keys=True).encode("utf-8"),
        }
