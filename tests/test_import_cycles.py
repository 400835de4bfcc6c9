"""No import cycles among the project's packages (``scripts/check_import_cycles.py``), and the
checker itself finds a cycle where there is one, lazy imports included."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _checker():
    spec = importlib.util.spec_from_file_location("check_import_cycles", ROOT / "scripts" / "check_import_cycles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_packages_import_each_other_in_one_direction():
    check = _checker()
    modules = check.module_files(check.PACKAGES)
    assert "engine.cups.game" in modules and "companion.cli" in modules  # the real tree is read
    graph = check.edges(modules)
    found = check.cycles(graph)
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(group) for group in found)


def test_the_checker_finds_a_cycle_through_a_lazy_import(tmp_path):
    check = _checker()
    files = {
        "pkg": "from . import a\n",
        "pkg.a": "from .b import thing\n",
        "pkg.b": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\nthing = 1\n"
                 "def later():\n    from .a import x\n",
        "pkg.c": "from .a import y\n",
    }
    modules = {}
    for name, source in files.items():
        path = tmp_path / (name.replace(".", "/") + ("/__init__.py" if name == "pkg" else ".py"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        modules[name] = path
    graph = check.edges(modules)
    assert graph["pkg.b"] == {"pkg.a": 6}  # the lazy import counts, the TYPE_CHECKING one does not
    assert check.cycles(graph) == [["pkg.a", "pkg.b"]]
