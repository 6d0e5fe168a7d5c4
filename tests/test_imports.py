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


# Inside kibitz/ (issue 67): the command line above the clients, the clients above the local stack. The clients may
# run the stack in this process (a review or a live view without a URL); the stack knows nothing of them.
KIBITZ_LAYERS = ["kibitz.local", "kibitz.clients", "kibitz.cli"]


def test_kibitz_local_stack_never_imports_its_clients_or_the_command_line():
    graph = import_graph(["kibitz"])
    wrong = {}
    for i, layer in enumerate(KIBITZ_LAYERS):
        above = KIBITZ_LAYERS[i + 1:]
        for module, edges in graph.items():
            if module == layer or module.startswith(layer + "."):
                bad = sorted(e for e in edges if any(e == a or e.startswith(a + ".") for a in above))
                if bad:
                    wrong[module] = bad
    assert wrong == {}
    assert {m.split(".")[1] for m in graph if m.count(".")} == {"local", "clients", "cli"}, "a module outside them"


def test_training_reads_no_file_of_the_tests():
    """training/'s data (the opening book) is in training/data, not tests/data."""
    assert not [str(path.relative_to(ROOT)) for path in sorted((ROOT / "training").rglob("*.py"))
                if '"tests"' in path.read_text() or "tests/" in path.read_text()]


def test_only_the_tests_read_tests_data():
    """Reads run downhill as imports do (issue 67): the suites both the benchmarks and the tests read (WAC, STS, the
    books) are in benchmarks/data, and nothing below tests/ names tests/data."""
    paths = [path for package in LAYERS[:-1] for path in sorted((ROOT / package).rglob("*.py"))]
    assert not [str(path.relative_to(ROOT)) for path in paths
                if "tests/data" in path.read_text() or '"tests" / "data"' in path.read_text()]


def module_name(path, root=ROOT):
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(packages, root=ROOT):
    """{module: {modules it imports, at the top or inside a function}} over the project's packages. An import of
    a package the module is inside is no edge: Python runs that __init__ first whatever the module imports
    (engine/__init__.py is a facade that imports its submodules when called)."""
    modules = {module_name(p, root): p for pkg in packages for p in (root / pkg).rglob("*.py")
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


def test_a_circle_put_back_into_a_package_fails_the_import_test(tmp_path):
    """The same check over a tiny package on disk: a circle held open by a function-local import (as job_store and
    s3_jobs were, issue 67) is found, and so is one between a package's modules at the top."""
    pkg = tmp_path / "pkg"
    (pkg / "jobs").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "jobs" / "__init__.py").write_text("")
    (pkg / "jobs" / "store.py").write_text("def job():\n    from pkg.jobs import s3\n    return s3\n")
    (pkg / "jobs" / "s3.py").write_text("from pkg.jobs.store import job\n")
    (pkg / "aws.py").write_text("import json\n")
    assert circles(import_graph(["pkg"], tmp_path)) == [["pkg.jobs.s3", "pkg.jobs.store"]]
    (pkg / "jobs" / "store.py").write_text("from pkg import aws\n")  # the circle broken: imports run one way
    assert circles(import_graph(["pkg"], tmp_path)) == []
    (pkg / "aws.py").write_text("from .jobs import s3\n")  # a relative import closing a longer one
    assert circles(import_graph(["pkg"], tmp_path)) == [["pkg.aws", "pkg.jobs.s3", "pkg.jobs.store"]]


# A function-local import is a circle or an import order held open, unless it is one of these (issue 67):
# - an optional dependency (pyproject's extras: the runtime needs only numpy), imported where it is used;
OPTIONAL = {"boto3", "botocore", "zstandard", "numba", "websockets", "ziglang", "moto", "tqdm", "pydantic",
            "hypothesis", "requests", "schemathesis", "playwright", "chess", "aws_lambda_powertools", "yaml", "flask",
            "flask_cors", "torch", "setuptools"}
# - a command line's lazy imports: a subcommand's code, imported when it runs (`--help` and the cheap commands
#   stay quick); the benchmarks are all scripts.
CLIS = {"engine/uci.py", "engine/build.py", "kibitz/cli.py", "training/__main__.py"}
# - these modules' own reasons.
LOCAL_IMPORTS = {
    "engine/__init__.py": "the facade imports its submodules when called: `import engine` stays cheap",
    "engine/bench.py": "engine.analyse behind the bench positions, which the tests read without a search",
    "engine/cache_key.py": "the version, profiles and bench signature, read once for the key's salt",
    "engine/coached.py": "the search and SAN only when a coached answer is asked for",
    "engine/deepening.py": "the tablebases, loaded only when a search probes them",
    "engine/fen.py": "random, for the one Chess960 draw",
    "engine/native.py": "the compiled module or the numba fallback: which one is the choice this module makes",
    "engine/openings.py": "the board, only to replay a book line",
    "engine/pgn.py": "the board, FEN and SAN readers, only when a game is read or written",
    "engine/review.py": "the board and the coach, only when a review runs",
    "engine/puzzles.py": "the search, board and SAN, only when a finished review's puzzles are searched",
    "engine/tablebase.py": "SAN and the result types, only when a probe is answered",
    "functions/analyze/app.py": "only /swagger documents the jobs routes: off AnalyzeFunction's cold start",
    "functions/common/api/models.py": "the board and SAN (the compiled engine) only when an answer is made: importing "
                                      "the models, as clients and JobsFunction's validation do, loads no compiled "
                                      "engine (tests/test_api.py)",
    "kibitz/clients/batch.py": "every `kibitz` verb's parser imports it (its arguments): the functions' models and "
                               "readers (pydantic, the engine's numpy) only when a batch is submitted or read",
    "training/export.py": "the features, only for --check",
    "training/gen.py": "the engine and self-play in each worker process, after its spawn",
    "training/store.py": "the board and the compiled module, only to replay or verify a chunk",
    "training/wdl.py": "the engine's board, PGN reader and WDL model, only for the fits that read games",
}


def local_imports(path):
    """The top-level names a module imports inside its functions."""
    names = set()
    for fn in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    names |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom):
                    names.add("." if node.level else node.module.split(".")[0])
    return names


def test_function_local_imports_are_optional_dependencies_or_have_a_reason():
    late = {}
    for package in LAYERS[:-2]:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            if "static" in path.parts or package == "benchmarks" or name in CLIS or name in LOCAL_IMPORTS:
                continue
            if local_imports(path) - OPTIONAL:
                late[name] = sorted(local_imports(path) - OPTIONAL)
    assert late == {}, "import these at the top, or give the module its reason in LOCAL_IMPORTS"
    assert all((ROOT / name).exists() for name in [*LOCAL_IMPORTS, *CLIS]), "a module listed here is gone"
    stale = [name for name in LOCAL_IMPORTS if not local_imports(ROOT / name) - OPTIONAL]
    assert stale == [], "these import everything at the top now: take them off LOCAL_IMPORTS"


def test_the_local_import_check_sees_one(tmp_path):
    (tmp_path / "m.py").write_text("import boto3\n\ndef f():\n    import zstandard\n    from engine import pgn\n")
    assert local_imports(tmp_path / "m.py") - OPTIONAL == {"engine"}
