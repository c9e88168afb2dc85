"""From simulated scenes to causal event graphs, machine labels and rater scores.

Each scene's graph nodes are described events; every ordered pair of nodes (cause strictly
earlier) gets the trace-heuristic label, the counterfactual label (by re-simulation) and either
simulated rater scores or the imported scores of real raters.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from taskqa.atomic import write_text
from taskqa.jsonio import dumps, load_json
from taskqa.physics.causal_labels import (
    CounterfactualOracle,
    PairLabels,
    label_pairs,
    scene_events,
    select_nodes,
)
from taskqa.physics.ceg import DEFAULT_THRESHOLD, CausalEventGraph
from taskqa.physics.clevrer_format import ClevrerAnnotation, annotation_filename, video_filename
from taskqa.physics.comparison import LabelledPair
from taskqa.physics.describe import describe
from taskqa.physics.events import Event
from taskqa.physics.raters import RaterModel, simulate_ratings
from taskqa.physics.scene import LayoutConfig, SceneSpec, sample_scene
from taskqa.problems import InvalidInputError, Problem

MANIFEST = "scenes.json"
DESCRIPTION_TRIES = 20


@dataclass(frozen=True)
class CegConfig:
    max_nodes: int = 6
    threshold: float = DEFAULT_THRESHOLD
    tolerance: int | None = None  # frames for "the effect still happens" in counterfactuals
    raters: RaterModel = field(default_factory=RaterModel)


@dataclass
class SceneCeg:
    graph: CausalEventGraph
    events: list[Event]  # the nodes, in the order of graph.nodes
    pairs: list[PairLabels]
    counterfactual_runs: int


def describe_nodes(
    nodes: Sequence[Event], annotation: ClevrerAnnotation, rng: random.Random
) -> list[str]:
    """A distinct description per node; a repeat is redrawn, then marked with its frame."""
    texts: list[str] = []
    for event in nodes:
        text = describe(event, annotation.object_property, rng)
        for _ in range(DESCRIPTION_TRIES):
            if text not in texts:
                break
            text = describe(event, annotation.object_property, rng)
        if text in texts:
            text = f"{text} at frame {event.frame}"
        texts.append(text)
    return texts


def build_scene_ceg(
    annotation: ClevrerAnnotation,
    spec: SceneSpec,
    config: CegConfig,
    rng: random.Random,
    simulate_raters: bool = True,
) -> SceneCeg:
    """Nodes, machine labels and (unless real ratings will be attached) simulated scores."""
    events = scene_events(annotation)
    nodes = select_nodes(events, config.max_nodes)
    graph = CausalEventGraph(annotation.scene_index, describe_nodes(nodes, annotation, rng))
    oracle = CounterfactualOracle(spec, scene_events, config.tolerance)
    pairs = label_pairs(nodes, events, oracle)
    if simulate_raters:
        simulate_ratings(graph, pairs, config.raters, rng)
    return SceneCeg(graph, nodes, pairs, oracle.runs)


def attach_ratings(cegs: Sequence[SceneCeg], graphs: Sequence[CausalEventGraph]) -> int:
    """Copy imported scores onto the scenes' graphs; return how many edges matched no node pair.

    Imported judgments name events by their descriptions, so raters must have rated the
    descriptions this pipeline wrote (same scenes, same seed).
    """
    rated = {graph.scene_index: graph for graph in graphs}
    known = {ceg.graph.scene_index for ceg in cegs}
    unmatched = sum(len(g.scores) for index, g in rated.items() if index not in known)
    for ceg in cegs:
        imported = rated.get(ceg.graph.scene_index)
        if imported is None:
            continue
        nodes = set(ceg.graph.nodes)
        for (cause, effect), scores in imported.scores.items():
            if cause in nodes and effect in nodes:
                ceg.graph.scores[(cause, effect)] = list(scores)
            else:
                unmatched += 1
    return unmatched


def labelled_pairs(
    cegs: Sequence[SceneCeg], threshold: float = DEFAULT_THRESHOLD
) -> list[LabelledPair]:
    """Human-versus-machine rows for every node pair that carries scores."""
    rows = []
    for ceg in cegs:
        graph = ceg.graph
        for pair in ceg.pairs:
            edge = (ceg.graph.nodes[pair.cause], ceg.graph.nodes[pair.effect])
            if edge not in graph.scores:
                continue
            human = graph.edge_score(*edge) >= threshold
            rows.append(LabelledPair(human, pair.heuristic, pair.counterfactual))
    return rows


# --- the simulator's manifest: what is needed to simulate a scene again ---------------------------


def manifest_json(seed: int, layout: LayoutConfig, scene_indices: Sequence[int]) -> str:
    data = {
        "generator": "taskqa physics simulate",
        "seed": seed,
        "layout": asdict(layout),
        "scenes": list(scene_indices),
    }
    return dumps(data)


def read_manifest(folder: Path) -> tuple[int, LayoutConfig, list[int]]:
    path = folder / MANIFEST
    raw: Any = load_json(path)
    try:
        return int(raw["seed"]), LayoutConfig(**raw["layout"]), [int(i) for i in raw["scenes"]]
    except (KeyError, TypeError, ValueError) as error:
        raise InvalidInputError(
            [Problem(str(path), "", f"expected seed, layout and scenes ({error})")]
        ) from None


def scene_specs(folder: Path) -> Iterator[SceneSpec]:
    seed, layout, indices = read_manifest(folder)
    for index in indices:
        yield sample_scene(seed, index, layout)


def layout_problems(
    specs: Sequence[SceneSpec], annotations: dict[int, ClevrerAnnotation]
) -> list[Problem]:
    """Scenes whose annotation is missing or was not made from the manifest's layout.

    Counterfactual labels re-simulate the layout, so they only mean something when the
    annotation came from that very layout.
    """
    problems = []
    for spec in specs:
        annotation = annotations.get(spec.scene_index)
        name = annotation_filename(spec.scene_index)
        if annotation is None:
            problems.append(Problem(MANIFEST, ".scenes", f"no {name} for scene {spec.scene_index}"))
            continue
        expected = [(o.color, o.material, o.shape) for o in spec.objects]
        found = [(o.color, o.material, o.shape) for o in annotation.object_property]
        if expected != found:
            problems.append(
                Problem(
                    name,
                    ".object_property",
                    f"objects differ from scene {spec.scene_index} of {MANIFEST}: expected "
                    f"{expected}; was the folder simulated with another seed?",
                )
            )
    return problems


# --- graphs on disk -------------------------------------------------------------------------------


def cegs_json(cegs: Sequence[SceneCeg], threshold: float = DEFAULT_THRESHOLD) -> str:
    data = []
    for ceg in cegs:
        graph = ceg.graph
        labels = {(p.cause, p.effect): p for p in ceg.pairs}
        edges = []
        for (cause, effect), scores in sorted(
            graph.scores.items(),
            key=lambda item: (graph.nodes.index(item[0][0]), graph.nodes.index(item[0][1])),
        ):
            pair = labels.get((graph.nodes.index(cause), graph.nodes.index(effect)))
            edges.append(
                {
                    "cause": graph.nodes.index(cause),
                    "effect": graph.nodes.index(effect),
                    "scores": scores,
                    "score": round(graph.edge_score(cause, effect), 4),
                    "positive": graph.edge_score(cause, effect) >= threshold,
                    "heuristic": pair.heuristic if pair else None,
                    "counterfactual": pair.counterfactual if pair else None,
                }
            )
        nodes = [
            {
                "description": text,
                "kind": event.kind.value,
                "frame": event.frame,
                "objects": list(event.objects),
                "detail": event.detail,
            }
            for text, event in zip(graph.nodes, ceg.events, strict=True)
        ]
        data.append(
            {
                "scene_index": graph.scene_index,
                "video_filename": video_filename(graph.scene_index),
                "nodes": nodes,
                "edges": edges,
            }
        )
    return dumps(data)


def write_cegs(path: Path, cegs: Sequence[SceneCeg], threshold: float) -> None:
    write_text(path, cegs_json(cegs, threshold))
