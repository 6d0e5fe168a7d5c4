""".ci/python313.sh finds a pyenv Python 3.13 that is installed but not selected, before building one.

Each test runs the script with a fake pyenv root and a PATH that holds no python3.13, no uv, no pyenv
(unless the test puts a fake one there) and no apt-get: so it never builds anything, and fails at once
when it finds nothing. Offline, well under a second a test.
"""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "python313.sh"
BASH = shutil.which("bash")


def real_python313():
    if sys.version_info[:2] == (3, 13):
        return sys.executable
    for candidate in ("/root/.pyenv/versions/3.13.0/bin/python3.13", shutil.which("python3.13")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.skip("no Python 3.13 here to stand behind the fake pyenv versions")


def executable(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def version(root, name, runs=True):
    """root/versions/<name>/bin/python3.13: a wrapper of a real 3.13, or one that does not run."""
    body = f'exec "{real_python313()}" "$@"\n' if runs else "exit 1\n"
    return executable(root / "versions" / name / "bin" / "python3.13", "#!/bin/sh\n" + body)


@pytest.fixture
def run(tmp_path):
    bin_dir = tmp_path / "bin"  # the script needs only sort from outside bash before it gives up
    bin_dir.mkdir()
    (bin_dir / "sort").symlink_to(shutil.which("sort"))
    home = tmp_path / "home"
    home.mkdir()

    def run(**env):
        env = {"PATH": str(bin_dir), "HOME": str(home), "KIBITZ_CACHE": str(tmp_path / "cache"), **env}
        return subprocess.run([BASH, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)

    run.bin_dir, run.home = bin_dir, home
    return run


def test_a_pyenv_version_that_is_not_selected_is_found(run, tmp_path):
    root = tmp_path / "pyenv"
    python = version(root, "3.13.2")
    r = run(PYENV_ROOT=str(root))
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{python}\n"


def test_the_newest_that_runs_wins_and_one_that_does_not_run_is_skipped(run, tmp_path):
    root = tmp_path / "pyenv"
    version(root, "3.13.9")
    newest_that_runs = version(root, "3.13.10")  # newer than 3.13.9: versions sort as numbers, not text
    version(root, "3.13.11", runs=False)
    r = run(PYENV_ROOT=str(root))
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{newest_that_runs}\n"


def test_home_pyenv_without_pyenv_on_path(run):
    python = version(run.home / ".pyenv", "3.13.0")
    r = run()
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{python}\n"


def test_pyenv_root_is_asked_when_pyenv_is_on_path(run, tmp_path):
    root = tmp_path / "elsewhere"
    python = version(root, "3.13.1")
    executable(run.bin_dir / "pyenv", f'#!/bin/sh\n[ "$1" = root ] && echo "{root}"\n')
    r = run()
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{python}\n"


def test_nothing_that_runs_is_nothing_found(run, tmp_path):
    root = tmp_path / "pyenv"
    version(root, "3.13.3", runs=False)
    r = run(PYENV_ROOT=str(root))
    assert r.returncode != 0
    assert r.stdout == ""
    assert "no Python 3.13 found" in r.stderr
