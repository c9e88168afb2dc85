"""The package's layers: no package of taskqa imports one that imports it back.

The graph is read from the source (every ``import taskqa.x`` and ``from taskqa.x ...``, inside
functions too, since a deferred import is still a dependency), one node per sub-package or
top-level module, so a cycle of any length between packages fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import taskqa

ROOT = Path(taskqa.__file__).parent


def _unit(module: str) -> str:
    """``taskqa.questions.generate`` -> ``questions``; ``taskqa.cli`` -> ``cli``."""
    return module.split(".")[1]


def package_graph(root: Path = ROOT) -> nx.DiGraph:
    graph = nx.DiGraph()
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        source = parts[0]
        graph.add_node(source)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                if name.startswith("taskqa.") and _unit(name) != source:
                    graph.add_edge(source, _unit(name), file=path.relative_to(root).as_posix())
    return graph


def test_no_import_cycle_between_packages() -> None:
    graph = package_graph()
    cycles = list(nx.simple_cycles(graph))
    described = [
        " -> ".join([*cycle, cycle[0]])
        + " ("
        + ", ".join(
            graph.edges[a, b]["file"] for a, b in zip(cycle, [*cycle[1:], cycle[0]], strict=False)
        )
        + ")"
        for cycle in cycles
    ]
    assert not cycles, "import cycles between packages:\n" + "\n".join(described)


def test_the_graph_sees_a_cycle(tmp_path: Path) -> None:
    """The checker itself: a two-package cycle, one edge a deferred import, is found."""
    (tmp_path / "alpha").mkdir()
    (tmp_path / "beta").mkdir()
    (tmp_path / "alpha" / "a.py").write_text("from taskqa.beta.b import thing\n")
    (tmp_path / "beta" / "b.py").write_text("def f():\n    import taskqa.alpha.a\n")
    assert list(nx.simple_cycles(package_graph(tmp_path))) in (
        [["alpha", "beta"]],
        [["beta", "alpha"]],
    )


def test_layers_point_down() -> None:
    """The layers the docs name: lower ones never import higher ones."""
    graph = package_graph()
    order = ["model", "sources", "simulation", "causal", "programs", "questions", "benchmark"]
    for low_index, low in enumerate(order):
        for high in order[low_index + 1 :]:
            assert not graph.has_edge(low, high), f"{low} imports {high}: {graph.edges[low, high]}"
    assert not graph.has_edge("benchmark", "evaluation")
