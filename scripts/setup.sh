#!/usr/bin/env bash
# Installs everything Concord's commands and tests need, from the OS package
# manager and rustup only. Idempotent: a second run installs nothing.
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

if [ ${#missing_pkgs[@]} -eq 0 ] && [ ${#missing_components[@]} -eq 0 ]; then
    echo "setup: everything is installed ($(verilator --version | head -n1), $(yosys -V | head -n1))"
    exit 0
fi

if [ $check_only -eq 1 ]; then
    echo "setup: missing: ${missing_pkgs[*]} ${missing_components[*]} (run scripts/setup.sh)" >&2
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

echo "setup: done ($(verilator --version | head -n1), $(yosys -V | head -n1))"
