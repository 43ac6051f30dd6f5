#!/usr/bin/env python3
"""Copy the lane floorplan (`concord_fpga::floorplan`: each lane's two
register-file DP16KD and four MULT18X18D fixed by a `BEL` attribute) from
a netlist that `concord synth-report` floorplanned onto another synthesis
of a variant of the same core. Cells are matched by lane and block, not by
name: Yosys names a multiplier after one of its nets, which differs from
one synthesis to the next.

usage: copy_floorplan.py FLOORPLANNED.json NETLIST.json OUT.json
"""
import json
import re
import sys


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        sys.exit(f'{path}: {e.strerror}')

if len(sys.argv) != 4:
    sys.exit(__doc__)
block = re.compile(r'lanes\$(\d+)\.(?:mul\.(?:x_)?(ll|lh|hl|hh)|rf\.copy_(a|b))[.$]')


def key(cell):
    m = block.search(cell)
    return (m.group(1), m.group(2) or m.group(3)) if m else None


planned = json.loads(read(sys.argv[1]))
netlist = json.loads(read(sys.argv[2]))
sites = {}
for module in planned['modules'].values():
    for name, cell in module.get('cells', {}).items():
        if 'BEL' in cell.get('attributes', {}):
            sites[key(name)] = cell['attributes']['BEL']
placed = 0
for module in netlist['modules'].values():
    for name, cell in module.get('cells', {}).items():
        if cell['type'] in ('MULT18X18D', 'DP16KD') and key(name) in sites:
            cell.setdefault('attributes', {})['BEL'] = sites[key(name)]
            placed += 1
if placed != len(sites):
    sys.exit(f'{placed} of {len(sites)} sites found in {sys.argv[2]}')
print(f'{placed} sites', file=sys.stderr)
json.dump(netlist, open(sys.argv[3], 'w'))
