"""Imports run downhill: engine/ is the library at the bottom; functions/ adapts it to Lambda; kibitz/
runs the functions locally and talks to the API; training/ may use all three; benchmarks/ may use
training/ too; tests/ may use everything. Nothing imports a package above it (issue 31), and the
library, the functions and training reach nothing by putting a folder on sys.path. (A benchmark run as
a script, `python benchmarks/x.py`, puts the project's root there to find benchmarks/ itself; kibitz's
runtime puts a function's CodeUri there, as Lambda does /var/task.)"""

import ast

import pytest

from tests.conftest import ROOT

LAYERS = ["engine", "functions", "kibitz", "training", "benchmarks", "tests"]
# What each package may not import (those above it): functions/ never imports kibitz/, which runs it.
FORBIDDEN = {name: set(LAYERS[i + 1:]) for i, name in enumerate(LAYERS)}


def imported_packages(path):
    """The top-level packages a module imports, anywhere in it (inside functions too)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", LAYERS[:-1])
def test_no_package_imports_one_above_it(package):
    wrong = {str(path.relative_to(ROOT)): sorted(imported_packages(path) & FORBIDDEN[package])
             for path in sorted((ROOT / package).rglob("*.py"))}
    assert not {path: names for path, names in wrong.items() if names}


@pytest.mark.parametrize("package", ["engine", "functions", "training"])
def test_no_sys_path_hacks(package):
    assert not [str(path.relative_to(ROOT)) for path in sorted((ROOT / package).rglob("*.py"))
                if "sys.path.insert" in path.read_text() or "sys.path.append" in path.read_text()]


def test_training_reads_no_file_of_the_tests():
    """training/'s data (the opening book) is in training/data, not tests/data."""
    assert not [str(path.relative_to(ROOT)) for path in sorted((ROOT / "training").rglob("*.py"))
                if '"tests"' in path.read_text() or "tests/" in path.read_text()]
