#!/usr/bin/env python3
"""Unit-delay walk over a flat ECP5 netlist from Yosys's `write_json`
(the `<top>-ecp5.json` that `concord synth-report --pnr ... --pnr-dir D`
leaves in D).

nextpnr's estimate says how fast, not where: after `--no-route` it prints
no path. This ranks register-to-register paths with a crude, fixed delay
model, enough to choose the next cut between two placements (on the
default core at d0fab87 it finds 28.9 ns where nextpnr's placement says
37.3, 26.81 MHz; the ranking, not the figure, is what it is for):

  clock-to-out 0.5 ns (FF, and DP16KD/MULT18X18D outputs taken as
  registered), LUT4 / LUT-RAM read 0.45 ns, PFUMX / L6MUX21 0.2 ns,
  CCU2C 0.45 ns into the chain and 0.1 ns per cell along it,
  0.9 ns per net between slices, none inside one (LUT4 -> PFUMX ->
  L6MUX21, COUT -> CIN).

Usage: udwalk.py NETLIST.json [-n 20] [--path K] [--grep SUBSTR]
  prints the N slowest endpoints (one per cell name without its bit
  suffix), then the whole path of the K first of them (arrival, cell
  type, cell name; the names are `autoname`'s, after a net nearby).
       udwalk.py NETLIST.json --net SUBSTR
  prints the arrival at each net whose name contains SUBSTR (a net that
  survives synthesis under its name: a register output, a kept wire, or
  a name `autoname` gave); with --path 1 and the exact name, its path.
"""
import argparse, json, re, sys
from collections import defaultdict

LUT, MUX, CH_IN, CH_STEP, NET, CQ = 0.45, 0.2, 0.45, 0.1, 0.9, 0.5
SOURCES = {"DP16KD", "MULT18X18D", "ALU54B", "TRELLIS_FF"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("--path", type=int, default=3, help="print the whole path of the K slowest")
    ap.add_argument("--grep", default=None, help="only endpoints whose cell name contains this")
    ap.add_argument("--net", default=None, help="print the arrival at each net whose name contains this, and stop")
    a = ap.parse_args()
    d = json.load(open(a.json))
    top = [m for m, v in d["modules"].items() if v.get("attributes", {}).get("top")]
    mod = d["modules"][top[0]] if top else max(d["modules"].values(), key=lambda m: len(m.get("cells", {})))
    cells = mod["cells"]
    driver = {}  # net bit -> (cell, port)
    sinks = defaultdict(list)
    for cn, c in cells.items():
        dirs = c.get("port_directions", {})
        for p, bits in c["connections"].items():
            for b in bits:
                if isinstance(b, str):
                    continue
                if dirs.get(p) == "output":
                    driver[b] = (cn, p)
                else:
                    sinks[b].append((cn, p))

    def net_delay(src, dst_cell, dst_port):
        if src is None:
            return 0.0
        sc, sp = src
        st, dt = cells[sc]["type"], cells[dst_cell]["type"]
        if st == "CCU2C" and sp == "COUT" and dst_port == "CIN":
            return 0.0
        if st == "LUT4" and dt == "PFUMX" and dst_port in ("ALUT", "BLUT"):
            return 0.0
        if st == "PFUMX" and dt == "L6MUX21" and dst_port in ("D0", "D1"):
            return 0.0
        return NET

    memo = {}  # (cell, out port) -> (arrival, pred (cell, in port, bit))

    def inputs_of(cn):
        c = cells[cn]
        dirs = c.get("port_directions", {})
        for p, bits in c["connections"].items():
            if dirs.get(p) != "output":
                for b in bits:
                    if not isinstance(b, str):
                        yield p, b

    sys.setrecursionlimit(100000)

    def arr_bit(b):
        """Arrival at the net bit b, at the driver's output."""
        src = driver.get(b)
        if src is None:
            return 0.0, None
        return arr_out(*src)

    def arr_out(cn, port):
        key = (cn, port)
        if key in memo:
            r = memo[key]
            if r is None:
                raise RuntimeError("combinational loop at %s" % cn)
            return r
        memo[key] = None
        c = cells[cn]
        t = c["type"]
        if t in SOURCES:
            r = (CQ, None)
        else:
            best = (0.0, None)
            for p, b in inputs_of(cn):
                if t == "TRELLIS_DPR16X4" and p != "RAD":
                    continue  # the write side ends at the RAM (an endpoint)
                av, _ = arr_bit(b)
                av += net_delay(driver.get(b), cn, p)
                if t == "CCU2C":
                    av += CH_STEP if p == "CIN" else CH_IN
                elif t in ("PFUMX", "L6MUX21"):
                    av += MUX
                else:
                    av += LUT
                if av > best[0]:
                    best = (av, (p, b))
            r = best
        memo[key] = r
        return r

    def trace(b):
        chain = []
        while True:
            src = driver.get(b)
            if src is None:
                break
            sc, sp = src
            at, pred = arr_out(sc, sp)
            chain.append((at, cells[sc]["type"], sc, sp))
            if pred is None:
                break
            b = pred[1]
        for at, t, n, sp in reversed(chain):
            print("  %6.2f  %-16s %s.%s" % (at, t, n, sp))

    if a.net:
        for name, n in sorted(mod["netnames"].items()):
            if a.net in name:
                arr = [arr_bit(b)[0] for b in n["bits"] if not isinstance(b, str)]
                if arr:
                    print("%6.2f ns  %s" % (max(arr), name))
                    if a.path and name == a.net:
                        b = max((x for x in n["bits"] if not isinstance(x, str)), key=lambda x: arr_bit(x)[0])
                        trace(b)
        return

    ends = []
    for cn, c in cells.items():
        t = c["type"]
        if t not in SOURCES and t != "TRELLIS_DPR16X4":
            continue
        for p, b in inputs_of(cn):
            if t in ("TRELLIS_FF",) and p in ("CLK",):
                continue
            if t == "TRELLIS_DPR16X4" and p in ("RAD",):
                continue
            av, _ = arr_bit(b)
            av += net_delay(driver.get(b), cn, p)
            ends.append((av, cn, p, b))
    ends.sort(reverse=True)
    seen = set()
    shown = []
    for av, cn, p, b in ends:
        if a.grep and a.grep not in cn:
            continue
        base = re.sub(r"_\d+(_|$)", r"\1", re.sub(r"\[\d+\]", "", cn))
        if base in seen:
            continue
        seen.add(base)
        shown.append((av, cn, p, b))
        print("%6.2f ns  %s.%s  (%s)" % (av, cn, p, cells[cn]["type"]))
        if len(shown) >= a.n:
            break
    for av, cn, p, b in shown[: a.path]:
        print("\npath to %s.%s: %.2f ns" % (cn, p, av))
        trace(b)


if __name__ == "__main__":
    main()
