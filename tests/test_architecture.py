"""The import graph of crawlmath, read from the source (issue 34 item 3).

Every module of the four source folders (``crawlmath/``, ``derive/``,
``numeric/``, ``proofs/``, installed as ``crawlmath``, ``crawlmath.derive``,
``crawlmath.numeric`` and ``crawlmath.proofs``) is parsed with `ast`; every
``import`` and ``from ... import`` statement counts, at module level or inside a
function (a cycle hidden in a function is still a cycle: it only moves the
failure to the first call), relative imports resolved against the module's
package.  ``from pkg import name`` is an edge to the submodule ``pkg.name`` when
that module exists, else to ``pkg`` itself (its ``__init__`` defines the name).
Importing ``a.b.c`` also runs the ``__init__`` of ``a`` and ``a.b``; those
implicit parent edges are not counted (a package's ``__init__`` importing its
own submodules is how packages are built, and Python handles it).  Imports
under ``if TYPE_CHECKING:`` never run and are skipped.

The graph must have no cycle; a failure names each cycle as a chain of modules
with the file and line of every import on it.

Imports by computed name (``importlib.import_module(f"...")``, ``__import__``)
are invisible to this graph and turn a moved module into a run-time surprise,
so they are allowed only at the documented discovery points listed in
`DISCOVERY`.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = {"crawlmath": "crawlmath", "crawlmath.derive": "derive", "crawlmath.numeric": "numeric",
                "crawlmath.proofs": "proofs"}  # pyproject.toml [tool.setuptools.package-dir]

# (module, function) pairs allowed to import by a computed name, and why
DISCOVERY = {
    ("crawlmath.proofs.registry", "all_claims"): "claims discovery: every module claim_modules lists",
    ("crawlmath.proofs.registry", "claim_modules"): "claims discovery: the paper packages' SECTIONS",
    ("crawlmath.proofs.registry", "load_claim_module"): "claims discovery: one listed module, on a Dask worker",
    ("crawlmath.cli", "_command_modules"): "subcommands: every module of crawlmath/commands",
    ("crawlmath.derive.codegen", "formulas_of"): "codegen's module list: a derivation module's formulas()",
    ("crawlmath.derive.codegen", "_modules_defining"): "codegen's module list: derive modules with a hook",
    ("crawlmath.derive.codegen", "expected_files"): "codegen's module list: generated_sources() of those modules",
}


def source_files() -> dict[str, tuple[Path, bool]]:
    """{module name: (file, is a package __init__)} for every .py file of the four source folders."""
    out = {}
    for package, folder in PACKAGE_DIRS.items():
        base = ROOT / folder
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base).with_suffix("").parts
            is_pkg = rel[-1] == "__init__"
            out[".".join((package, *(rel[:-1] if is_pkg else rel)))] = (path, is_pkg)
    return out


@functools.cache
def _parsed(path: Path) -> ast.Module:
    """The syntax tree of ``path``, parsed once per test session (three tests read every file)."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of the nodes under a module-level ``if TYPE_CHECKING:`` (never executed)."""
    skip = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skip.update(id(n) for n in ast.walk(child))
    return skip


def _resolve(module: str, is_pkg: bool, level: int, target: str | None) -> str:
    """The absolute name of ``from <level dots><target> import ...`` written in ``module``."""
    if level == 0:
        return target or ""
    package = module.split(".") if is_pkg else module.split(".")[:-1]
    base = package[: len(package) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def import_graph(files: dict[str, tuple[Path, bool]] | None = None) -> dict[str, dict[str, int]]:
    """{module: {imported crawlmath module: line of the first import}} over every import statement."""
    files = source_files() if files is None else files
    graph: dict[str, dict[str, int]] = {}
    for module, (path, is_pkg) in files.items():
        tree = _parsed(path)
        skip = _type_checking_nodes(tree)
        edges: dict[str, int] = {}

        def add(target: str, line: int) -> None:
            if target in files and target != module:
                edges.setdefault(target, line)

        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    add(alias.name, node.lineno)
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, is_pkg, node.level, node.module)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    add(sub if sub in files else base, node.lineno)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle (a closed chain of modules, first == last) per strongly connected component with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def strongconnect(v: str) -> None:  # Tarjan, iterative (the graph has ~200 modules: recursion would do too)
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        while work:
            node, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        components.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return [_one_cycle(graph, comp) for comp in components]


