"""``judge``: CLEVRER-Humans-style graded causal judgments for event pairs of physics scenes.

Items are the rated pairs (cause earlier than effect) of ``cegs.json`` from ``taskqa physics
ceg``; up to ``--per-category`` pairs per kind of the effect event, several raters each. As in
the paper's trial (its Figure 7), a rater first says whether both event descriptions are
correct, then how responsible event A is for event B on the 1-5 scale. Catch trials are pairs
turned around (the "cause" happens after the "effect"), where the expected score is 1; they
become the import format's quality checks. The export ``judgments.json`` is the file
``taskqa physics ceg --judgments`` imports; ``ceg.json`` holds the graph at the existing
threshold (mean score at or above 4 is an edge of the positive graph).
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

from taskqa.jsonio import dumps, load_json
from taskqa.physics.ceg import DEFAULT_THRESHOLD
from taskqa.problems import InvalidInputError, Problem
from taskqa.studio.db import Item, items, responses
from taskqa.studio.kinds.base import CreateOptions, ItemSpec, Level, Plan
from taskqa.studio.security import FormError, choice_field

SCALE = (
    (1, "not responsible at all"),
    (2, "a bit responsible"),
    (3, "moderately responsible"),
    (4, "quite responsible"),
    (5, "extremely responsible"),
)
NODE_CHOICES = (
    ("both", "Both event A and B are correct"),
    ("a", "Event A is incorrect"),
    ("b", "Event B is incorrect"),
    ("neither", "Both event A and B are incorrect"),
)
CATCH_TOLERANCE = 1  # the import's quality-check tolerance (physics/raters.py)


class JudgeKind:
    name = "judge"
    title = "How responsible is event A for event B?"
    template = "judge.html"
    default_per_item = 3
    level: Level = "ordinal"

    def plan(self, source: Path, options: CreateOptions) -> Plan:
        scenes = load_json(source)
        if not isinstance(scenes, list):
            raise InvalidInputError([Problem(source.name, "", "expected a list of scene graphs")])
        media_root = (options.media or source.parent).resolve()
        pairs: list[ItemSpec] = []
        reversed_pairs: list[ItemSpec] = []
        for index, scene in enumerate(scenes):
            try:
                scene_index = int(scene["scene_index"])
                nodes = [str(n["description"]) for n in scene["nodes"]]
                kinds = [str(n["kind"]) for n in scene["nodes"]]
                edges = [(int(e["cause"]), int(e["effect"])) for e in scene["edges"]]
                video = scene.get("video_filename")
            except (KeyError, TypeError, ValueError):
                raise InvalidInputError(
                    [Problem.at(source.name, [index], "expected scene_index, nodes "
                                "[{description, kind}] and edges [{cause, effect}]")]
                ) from None  # fmt: skip
            media = video if isinstance(video, str) and (media_root / video).is_file() else None
            for cause, effect in edges:
                payload = {"scene_index": scene_index, "a": nodes[cause], "b": nodes[effect]}
                pairs.append(ItemSpec(f"{scene_index}:{cause}->{effect}", kinds[effect],
                                      payload, media))  # fmt: skip
                back = {"scene_index": scene_index, "a": nodes[effect], "b": nodes[cause]}
                reversed_pairs.append(ItemSpec(f"{scene_index}:{effect}->{cause}", "catch",
                                               back, media, expected=1, catch=True))  # fmt: skip
        if options.require_video:
            pairs = [p for p in pairs if p.media]
            reversed_pairs = [p for p in reversed_pairs if p.media]
        rng = random.Random(f"studio:judge:{options.seed}")
        rng.shuffle(pairs)
        rng.shuffle(reversed_pairs)
        chosen: list[ItemSpec] = []
        counts: dict[str, int] = {}
        for pair in pairs:
            if counts.get(pair.category, 0) < options.per_category:
                counts[pair.category] = counts.get(pair.category, 0) + 1
                chosen.append(pair)
        chosen.sort(key=lambda p: p.key)
        return Plan(chosen, reversed_pairs[: options.catch], media_root,
                    {"cegs": str(source.resolve())})  # fmt: skip

    def parse(
        self, form: dict[str, str], item: Item, stage: str, connection: sqlite3.Connection
    ) -> dict[str, Any]:
        nodes = choice_field(form, "nodes", tuple(key for key, _ in NODE_CHOICES))
        if nodes != "both":  # the paper asks for a score only when both descriptions are right
            return {"nodes": nodes, "score": None}
        score = form.get("score", "")
        if score not in {str(value) for value, _ in SCALE}:
            raise FormError("field 'score' must be 1, 2, 3, 4 or 5 when both events are correct")
        return {"nodes": nodes, "score": int(score)}

    def catch_correct(self, response: dict[str, Any], expected: Any) -> bool:
        score = response.get("score")
        return score is not None and abs(int(score) - int(expected)) <= CATCH_TOLERANCE

    def agreement_value(self, response: dict[str, Any]) -> str | int | None:
        score = response.get("score")
        return None if score is None else int(score)

    def context(self, connection: sqlite3.Connection, item: Item, stage: str) -> dict[str, Any]:
        return {"scale": SCALE, "node_choices": NODE_CHOICES}

    def exports(self, connection: sqlite3.Connection, flagged: set[str]) -> dict[str, bytes]:
        by_id = {item.id: item for item in items(connection)}
        edges, nodes, checks = [], [], []
        scores: dict[tuple[int, str, str], list[int]] = {}
        for item in by_id.values():
            if item.catch:
                payload = item.payload
                checks.append({"scene_index": payload["scene_index"], "cause": payload["a"],
                               "effect": payload["b"], "expected": int(item.expected)})  # fmt: skip
        for response in responses(connection):
            item = by_id[response.item_id]
            scene, a, b = item.payload["scene_index"], item.payload["a"], item.payload["b"]
            verdict, score = response.response["nodes"], response.response["score"]
            for event, correct in ((a, verdict in ("both", "b")), (b, verdict in ("both", "a"))):
                nodes.append({"rater": response.rater, "scene_index": scene, "event": event,
                              "correct": correct})  # fmt: skip
            if score is not None:
                edges.append({"rater": response.rater, "scene_index": scene, "cause": a,
                              "effect": b, "score": score})  # fmt: skip
                if not item.catch and response.rater not in flagged:
                    scores.setdefault((scene, a, b), []).append(score)
        graph = [
            {"scene_index": s, "cause": a, "effect": b, "scores": v,
             "score": round(sum(v) / len(v), 4), "positive": sum(v) / len(v) >= DEFAULT_THRESHOLD}
            for (s, a, b), v in sorted(scores.items())
        ]  # fmt: skip
        judgments = {"edge_judgments": edges, "node_judgments": nodes, "quality_checks": checks}
        return {
            "judgments.json": dumps(judgments, sort_keys=True, indent=1).encode("utf-8"),
            "ceg.json": dumps(
                {"threshold": DEFAULT_THRESHOLD, "edges": graph}, sort_keys=True, indent=1
            ).encode("utf-8"),
        }
