"""Shortcut diagnostics every build reports on its test splits.

If answers can be guessed without looking at the video, balancing has not done its job. Three
blind baselines tell: **most likely** answers each question with the most frequent train answer
of its reasoning type (EgoTaskQA reports 15.4% overall and about 50% on binary questions; the one
definition, which ``taskqa baseline most-likely`` and ``taskqa evaluate`` use too), and
**question text** answers with the most frequent train answer of the same question text, else of
the same template, else most likely — a language prior that memorises what it has read; and a
**text classifier** (naive Bayes over TF-IDF, fast enough for every build; ``taskqa baseline
text-only`` trains the stronger logistic regression), which generalises across texts: in a
world whose actions have fixed preconditions and effects, "what is the openness of the fridge
before the person opens it" needs no video. The answer vocabulary
comes from train; the share of val/test answers outside it is reported too.

``by_template`` breaks the baselines down per template and flags every template where the text
classifier beats the larger of most likely and chance by more than ``FLAG_POINTS``: that is
where the text gives the answer away, and where balancing or the template's wording needs a
look.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence

from taskqa.questions.tags import TAG_SEPARATOR, answer_kind, reasoning_type

Record = Mapping[str, object]
FLAG_POINTS = 15.0  # text classifier above most likely by more than this: the template leaks
FLAG_QUESTIONS = 20  # fewer test questions than this are too few to call a lead a leak
TEXT_BASELINES = {
    "question text": "memorises the most frequent train answer of each exact question text "
    "(else of its template, else of its reasoning type): what a model gets from having read "
    "the same question before",
    "text classifier": "the build's naive Bayes over TF-IDF word 1-2-grams, trained on the "
    "train split: it generalises across texts that share words, fast enough for every build",
    "text-only": "taskqa baseline text-only, TF-IDF word 1-2-grams with multinomial logistic "
    "regression (C = 10): the stronger language-only model the evaluation reports",
}


def type_label(kind: str) -> str:
    """A ``$``-joined reasoning type as a report shows it: ``descriptive · world · change``."""
    return kind.replace(TAG_SEPARATOR, " · ")


def vocabulary(train: Sequence[Record]) -> list[tuple[str, int]]:
    counts = Counter(str(r["answer"]) for r in train)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def out_of_vocabulary(train: Sequence[Record], other: Sequence[Record]) -> float:
    known = {r["answer"] for r in train}
    return sum(r["answer"] not in known for r in other) / len(other) if other else 0.0


class MostLikely:
    """The prior: the most frequent train answer of a question's reasoning type (ties: the
    alphabetically first answer, so it is deterministic). A type train does not have (every
    indirect test question; most more-steps ones) gets the most frequent train answer overall;
    with no train question at all, the empty answer.

    Not the structural tag's answer: a query may ask for yes or no ("would the person still be
    able to ...?"), and on a 400-episode build (simulate --seed 5) that fallback answered those
    with an open answer, scoring more-steps' yes/no questions at 33.6% where this one gets 50%."""

    def __init__(self, train: Sequence[Record]) -> None:
        self.by_type = _most_frequent(train, reasoning_type)
        self.overall = _global_answer(train)

    def answer(self, record: Record) -> str:
        return self.by_type.get(reasoning_type(record), self.overall)


def most_likely(train: Sequence[Record], test: Sequence[Record]) -> list[str]:
    """Each test question answered by the prior of ``train`` (``MostLikely``)."""
    prior = MostLikely(train)
    return [prior.answer(r) for r in test]


def question_text(train: Sequence[Record], test: Sequence[Record]) -> list[str]:
    by_text = _most_frequent(train, lambda r: str(r["question"]).lower())
    by_template = _most_frequent(train, lambda r: str(r["template"]))
    prior = MostLikely(train)
    return [
        by_text.get(str(r["question"]).lower())
        or by_template.get(str(r["template"]))
        or prior.answer(r)
        for r in test
    ]


def text_classifier(train: Sequence[Record], test: Sequence[Record]) -> list[str]:
    """Naive Bayes over TF-IDF word uni- and bigrams: the train answer the question text implies."""
    from sklearn.feature_extraction.text import TfidfVectorizer  # type: ignore[import-untyped]
    from sklearn.naive_bayes import ComplementNB  # type: ignore[import-untyped]

    labels = [str(r["answer"]) for r in train]
    if len(set(labels)) < 2 or not test:  # nothing to learn, or nothing to answer
        return [labels[0] if labels else ""] * len(test)
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
    features = vectorizer.fit_transform([str(r["question"]) for r in train])
    model = ComplementNB().fit(features, labels)
    predicted = model.predict(vectorizer.transform([str(r["question"]) for r in test]))
    return [str(answer) for answer in predicted]


