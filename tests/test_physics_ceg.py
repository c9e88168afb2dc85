"""Causal event graphs: binarization, machine labels, raters, imports, questions, real graphs."""

from __future__ import annotations

import json
import random

import pytest

from data_support import real_data
from taskqa.model.physics import EventKind
from taskqa.physics.causal_labels import (
    CounterfactualOracle,
    heuristic_causes,
    label_pairs,
    scene_events,
    select_nodes,
)
from taskqa.physics.ceg import CausalEventGraph, graph_statistics
from taskqa.physics.clevrer_questions import read_questions
from taskqa.physics.comparison import LabelledPair, compare
from taskqa.physics.engine import simulate_scene
from taskqa.physics.events import Event
from taskqa.physics.pipeline import CegConfig, build_scene_ceg, cegs_json, labelled_pairs
from taskqa.physics.questions import (
    graphs_from_questions,
    question_text,
    responsibility_questions,
)
from taskqa.physics.raters import (
    RaterModel,
    import_judgments,
    parse_judgments,
)
from taskqa.physics.scene import ObjectSpec, SceneSpec, sample_scene
from taskqa.problems import InvalidInputError

REAL = real_data("clevrer_humans/train.json")  # ../shared/data, else the data cache
HUMANS = REAL.root / "clevrer_humans" / "train.json"
realdata = REAL.mark

CHAIN = SceneSpec(
    7,
    (
        ObjectSpec(0, "red", "rubber", "cube", (0.0, 0.0), (0.0, 0.0), 0, None),
        ObjectSpec(1, "blue", "metal", "cylinder", (1.2, 0.0), (0.0, 0.0), 0, None),
        ObjectSpec(2, "green", "rubber", "sphere", (-3.4, 0.0), (2.5, 0.0), 5, "left"),
        ObjectSpec(3, "yellow", "metal", "cube", (0.0, -2.0), (0.0, 0.0), 0, None),
    ),
)


def _graph() -> CausalEventGraph:
    graph = CausalEventGraph(1, ["a", "b", "c", "d"])
    for cause, effect, scores in [
        ("a", "b", [5, 4, 3]),  # mean 4: the threshold is inclusive
        ("a", "c", [3, 4, 4]),  # mean 3.67: negative
        ("b", "c", [5, 5]),
        ("c", "d", [1, 2, 1]),
    ]:
        for score in scores:
            graph.add_score(cause, effect, score)
    return graph


def test_binarization_and_statistics() -> None:
    graph = _graph()
    assert sorted(graph.positive().edges) == [("a", "b"), ("b", "c")]
    assert sorted(graph.negative().edges) == [("a", "c"), ("c", "d")]
    assert sorted(graph.positive(threshold=3.5).edges) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert sorted(graph.positive(aggregate="median").edges) == [("a", "b"), ("a", "c"), ("b", "c")]
    stats = graph_statistics([graph, CausalEventGraph(2, ["x", "y"])])
    assert stats.mean_nodes == 3 and stats.mean_edges == 2
    assert stats.mean_positive_edges == 1 and stats.mean_negative_edges == 1
    assert stats.score_histogram == {1: 2, 2: 1, 3: 2, 4: 3, 5: 3}
    with pytest.raises(ValueError, match="from 1 to 5"):
        graph.add_score("a", "b", 6)


def test_trace_heuristic_is_the_transitive_closure() -> None:
    events = [
        Event(5, EventKind.ENTER, (2,)),  # 0
        Event(10, EventKind.ENTER, (3,)),  # 1
        Event(20, EventKind.COLLISION, (2, 0)),  # 2: caused by 0
        Event(30, EventKind.COLLISION, (0, 1)),  # 3: caused by 2, hence 0
        Event(40, EventKind.EXIT, (3,)),  # 4: caused by 1 only
    ]
    assert heuristic_causes(events) == [set(), set(), {0}, {0, 2}, {1}]


