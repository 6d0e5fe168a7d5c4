#!/usr/bin/env bash
# Prints the path of a Python 3.13 interpreter on stdout, finding or building one; says what it does
# on stderr. The Makefile creates .venv/ with it. In this order:
#
#   1. $PYTHON, if set (it must be a Python 3.13);
#   2. python3.13 on PATH, if it runs (a pyenv shim of a version that is not selected does not);
#   3. a pyenv Python 3.13, selected or not: $(pyenv root)/versions/3.13*/bin/python3.13, the newest
#      that runs ($PYENV_ROOT, else ~/.pyenv, when pyenv itself is not on PATH);
#   4. `uv python find 3.13`, if uv is installed;
#   5. `uv python install 3.13`, if uv is installed (at most $KIBITZ_UV_TIMEOUT s, default 60: it
#      downloads a build from a host that some networks cannot reach);
#   6. a build of CPython 3.13 from Debian's source package (the upstream tarball, as Debian ships it
#      for trixie; fetched and verified by apt with a sources list of its own, so the machine's apt
#      set-up is not touched), once, into $KIBITZ_CACHE/python-3.13 (default ~/.cache/kibitz), outside
#      the repository. Debian and Ubuntu only: it installs the -dev packages the build needs with
#      apt-get (as root, or with sudo if that needs no password). The build's time is printed and
#      kept in python-3.13/BUILD-INFO.
#
# KIBITZ_PYTHON_PGO=1 builds with --enable-optimizations --with-lto (profile-guided: much slower to
# build; docs/python313.md says what it is worth here).
set -euo pipefail

VERSION=3.13
CACHE=${KIBITZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kibitz}
PREFIX=$CACHE/python-$VERSION
say() { echo "python$VERSION: $*" >&2; }

is313() {  # runs, and is CPython 3.13
    "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13) or sys.implementation.name != "cpython")' \
        >/dev/null 2>&1
}

found() { say "using $1"; echo "$1"; exit 0; }

# 1. PYTHON=...
if [ -n "${PYTHON:-}" ]; then
    if is313 "$PYTHON"; then found "$(command -v "$PYTHON")"; fi
    say "PYTHON=$PYTHON is not a Python $VERSION that runs"; exit 1
fi

# 2. python3.13 on PATH (every one of them: a pyenv shim may come first and fail)
while read -r candidate; do
    if [ -n "$candidate" ] && is313 "$candidate"; then found "$candidate"; fi
done < <(type -ap python$VERSION 2>/dev/null || true)

# 3. pyenv's versions, whichever is selected: `pyenv root` (which honours PYENV_ROOT), else PYENV_ROOT or
# ~/.pyenv when that folder exists without pyenv on PATH. Newest first (3.13.10 before 3.13.9).
if ! { command -v pyenv >/dev/null 2>&1 && pyenv_root=$(pyenv root 2>/dev/null); }; then
    pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
fi
if [ -n "$pyenv_root" ] && [ -d "$pyenv_root/versions" ]; then
    while read -r candidate; do
        if [ -n "$candidate" ] && is313 "$candidate"; then found "$candidate"; fi
    done < <(shopt -s nullglob; for c in "$pyenv_root"/versions/$VERSION*/bin/python$VERSION; do echo "$c"; done \
             | sort -rV)
fi

# Our own build, from an earlier run.
if [ -f "$PREFIX/.complete" ] && is313 "$PREFIX/bin/python$VERSION"; then found "$PREFIX/bin/python$VERSION"; fi

# 4, 5. uv
if command -v uv >/dev/null 2>&1; then
    if py=$(UV_PYTHON_DOWNLOADS=never uv python find --system "$VERSION" 2>/dev/null) && is313 "$py"; then found "$py"; fi
    say "uv python install $VERSION (at most ${KIBITZ_UV_TIMEOUT:-60} s)"
    if timeout "${KIBITZ_UV_TIMEOUT:-60}" uv python install "$VERSION" >&2 \
        && py=$(UV_PYTHON_DOWNLOADS=never uv python find --system "$VERSION") && is313 "$py"; then
        found "$py"
    fi
    say "uv could not install Python $VERSION"
fi

# 6. Build it from Debian's source package.
if ! command -v apt-get >/dev/null 2>&1; then
    say "no Python $VERSION found, and building one needs apt (Debian, Ubuntu). Install one (docs/python313.md:" \
        "uv, Homebrew, deadsnakes, pyenv) or pass PYTHON=/path/to/python$VERSION"
    exit 1
fi
if [ "$(id -u)" = 0 ]; then SUDO=(); elif sudo -n true 2>/dev/null; then SUDO=(sudo -n); else SUDO=(false); fi

mkdir -p "$CACHE"
exec 9>"$CACHE/python-$VERSION.lock"
flock 9  # another make may be building it: wait, then use its build
if [ -f "$PREFIX/.complete" ] && is313 "$PREFIX/bin/python$VERSION"; then found "$PREFIX/bin/python$VERSION"; fi

