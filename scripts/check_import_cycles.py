"""Find import cycles among the project's modules by reading their source (no module is run).

Every ``import``/``from ... import`` counts, those inside functions included, except those under
``if TYPE_CHECKING:`` (annotations only: they never run).  ``from package import name`` counts
as an import of ``package.name`` when that is a module, else of ``package``.  Importing
``a.b.c`` also runs the packages ``a`` and ``a.b``; those implicit parent imports are left out
(a package's ``__init__`` importing its own submodules would otherwise always form a cycle).

    python scripts/check_import_cycles.py [PACKAGE ...]   (default: every top-level package)

Prints each cycle (a strongly connected group of modules, with one import line per edge) and
exits with 1 when there is any."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "companion", "vision", "calibration", "hardware")


def module_files(packages: tuple[str, ...]) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` file under the given packages."""
    out = {}
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """The import nodes of ``tree`` that run (not under ``if TYPE_CHECKING:``)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def edges(modules: dict[str, Path]) -> dict[str, dict[str, int]]:
    """module -> {imported project module: line of the first such import}."""
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        here = name.split(".") if is_package else name.split(".")[:-1]
        found: dict[str, int] = {}
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    up = here[: len(here) - (node.level - 1)] if node.level > 1 else here
                    base = ".".join([*up, *([base] if base else [])])
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            for target in targets:
                while target and target not in modules:  # ``import a.b.c`` of a name inside a module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    found.setdefault(target, node.lineno)
        graph[name] = found
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def main(argv: list[str]) -> int:
    """Print the cycles; 1 when there is any."""
    packages = tuple(argv) or PACKAGES
    modules = module_files(packages)
    graph = edges(modules)
    found = cycles(graph)
    print(f"{len(modules)} modules, {sum(len(e) for e in graph.values())} imports between them, "
          f"{len(found)} cycle(s)")
    for group in found:
        print("cycle:", " <-> ".join(group))
        members = set(group)
        for v in group:
            for w, line in sorted(graph[v].items()):
                if w in members:
                    print(f"    {modules[v].relative_to(ROOT)}:{line} imports {w}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
