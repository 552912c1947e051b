#!/usr/bin/env python3
"""The layer check of source3/smbd (issue 12, docs/architecture.md).

Each folder of source3/smbd is one layer and one static library.  A
layer may call its own folder and the layers below it, never one above:
this reads every library's symbol table (nm) and lists each call that
runs upward, as `caller.o -> symbol (callee folder)`.  The build runs it
after the libraries (source3/smbd/wscript), so an upward call fails
`make`; run by hand it prints the same, and with --count the number of
file-to-file links per pair of layers.

    buildtools/check_layers.py [--count] [--src=source3/smbd] DIR LAYER...
    (top first; DIR holds LAYER/libringsmb-smbd-LAYER.a; with --src the
    #includes are checked too: no file includes a higher layer's header,
    and source3/smbd/smbd.h none at all)
"""
import glob
import os
import re
import subprocess
import sys

DEFINED = set('TDBRVWGSi')


def archive_symbols(path):
    """{member: (defined set, undefined set)} of one static library."""
    out = subprocess.run(['nm', '-A', path], capture_output=True,
                         text=True, check=True).stdout
    members = {}
    for line in out.splitlines():
        where, _, rest = line.rpartition(': ')
        member = where.rsplit(':', 1)[-1]
        fields = rest.split()
        d, u = members.setdefault(member, (set(), set()))
        if len(fields) == 2 and fields[0] == 'U':
            u.add(fields[1])
        elif len(fields) == 3 and fields[1] in DEFINED:
            d.add(fields[2])
    return members


def upward_calls(libs):
    """libs: [(layer, archive path)] top first.  Returns a sorted list of
    (caller layer, caller member, symbol, callee layer, callee member)
    for every call from a layer to one above it."""
    owner = {}
    tables = []
    for rank, (layer, path) in enumerate(libs):
        members = archive_symbols(path)
        tables.append((rank, layer, members))
        for member, (defined, _) in members.items():
            for sym in defined:
                owner.setdefault(sym, (rank, layer, member))
    bad = []
    for rank, layer, members in tables:
        for member, (_, undefined) in members.items():
            for sym in undefined:
                o = owner.get(sym)
                if o is not None and o[0] < rank:
                    bad.append((layer, member, sym, o[1], o[2]))
    return sorted(bad)


INCLUDE = re.compile(r'^#include "source3/smbd/([a-z_]+)/([^"]+)"', re.M)


def upward_includes(src, layers):
    """(file, included header) for every #include of a higher layer's
    header, and of any layer's header from source3/smbd/smbd.h: so no
    include cycle spans folders."""
    rank = {l: i for i, l in enumerate(layers)}
    bad = []
    for path in sorted(glob.glob(os.path.join(src, '*', '*.[ch]')) +
                       glob.glob(os.path.join(src, '*.h'))):
        rel = os.path.relpath(path, src)
        layer = rel.split(os.sep)[0] if os.sep in rel else None
        with open(path) as f:
            for m in INCLUDE.finditer(f.read()):
                if m.group(1) not in rank:
                    continue
                if layer is None or rank[m.group(1)] < rank[layer]:
                    bad.append((rel, '%s/%s' % (m.group(1), m.group(2))))
    return bad


def name(member):
    return member[:-len('.1.o')] if member.endswith('.1.o') else member


def main(argv):
    count = '--count' in argv
    args = [a for a in argv if a != '--count']
    src = None
    if args[0].startswith('--src='):
        src = args.pop(0)[len('--src='):]
    top, layers = args[0], args[1:]
    libs = [(l, '%s/%s/libringsmb-smbd-%s.a' % (top, l, l)) for l in layers]
    bad = upward_calls(libs)
    for layer, member, sym, up, upmember in bad:
        print('%s/%s calls %s of %s/%s: %s may not call %s (a layer '
              'calls only itself and the layers below it)'
              % (layer, name(member), sym, up, name(upmember), layer, up))
    links = {(b[0], b[1], b[3], b[4]) for b in bad}
    incs = upward_includes(src, layers) if src else []
    for path, header in incs:
        print('source3/smbd/%s includes source3/smbd/%s: a header of a '
              'higher layer' % (path, header))
    if count or bad or incs:
        print('layer check: %d upward file-to-file links, %d symbols, '
              '%d upward includes' % (len(links), len(bad), len(incs)))
    return 1 if bad or incs else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
