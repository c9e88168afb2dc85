"""Causal structure between actions: pairwise dependencies and their recursive closure."""

from taskqa.causal.dependency import DependencyRules, Link, action_link
from taskqa.causal.structure import CausalStructure, Executability, build_structure

__all__ = [
    "CausalStructure",
    "DependencyRules",
    "Executability",
    "Link",
    "action_link",
    "build_structure",
]