def chance_values(train: Sequence[Record], test: Sequence[Record]) -> list[float]:
    """Each test question's chance of being answered right by a guess: 1/k of the k answers it
    allows (its ``answer_choices``: yes/no, an attribute's values), or, for an open
    vocabulary, of the distinct answers its template has in train and test together (the
    indirect family tests templates train never has)."""
    vocabulary_of: dict[str, set[str]] = defaultdict(set)
    for record in (*train, *test):
        vocabulary_of[str(record["template"])].add(str(record["answer"]))
    values = []
    for record in test:
        choices = list(record.get("answer_choices") or ())  # type: ignore[call-overload]
        allowed = len(choices) if choices else len(vocabulary_of[str(record["template"])])
        values.append(1 / max(allowed, 1))
    return values


def chance(train: Sequence[Record], test: Sequence[Record]) -> dict[str, float | int | None]:
    """The chance reference (``chance_values``) averaged like ``accuracy``. A blind model is
    judged against the larger of this and most likely: most likely is low where a type mixes
    many answer vocabularies, chance where one question allows few answers."""
    return _averaged(test, chance_values(train, test))


def accuracy(test: Sequence[Record], predictions: Sequence[str]) -> dict[str, float | int | None]:
    """Accuracy over all questions and over binary (yes/no answer) and open ones."""
    hits = [float(p == r["answer"]) for r, p in zip(test, predictions, strict=True)]
    return _averaged(test, hits)


def _averaged(test: Sequence[Record], values: Sequence[float]) -> dict[str, float | int | None]:
    """Per-question ``values`` averaged (in %) over all, binary and open questions; None for a
    group without questions (a split with no yes/no question has no yes/no accuracy, not 0)."""
    groups: dict[str, list[float]] = defaultdict(list)
    for record, value in zip(test, values, strict=True):
        groups["all"].append(value)
        groups[answer_kind(str(record["answer"]))].append(value)
    result: dict[str, float | int | None] = {"questions": len(test)}
    for group in ("all", "binary", "open"):
        found = groups.get(group, [])
        result[group] = round(100 * sum(found) / len(found), 2) if found else None
    return result


def by_template(
    test: Sequence[Record],
    predictions: Mapping[str, Sequence[str]],
    chances: Sequence[float] | None = None,
) -> list[dict[str, object]]:
    """Accuracy of each baseline per template, with the text classifier's lead over the larger
    of most likely and chance (``chances``: each question's, see ``chance_values``; a template
    whose questions allow two answers is at 50% by guessing, whatever most likely gets).

    Rows come largest lead first; ``flagged`` marks a lead above ``FLAG_POINTS`` on at least
    ``FLAG_QUESTIONS`` questions.
    """
    hits: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    guesses: dict[str, list[float]] = defaultdict(list)
    for index, record in enumerate(test):
        for name, predicted in predictions.items():
            hits[str(record["template"])][name].append(predicted[index] == record["answer"])
        if chances is not None:
            guesses[str(record["template"])].append(chances[index])
    rows: list[tuple[float, str, dict[str, object]]] = []
    for template, per_baseline in hits.items():
        scores = {name: 100 * sum(v) / len(v) for name, v in per_baseline.items()}
        guess = guesses.get(template)
        if guess:
            scores["chance"] = 100 * sum(guess) / len(guess)
        reference = max(scores.get("most likely", 0.0), scores.get("chance", 0.0))
        lead = scores.get("text classifier", 0.0) - reference
        values = next(iter(per_baseline.values()))
        row: dict[str, object] = {
            "template": template,
            "questions": len(values),
            **{name: round(score, 2) for name, score in scores.items()},
            "lead": round(lead, 2),
            "flagged": lead > FLAG_POINTS and len(values) >= FLAG_QUESTIONS,
        }
        rows.append((-lead, template, row))
    return [row for _, _, row in sorted(rows, key=lambda item: item[:2])]


def _most_frequent(records: Sequence[Record], key: Callable[[Record], str]) -> dict[str, str]:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        counts[key(record)][str(record["answer"])] += 1
    return {k: min(c.items(), key=lambda item: (-item[1], item[0]))[0] for k, c in counts.items()}


def _global_answer(records: Sequence[Record]) -> str:
    ranked = vocabulary(records)
    return ranked[0][0] if ranked else ""
