"""Imports run downhill: engine/ is the library at the bottom; functions/ adapts it to Lambda; kibitz/
runs the functions locally and talks to the API; training/ may use all three; benchmarks/ may use
training/ too; tests/ may use everything. Nothing imports a package above it (issue 31), and the
library, the functions, training and the benchmarks reach nothing by putting a folder on sys.path (a
benchmark runs as `python -m benchmarks.x` from the root; kibitz's runtime puts a function's CodeUri
there, as Lambda does /var/task, and so do the drivers that benchmarks/api.py and artifact.py run in a
built artifact's own interpreter, which assign sys.path rather than insert).)"""

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


# Not a way to find the project's own code: the reason each of these changes sys.path.
SYS_PATH_ON_PURPOSE = {
    # compare() chdirs into another checkout to run its pollers: '' on sys.path would then find that tree's
    # modules for this process's later imports, so this tree's root goes first (issue 69).
    "benchmarks/s3_batch.py",
}


@pytest.mark.parametrize("package", ["engine", "functions", "training", "benchmarks"])
def test_no_sys_path_hacks(package):
    assert not [str(path.relative_to(ROOT)) for path in sorted((ROOT / package).rglob("*.py"))
                if ("sys.path.insert" in path.read_text() or "sys.path.append" in path.read_text())
                and str(path.relative_to(ROOT)) not in SYS_PATH_ON_PURPOSE]


def test_training_reads_no_file_of_the_tests():
    """training/'s data (the opening book) is in training/data, not tests/data."""
    assert not [str(path.relative_to(ROOT)) for path in sorted((ROOT / "training").rglob("*.py"))
                if '"tests"' in path.read_text() or "tests/" in path.read_text()]


def module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(packages):
    """{module: {modules it imports, at the top or inside a function}} over the project's packages. An import of
    a package the module is inside is no edge: Python runs that __init__ first whatever the module imports
    (engine/__init__.py is a facade that imports its submodules when called)."""
    modules = {module_name(p): p for pkg in packages for p in (ROOT / pkg).rglob("*.py")
               if not {"static", "__pycache__"} & set(p.parts)}

    def resolve(name):
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                edges |= {resolve(alias.name) for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
                edges |= {resolve(f"{base}.{alias.name}") or resolve(base) for alias in node.names}
        graph[name] = {e for e in edges if e and e != name and not name.startswith(e + ".")}
    return graph


def circles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle_anywhere():
    """No circle of imports inside or between the packages, function-local imports counted (issue 67: job_store
    and s3_jobs, s3_submit and job_submit went round through imports held open inside functions)."""
    assert circles(import_graph(LAYERS[:-1])) == []


def test_the_circle_finder_sees_a_circle():
    assert circles({"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "a.w": {"a.x"}}) == [["a.x", "a.y", "a.z"]]
    assert circles({"a": set(), "a.x": set()}) == []


# A function-local import inside functions/ of functions/ itself hides a circle or an order; these keep a
# module off the cold start of a function that does not need it.
LAZY_ON_PURPOSE = {("functions/analyze/app.py", "functions.common.jobs.routes")}  # only /swagger documents them


def test_functions_import_their_own_code_at_the_top():
    late = set()
    for path in sorted((ROOT / "functions").rglob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module.startswith("functions"):
                        late.add((str(path.relative_to(ROOT)), node.module))
    assert late == LAZY_ON_PURPOSE