def test_counterfactual_labels_come_from_resimulation() -> None:
    annotation = simulate_scene(CHAIN)
    events = scene_events(annotation)
    nodes = select_nodes(events, 6)
    oracle = CounterfactualOracle(CHAIN, scene_events)
    labels = {
        (
            nodes[p.cause].kind,
            nodes[p.cause].objects,
            nodes[p.effect].kind,
            nodes[p.effect].objects,
        ): p
        for p in label_pairs(nodes, events, oracle)
    }
    ball_hits_cube = (EventKind.COLLISION, (2, 0))
    cube_hits_cylinder = (EventKind.COLLISION, (0, 1))
    ball_enters = (EventKind.ENTER, (2,))
    # Without the ball the cube never reaches the cylinder: both labels say responsible.
    chain = labels[(*ball_hits_cube, *cube_hits_cylinder)]
    assert chain.heuristic and chain.counterfactual
    assert labels[(*ball_enters, *cube_hits_cylinder)].counterfactual
    # The ball's entry shares every object with its own collision: nothing to remove.
    own = labels[(*ball_enters, *ball_hits_cube)]
    assert own.heuristic and not own.counterfactual
    assert oracle.runs >= 1
    assert not any(3 in e.objects for e in nodes)


def test_table_1_comparison() -> None:
    pairs = (
        [LabelledPair(True, True, True)] * 4
        + [LabelledPair(True, True, False)] * 2
        + [LabelledPair(False, True, False)] * 2
        + [LabelledPair(False, False, True)] * 1
        + [LabelledPair(True, False, False)] * 1
        + [LabelledPair(False, False, False)] * 10
    )
    rows = {row.protocol: row for row in compare(pairs)}
    assert rows["heuristic"].p_human_given_protocol == pytest.approx(6 / 8)
    assert rows["heuristic"].p_protocol_given_human == pytest.approx(6 / 7)
    assert rows["counterfactual"].p_human_given_protocol == pytest.approx(4 / 5)
    assert rows["and"].p_protocol_given_human == pytest.approx(4 / 7)
    assert rows["or"].protocol_positives == 9
    assert rows["xor"].p_human_given_protocol == pytest.approx(2 / 5)
    assert compare([LabelledPair(False, False, False)])[0].p_human_given_protocol is None


def test_simulated_raters_follow_their_agreement_model() -> None:
    specs = [sample_scene(seed=2, scene_index=i) for i in range(4)]
    loyal = CegConfig(
        raters=RaterModel(
            raters=3,
            agreement=1.0,
            p_responsible={
                (True, True): 1.0,
                (True, False): 1.0,
                (False, True): 0.0,
                (False, False): 0.0,
            },
            causal_scores=((5, 1.0),),
        )
    )
    built = [
        build_scene_ceg(simulate_scene(spec), spec, loyal, random.Random(spec.scene_index))
        for spec in specs
    ]
    rows = {r.protocol: r for r in compare(labelled_pairs(built))}
    # Raters who always agree with the heuristic reproduce it exactly...
    assert rows["heuristic"].p_human_given_protocol == 1.0
    assert rows["heuristic"].p_protocol_given_human == 1.0
    # ...and the saved graphs carry every rater's score and both machine labels.
    saved = json.loads(cegs_json(built))
    edge = saved[0]["edges"][0]
    assert len(edge["scores"]) == 3 and {"heuristic", "counterfactual", "positive"} <= set(edge)
    assert saved == json.loads(
        cegs_json(
            [
                build_scene_ceg(simulate_scene(spec), spec, loyal, random.Random(spec.scene_index))
                for spec in specs
            ]
        )
    )


