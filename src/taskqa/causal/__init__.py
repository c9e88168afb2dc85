"""Causal structure between actions: pairwise dependencies and their recursive closure."""

from taskqa.causal.dependency import DependencyRules, Link, action_link
from taskqa.causal.structure import Basis, CausalStructure, Executability, build_structure

__all__ = [
    "Basis",
    "CausalStructure",
    "DependencyRules",
    "Executability",
    "Link",
    "action_link",
    "build_structure",
]
