"""Human causal labels against machine labels, as in Table 1 of the CLEVRER-Humans supplementary.

For each machine protocol Y (the trace heuristic, the counterfactual test, and their and / or /
xor) two conditional frequencies over event pairs: P(Human | Y), the share of pairs Y calls
causal that humans call causal too, and P(Y | Human), the share of human-causal pairs Y also
calls causal. "Human" is whatever the ratings are: real ones, or simulated raters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

PROTOCOLS: dict[str, Callable[[bool, bool], bool]] = {
    "heuristic": lambda h, c: h,
    "counterfactual": lambda h, c: c,
    "and": lambda h, c: h and c,
    "or": lambda h, c: h or c,
    "xor": lambda h, c: h != c,
}


@dataclass(frozen=True)
class LabelledPair:
    human: bool
    heuristic: bool
    counterfactual: bool


@dataclass(frozen=True)
class ProtocolAgreement:
    protocol: str
    p_human_given_protocol: float | None  # None when the protocol calls nothing causal
    p_protocol_given_human: float | None  # None when humans call nothing causal
    protocol_positives: int
    human_positives: int
    both: int


def compare(pairs: Sequence[LabelledPair]) -> list[ProtocolAgreement]:
    human = sum(p.human for p in pairs)
    rows = []
    for name, rule in PROTOCOLS.items():
        flagged = [rule(p.heuristic, p.counterfactual) for p in pairs]
        positives = sum(flagged)
        both = sum(f and p.human for f, p in zip(flagged, pairs, strict=True))
        rows.append(
            ProtocolAgreement(
                protocol=name,
                p_human_given_protocol=both / positives if positives else None,
                p_protocol_given_human=both / human if human else None,
                protocol_positives=positives,
                human_positives=human,
                both=both,
            )
        )
    return rows


# The supplementary's Table 1, for side-by-side reading (CLEVRER videos, real human ratings).
PAPER_TABLE_1 = {
    "heuristic": (0.62, 0.96),
    "counterfactual": (0.61, 0.54),
    "and": (0.23, 0.29),
    "or": (0.34, 0.62),
    "xor": (0.34, 0.33),
}