def _judgments() -> dict[str, object]:
    edges = []
    for rater, scores in {"good1": (5, 4, 1), "good2": (4, 5, 2), "sloppy": (1, 1, 5)}.items():
        edges += [
            {
                "rater": rater,
                "scene_index": 3,
                "cause": "A enters",
                "effect": "A hits B",
                "score": scores[0],
            },
            {
                "rater": rater,
                "scene_index": 3,
                "cause": "A hits B",
                "effect": "B stops",
                "score": scores[1],
            },
            {
                "rater": rater,
                "scene_index": 3,
                "cause": "C spins",
                "effect": "B stops",
                "score": scores[2],
            },
        ]
    # The quality-check item: every rater answers it; "sloppy" is far off.
    edges += [
        {"rater": "good1", "scene_index": 99, "cause": "X hits Y", "effect": "Y moves", "score": 5},
        {"rater": "good2", "scene_index": 99, "cause": "X hits Y", "effect": "Y moves", "score": 4},
        {
            "rater": "sloppy",
            "scene_index": 99,
            "cause": "X hits Y",
            "effect": "Y moves",
            "score": 1,
        },
    ]
    nodes = [
        {"rater": r, "scene_index": 3, "event": "C spins", "correct": ok}
        for r, ok in [("good1", False), ("good2", False), ("sloppy", True)]
    ]
    checks = [{"scene_index": 99, "cause": "X hits Y", "effect": "Y moves", "expected": 5}]
    return {"edge_judgments": edges, "node_judgments": nodes, "quality_checks": checks}


def test_import_with_quality_checks_and_majority_vote() -> None:
    result = import_judgments(parse_judgments(_judgments(), "ratings.json"))
    assert result.accepted_raters == ["good1", "good2"] and result.rejected_raters == ["sloppy"]
    assert result.dropped_nodes == [(3, "C spins")]
    [graph] = result.graphs  # the quality-check scene is not a graph
    assert graph.scores == {("A enters", "A hits B"): [5, 4], ("A hits B", "B stops"): [4, 5]}
    assert sorted(graph.positive().edges) == [("A enters", "A hits B"), ("A hits B", "B stops")]


def test_import_errors_name_the_record() -> None:
    raw = _judgments()
    edges = raw["edge_judgments"]
    assert isinstance(edges, list)
    edges[4]["score"] = 9
    with pytest.raises(
        InvalidInputError,
        match=r"ratings.json.edge_judgments\[4\].score: Input should be less than or equal to 5",
    ):
        parse_judgments(raw, "ratings.json")
    edges[4]["score"] = 3
    edges[2]["effect"] = edges[2]["cause"]
    with pytest.raises(
        InvalidInputError, match=r"edge_judgments\[2\]: cause and effect are the same event"
    ):
        parse_judgments(raw, "ratings.json")


def test_questions_follow_the_graphs() -> None:
    graph = CausalEventGraph(5, ["a", "b", "c", "d", "e"])
    for cause, effect, score in [("a", "d", 5), ("b", "d", 4), ("c", "d", 2), ("a", "b", 1)]:
        graph.add_score(cause, effect, score)
    for seed in range(20):
        scene = responsibility_questions(graph, random.Random(seed), n_choice=3, threshold=4)
        assert scene.questions == []  # no event has three positive causes
        scene = responsibility_questions(graph, random.Random(seed), n_choice=2)
        [question] = scene.questions
        assert question.question == question_text("d")
        choices = {c.choice: c.answer for c in question.choices or []}
        assert len(choices) == 2
        assert all(answer == "correct" for text, answer in choices.items() if text in "ab")
        wrong = [text for text, answer in choices.items() if answer == "wrong"]
        # The rated-negative cause "c" is always used before the unrated "e".
        if wrong:
            assert "c" in wrong
        assert [c.choice_id for c in question.choices or []] == [0, 1]


@realdata
def test_graphs_recovered_from_the_released_questions() -> None:
    graphs = graphs_from_questions(read_questions(HUMANS))
    stats = graph_statistics(graphs)
    assert stats.graphs == 285
    assert stats.mean_nodes == pytest.approx(866 / 285)
    assert stats.mean_edges == pytest.approx(542 / 285)
    assert stats.mean_positive_edges + stats.mean_negative_edges == pytest.approx(stats.mean_edges)
    assert stats.score_histogram == {1: 274, 5: 268}