started=$(date +%s)
say "no Python $VERSION found: building CPython $VERSION from Debian's source package into $PREFIX (once)"

# The -dev packages of the modules a project needs (ssl, sqlite3, ctypes, lzma, bz2, zlib, readline,
# curses, dbm, uuid, pyexpat); tkinter is left out. Installed from the machine's own release.
PACKAGES=(build-essential pkg-config libssl-dev zlib1g-dev libbz2-dev libreadline-dev libsqlite3-dev libffi-dev
          liblzma-dev uuid-dev libgdbm-dev libncurses-dev libexpat1-dev xz-utils)
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    if ! { "${SUDO[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
           "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$CACHE/packages.log" 2>&1
    then
        tail -20 "$CACHE/packages.log" >&2
        say "could not install ${missing[*]}: install them (apt-get install ...) and run make again"; exit 1
    fi
fi

# Where the machine's apt finds Debian (its mirror), from its own configuration.
debian_uri() {  # $1: the Release file's Label (Debian, Debian-Security)
    apt-get indextargets --format '$(LABEL) $(REPO_URI)' 2>/dev/null | awk -v l="$1" '$1 == l {print $2; exit}'
}
mirror=${KIBITZ_DEBIAN_MIRROR:-$(debian_uri Debian)}
security=${KIBITZ_DEBIAN_SECURITY_MIRROR:-$(debian_uri Debian-Security)}
if [ -z "$mirror" ]; then
    say "apt knows no Debian mirror here (an Ubuntu machine?): install Python $VERSION another way" \
        "(docs/python313.md), or set KIBITZ_DEBIAN_MIRROR to a Debian mirror's URL"
    exit 1
fi

# apt with a sources list, lists and cache of its own, under the cache: only trixie's deb-src.
APT=$CACHE/apt
rm -rf "$APT" "$CACHE/src"
mkdir -p "$APT/sources.list.d" "$APT/lists/partial" "$APT/archives/partial" "$CACHE/src"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
{
    printf 'Types: deb-src\nURIs: %s\nSuites: trixie trixie-updates\nComponents: main\nSigned-By: %s\n' \
        "$mirror" "$KEYRING"
    if [ -n "$security" ]; then
        printf '\nTypes: deb-src\nURIs: %s\nSuites: trixie-security\nComponents: main\nSigned-By: %s\n' \
            "$security" "$KEYRING"
    fi
} >"$APT/sources.list.d/trixie-src.sources"
apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$APT/sources.list.d"
          -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
          -o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1)
[ "$(id -u)" = 0 ] && apt_opts+=(-o APT::Sandbox::User=root)
if ! { apt-get "${apt_opts[@]}" update -qq && \
       (cd "$CACHE/src" && apt-get "${apt_opts[@]}" source --download-only -qq python$VERSION); } >&2; then
    say "could not fetch python$VERSION's source package from trixie at $mirror: install Python $VERSION" \
        "another way (docs/python313.md), or set KIBITZ_DEBIAN_MIRROR to a Debian mirror's URL"
    exit 1
fi
tarball=$(ls "$CACHE"/src/python"$VERSION"_*.orig.tar.xz)
say "building $(basename "$tarball") (upstream CPython; Debian's own patches are not applied)"
mkdir -p "$CACHE/src/build"
tar -xJf "$tarball" -C "$CACHE/src/build" --strip-components=1

configure=(--prefix="$PREFIX" --with-ensurepip=install)
if [ "${KIBITZ_PYTHON_PGO:-0}" = 1 ]; then
    configure+=(--enable-optimizations --with-lto)  # its profiling run needs the test modules
else
    configure+=(--disable-test-modules)  # neither built nor installed (compiling them all takes a while)
fi
rm -rf "$PREFIX"
(
    cd "$CACHE/src/build"
    ./configure -q "${configure[@]}"
    make -s -j "$(nproc)"
    make -s altinstall
) >"$CACHE/python-$VERSION-build.log" 2>&1 || {
    tail -40 "$CACHE/python-$VERSION-build.log" >&2
    say "the build failed; its log: $CACHE/python-$VERSION-build.log"; exit 1
}
py=$PREFIX/bin/python$VERSION
"$py" -c 'import ssl, sqlite3, ctypes, lzma, bz2, zlib, readline, uuid, pyexpat, venv, ensurepip' || {
    say "the build lacks a module the project needs; its log: $CACHE/python-$VERSION-build.log"; exit 1
}
seconds=$(( $(date +%s) - started ))
rm -rf "$CACHE/src" "$APT"
printf 'CPython %s from %s, configured with: %s\nbuilt in %d s on %s (%s cores)\n' \
    "$("$py" -c 'import platform; print(platform.python_version())')" "$(basename "$tarball")" \
    "${configure[*]}" "$seconds" "$(date -u +%FT%TZ)" "$(nproc)" >"$PREFIX/BUILD-INFO"
touch "$PREFIX/.complete"
say "built $("$py" -V 2>&1) in $((seconds / 60)) min $((seconds % 60)) s ($PREFIX/BUILD-INFO)"
found "$py"
