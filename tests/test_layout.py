"""The layout rules of the package: imports run one way, no package reads
another's private modules, modules stay small, docs use public names."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "optalloc"
MAX_LINES = 650


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(path: Path) -> list[tuple[int, str]]:
    """Absolute names of every module imported by ``path`` (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.append((node.lineno, mod))
            out += [(node.lineno, f"{mod}.{a.name}") for a in node.names]
    return out


def test_import_contracts_hold():
    importlinter = pytest.importorskip("importlinter.cli", reason="import-linter is a test dependency")
    assert importlinter.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_logo=True) == 0


def _room_of(parts: list[str]) -> list[str]:
    """The deepest package (a folder with an ``__init__``) among the prefixes of a dotted name."""
    for n in range(len(parts), 0, -1):
        if (ROOT.joinpath(*parts[:n]) / "__init__.py").is_file():
            return parts[:n]
    return parts[:1]


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def test_no_package_or_room_imports_another_ones_private_names():
    # packages (ksubset, sim, ...) and, inside them, their rooms (ksubset/engine, sim/sweep, qap/large, ...)
    # reach each other through their __init__: a module may use the private modules and names of its own
    # room and of the packages that hold it (optalloc/_jit, ksubset/_common), never those of another
    bad = []
    for path in _modules():
        own = list(path.parent.relative_to(ROOT).parts)
        for lineno, name in _imported(path):
            parts = name.split(".")
            room = _room_of(parts)
            if parts[0] != "optalloc" or own[: len(room)] == room:
                continue
            shared = next((n for n, (a, b) in enumerate(zip(own, parts, strict=False)) if a != b), len(own))
            if any(_private(p) for p in parts[shared:]):
                bad.append(f"{path.relative_to(ROOT)}:{lineno}: {name}")
    assert not bad, "private modules or names of another package or room imported:\n" + "\n".join(bad)


def test_no_module_is_over_the_size_limit():
    big = [(str(p.relative_to(ROOT)), n) for p in _modules()
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not big, f"modules over {MAX_LINES} lines: {big}"


def test_docs_use_public_names():
    private = re.compile(r"optalloc(?:\.[a-z0-9]+)*\._[a-z]\w*")
    bad = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for lineno, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            if private.search(line):
                bad.append(f"{doc.relative_to(ROOT)}:{lineno}: {line.strip()}")
    assert not bad, "docs name private modules:\n" + "\n".join(bad)


def test_the_design_cards_top_level_folders_hold_the_models_and_instances():
    # models/ and instances/ sit at the top of the tree, as the design card fixes, and are the
    # folders the wheel installs as optalloc.models and optalloc/instances
    for name in ("models", "instances"):
        top = ROOT / name
        assert top.is_dir(), f"{name}/ is missing at the top of the tree"
        assert top.samefile(PACKAGE / name), f"{name}/ is not the folder installed as optalloc.{name}"
    assert (ROOT / "models" / "pairwise.py").is_file()


def test_every_room_holds_at_most_fifteen_modules():
    # a package folder past about 15 modules gets sub-packages by role
    crowded = {}
    for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir() and "__pycache__" not in p.parts)]:
        n = sum(1 for p in folder.glob("*.py") if p.name != "__init__.py")
        if n > 15:
            crowded[str(folder.relative_to(ROOT))] = n
    assert not crowded, f"folders over 15 modules: {crowded}"
