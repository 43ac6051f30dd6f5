#!/usr/bin/env bash
# The test suite: what a newcomer runs and what CI runs.
#
#   scripts/test.sh           # CI tier: setup, tests, clippy, fmt
#   scripts/test.sh --full    # also the large random tiers (release build)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo test --workspace --release
cargo clippy --workspace --all-targets --release -- -D warnings
cargo fmt --all --check
if [ "${1:-}" = "--full" ]; then
    CONCORD_TIER=full cargo test --workspace --release -- --include-ignored
fi
