"""EgoTaskQA / LEMMA world-state annotations: read them, and write taskqa recordings as them.

A folder holds the files EgoTaskQA's generation code reads (``parsed.json``,
``per_act_intervals.json``, ``metadata/lengths.json``, ``metadata/hois.json``) and taskqa's own
``taskqa_meta.json``, which makes a write-then-read round trip exact. See
``docs/sources/egotaskqa.md`` for the layout and the value mappings.
"""

from taskqa.sources.egotaskqa.actions import PHRASAL_VERBS
from taskqa.sources.egotaskqa.reader import (
    detect_egotaskqa,
    lemma_environment,
    read_egotaskqa,
    validate_egotaskqa,
)
from taskqa.sources.egotaskqa.vocabulary import (
    HOIS,
    LEMMA_FPS,
    LENGTHS,
    META,
    PARSED,
    PER_ACT_INTERVALS,
)
from taskqa.sources.egotaskqa.writer import write_egotaskqa

__all__ = [
    "HOIS",
    "LEMMA_FPS",
    "LENGTHS",
    "META",
    "PARSED",
    "PER_ACT_INTERVALS",
    "PHRASAL_VERBS",
    "detect_egotaskqa",
    "lemma_environment",
    "read_egotaskqa",
    "validate_egotaskqa",
    "write_egotaskqa",
]
