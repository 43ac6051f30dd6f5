#!/usr/bin/env python3
"""Timing what-if (docs/microarchitecture.md §19.7): put every input port of
the named modules of the core's generated Verilog through one more
register. The result is functionally wrong; it only says what a cut would
give the placer and router.

usage: register_inputs.py IN.v OUT.v MODULE[:port,port...] ...
A MODULE without ports registers every input but `clock` and `reset`.
"""
import re
import sys


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        sys.exit(f'{path}: {e.strerror}')

if len(sys.argv) < 4:
    sys.exit(__doc__)
src = read(sys.argv[1])
specs = {}
for spec in sys.argv[3:]:
    module, _, ports = spec.partition(':')
    specs[module] = set(ports.split(',')) if ports else None
out = []
done = set()
for mod in re.split(r'(?m)^(?=module )', src):
    m = re.match(r'module (\S+?)\(', mod)
    if not m or m.group(1) not in specs:
        out.append(mod)
        continue
    name = m.group(1)
    want = specs[name]
    done.add(name)
    decls = re.findall(r'(?m)^\s*input wire\s*(\[[^\]]*\])?\s*(\S+);', mod)
    if not any(p == 'clock' for _, p in decls):
        sys.exit(f'{name}: no clock input, nothing to register with')
    cut = [(w or '', p) for w, p in decls
           if p not in ('clock', 'reset') and (want is None or p in want)]
    if want:
        missing = want - {p for _, p in cut}
        if missing:
            sys.exit(f'{name}: no input {sorted(missing)}')
    header_end = mod.index(');') + 2
    header, body = mod[:header_end], mod[header_end:]
    for width, port in cut:
        body = re.sub(r'(?<![\w$.])' + re.escape(port) + r'(?![\w$])', port + '__q', body)
        body = re.sub(
            r'(?m)^(\s*input wire\s*' + re.escape(width) + r'\s*)' + re.escape(port + '__q') + ';',
            lambda d: d.group(1) + port + ';\n    reg ' + width + ' ' + port + '__q;\n'
            + '    always @(posedge clock) ' + port + '__q <= ' + port + ';',
            body, count=1)
    out.append(header + body)
    print(f'{name}: {len(cut)} inputs registered', file=sys.stderr)
missing = set(specs) - done
if missing:
    sys.exit(f'no module {sorted(missing)} in {sys.argv[1]}')
open(sys.argv[2], 'w').write(''.join(out))