def _one_cycle(graph: dict[str, dict[str, int]], component: list[str]) -> list[str]:
    """A shortest closed chain through the component's first module (breadth-first inside the component)."""
    start, members = component[0], set(component)
    parent: dict[str, str | None] = {start: None}
    queue = [start]
    for v in queue:
        for w in sorted(graph[v]):
            if w == start:
                chain = [v]
                while parent[chain[-1]] is not None:
                    chain.append(parent[chain[-1]])
                return [*reversed(chain), start]
            if w in members and w not in parent:
                parent[w] = v
                queue.append(w)
    raise AssertionError(f"no cycle through {start} in its component {component}")


def describe(cycle: list[str], graph: dict[str, dict[str, int]], files: dict[str, tuple[Path, bool]]) -> str:
    """``a (a.py:12) -> b (b.py:40) -> a``: each step with the file and line of its import."""
    steps = [f"{a} ({files[a][0].relative_to(ROOT)}:{graph[a][b]})" for a, b in zip(cycle, cycle[1:])]
    return " -> ".join(steps + [cycle[-1]])


class _ComputedImports(ast.NodeVisitor):
    """Calls of import_module / __import__ whose module name is not a string literal, with the innermost function."""

    def __init__(self, module: str):
        self.module, self.scope, self.found = module, ["<module>"], []

    def visit_FunctionDef(self, node) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        literal = bool(node.args) and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
        if name in ("import_module", "__import__") and not literal:
            self.found.append((self.module, self.scope[-1], node.lineno))
        self.generic_visit(node)


def computed_imports(files: dict[str, tuple[Path, bool]] | None = None) -> list[tuple[str, str, int]]:
    """(module, enclosing function or "<module>", line) of every import by a computed name."""
    files = source_files() if files is None else files
    found = []
    for module, (path, _) in files.items():
        visitor = _ComputedImports(module)
        visitor.visit(_parsed(path))
        found += visitor.found
    return found


# --- the tests --------------------------------------------------------------------------------


def test_the_graph_sees_every_folder_and_function_level_imports():
    files = source_files()
    graph = import_graph(files)
    assert {"crawlmath.cli", "crawlmath.derive.golden", "crawlmath.numeric.errors", "crawlmath.proofs.registry",
            "crawlmath.report.build", "crawlmath.numeric.bmap"} <= set(files)
    # crawlmath/commands/verify.py imports the registry inside run(): a function-level edge
    assert "crawlmath.proofs.registry" in graph["crawlmath.commands.verify"]
    # relative: proofs/runner.py's "from .registry import ..." resolves into crawlmath.proofs
    assert "crawlmath.proofs.registry" in graph["crawlmath.proofs.runner"]


def test_cycle_finder_names_a_planted_cycle(tmp_path):
    """The checker itself can fail: a two-module cycle hidden in a function, and one through a package __init__."""
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from ._a import A\n")
    (pkg / "_a.py").write_text("A = 1\ndef f():\n    from ._b import B\n    return B\n")
    (pkg / "_b.py").write_text("from . import A as B\n")  # a name of the package: runs p/__init__
    (pkg / "ok.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import _b\n")
    files = {"p": (pkg / "__init__.py", True), "p._a": (pkg / "_a.py", False), "p._b": (pkg / "_b.py", False),
             "p.ok": (pkg / "ok.py", False)}
    graph = import_graph(files)
    assert graph["p._a"] == {"p._b": 3} and graph["p._b"] == {"p": 1} and graph["p.ok"] == {}
    found = cycles(graph)
    assert found == [["p", "p._a", "p._b", "p"]]
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert describe(found[0], graph, files) == "p (p/__init__.py:1) -> p._a (p/_a.py:3) -> p._b (p/_b.py:1) -> p"
    finally:
        ROOT = saved


def test_no_import_cycles():
    files = source_files()
    graph = import_graph(files)
    found = cycles(graph)
    assert not found, "import cycles (module (file:line of its import) -> ...):\n" + "\n".join(
        describe(c, graph, files) for c in found)


def test_computed_imports_only_at_the_discovery_points():
    found = computed_imports()
    files = source_files()
    stray = [f"{m}.{fn} ({files[m][0].relative_to(ROOT)}:{line})" for m, fn, line in found if (m, fn) not in DISCOVERY]
    assert not stray, ("imports by computed name outside the documented discovery points (import the module "
                       "by name, or add a discovery point to DISCOVERY with its reason):\n" + "\n".join(stray))
    stale = sorted(set(DISCOVERY) - {(m, fn) for m, fn, _ in found})
    assert not stale, f"DISCOVERY lists points that import nothing by computed name any more: {stale}"
