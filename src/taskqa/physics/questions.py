"""Responsibility questions from causal event graphs, and graphs back from released questions.

For every event n with at least ``n_choice`` positive predecessors, a question asks "Which of
the following is responsible for n?". The number of correct choices k is drawn uniformly from
0..n_choice, so a question may have none; correct choices are positive predecessors of n, and
the remaining slots take wrong choices: negative predecessors of n first, then events that are
not causes of n at all. This is the CLEVRER-Humans loader's procedure.
"""

from __future__ import annotations

import random

import networkx as nx

from taskqa.physics.ceg import DEFAULT_THRESHOLD, CausalEventGraph
from taskqa.physics.clevrer_format import video_filename
from taskqa.physics.clevrer_questions import Choice, ChoiceAnswer, Question, SceneQuestions

PREFIX = "Which of the following is responsible for "


def question_text(event: str) -> str:
    return f"{PREFIX}{event}?"


def event_of_question(text: str) -> str | None:
    """The event a responsibility question asks about, or None for any other question."""
    if text.startswith(PREFIX) and text.endswith("?"):
        return text[len(PREFIX) : -1]
    return None


def responsibility_questions(
    graph: CausalEventGraph,
    rng: random.Random,
    n_choice: int = 1,
    threshold: float = DEFAULT_THRESHOLD,
) -> SceneQuestions:
    positive = graph.positive(threshold)
    negative = graph.negative(threshold)
    questions: list[Question] = []
    for event in graph.nodes:
        causes = sorted(positive.predecessors(event))
        if len(causes) < n_choice:
            continue
        k = rng.randint(0, n_choice)
        correct = rng.sample(causes, k)
        wrong = _wrong_choices(graph.nodes, event, positive, negative, rng)[: n_choice - k]
        labelled: list[tuple[str, ChoiceAnswer]] = [(c, "correct") for c in correct]
        labelled += [(w, "wrong") for w in wrong]
        rng.shuffle(labelled)
        questions.append(
            Question(
                question_id=len(questions),
                question=question_text(event),
                question_type="explanatory",
                choices=[
                    Choice(choice_id=i, choice=text, answer=answer)
                    for i, (text, answer) in enumerate(labelled)
                ],
            )
        )
    return SceneQuestions(
        scene_index=graph.scene_index,
        video_filename=video_filename(graph.scene_index),
        questions=questions,
    )


def _wrong_choices(
    nodes: list[str], event: str, positive: nx.DiGraph, negative: nx.DiGraph, rng: random.Random
) -> list[str]:
    rated_wrong = sorted(negative.predecessors(event))
    rng.shuffle(rated_wrong)
    causes = set(positive.predecessors(event))
    unrelated = [n for n in nodes if n != event and n not in causes and n not in rated_wrong]
    rng.shuffle(unrelated)
    return rated_wrong + unrelated


def graphs_from_questions(scenes: list[SceneQuestions]) -> list[CausalEventGraph]:
    """The part of each scene's CEG that its questions reveal.

    Released QA keeps only the sampled edges: a correct choice is a positive edge (scored 5
    here), a wrong one an edge scored 1. Nodes are every event named by a question or a choice.
    """
    graphs = []
    for scene in scenes:
        graph = CausalEventGraph(scene.scene_index, [])
        for question in scene.questions:
            effect = event_of_question(question.question)
            if effect is None:
                continue
            if effect not in graph.nodes:
                graph.nodes.append(effect)
            for choice in question.choices or []:
                # 22 released questions offer the asked event itself as the choice: no self-loops.
                if choice.answer is None or choice.choice == effect:
                    continue
                graph.add_score(choice.choice, effect, 5 if choice.answer == "correct" else 1)
        if graph.nodes:
            graphs.append(graph)
    return graphs
