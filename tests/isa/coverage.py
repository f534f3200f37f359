#!/usr/bin/env python3
"""The conformance cases' coverage as a markdown table (docs/CONFORMANCE.md,
"ISA conformance"): one row per instruction, the types and the modifiers
its forms take, and how many forms it has.

    coverage.py > table.md
"""
import collections

import gen

TYPES = set(gen.SIZE) | {"tf32"}


def split(name):
    """an instruction's mnemonic, its modifiers and its types"""
    parts = name.rstrip("~").split(":")[0].split(".")
    mods = [p for p in parts[1:] if p not in TYPES]
    types = [p for p in parts[1:] if p in TYPES]
    return parts[0], mods, types


def type_list(types):
    """the types of a row; a long list of pairs as the types they pair"""
    types = sorted(t for t in types if t)
    if len(types) <= 24:
        return ", ".join(types) or "--"
    names = sorted({p for t in types for p in t.split(".")})
    return "%d pairs of %s" % (len(types), ", ".join(names))


def main():
    rows = collections.OrderedDict()
    for name, _, _, _ in gen.all_forms():
        op, mods, types = split(name)
        r = rows.setdefault(op, [set(), set(), 0])
        r[0].add(".".join(types))
        r[1].update(mods)
        r[2] += 1
    print("| instruction | types | modifiers | forms |")
    print("| --- | --- | --- | --- |")
    for op, (types, mods, n) in rows.items():
        print("| `%s` | %s | %s | %d |" % (
            op, type_list(types), ", ".join("." + m for m in sorted(mods))
            or "--", n))
    print("\n%d forms of %d instructions." % (
        sum(r[2] for r in rows.values()), len(rows)))


if __name__ == "__main__":
    main()
