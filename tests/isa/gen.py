#!/usr/bin/env python3
"""The ISA conformance cases: one small PTX kernel per instruction form,
run on a GPU and on the emulator over the same inputs (tests/isa/run.c),
their outputs compared bit for bit (docs/CONFORMANCE.md, "ISA conformance").

    gen.py SEED OUTDIR [--fuzz N]

writes OUTDIR/isa.ptx (the kernels, one module each, between "//@case"
lines), OUTDIR/isa.cases (one line a case: name, result kind, the form
in words, its operand types) and OUTDIR/isa.in (each case's LANES x 3 operand slots of 8
bytes).  Inputs mix edge values (zeros of both signs, infinities, NaNs,
denormals, the integer extremes, shift counts past the width, rounding
ties) with values drawn from the seed, so a run is reproducible from its
seed.  With --fuzz N it writes N random straight-line kernels instead
(the differential fuzzer).

Every kernel k reads a, b, c from its lane's slots, runs the form, and
stores its result (and a predicate result as 0/1) in the lane's 16-byte
output slot.  Forms a GPU computes approximately (.approx) are marked so:
the ISA bounds their error rather than their bits.
"""
import random
import struct
import sys

LANES = 128

HDR = ".version 8.0\n.target sm_90\n.address_size 64\n"

INT = {"u16": 16, "s16": 16, "u32": 32, "s32": 32, "u64": 64, "s64": 64,
       "b16": 16, "b32": 32, "b64": 64, "u8": 8, "s8": 8}
SIZE = dict(INT, f16=16, bf16=16, f32=32, f64=64, f16x2=32, bf16x2=32,
            u16x2=32, s16x2=32, pred=1)


def reg_type(t):
    """the register type a value of type t lives in"""
    if t in ("u8", "s8"):
        return "b16"
    return "b%d" % SIZE[t] if SIZE[t] > 1 else "pred"


# ---- edge values, as 64-bit slot bits ----

def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


EDGE = {
    "int": [0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
            0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
            0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff,
            31, 32, 33, 63, 64, 65, 0xdeadbeef, 0x12345678],
    "f32": [0, 0x80000000, f32(1.0), f32(-1.0), f32(0.5), f32(1.5),
            f32(2.5), f32(-2.5), f32(3.0), f32(1 / 3), 0x7f800000,
            0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fc00001,
            0x00000001, 0x007fffff, 0x80000001, 0x00800000, 0x7f7fffff,
            0xff7fffff, f32(1e10), f32(-1e-10), f32(65504.0),
            f32(65520.0), f32(3.4e38)],
    "f64": [0, 0x8000000000000000, f64(1.0), f64(-1.0), f64(0.5),
            f64(2.5), f64(-2.5), f64(1 / 3), 0x7ff0000000000000,
            0xfff0000000000000, 0x7ff8000000000000, 0x7ff0000000000001,
            0x0000000000000001, 0x000fffffffffffff, 0x0010000000000000,
            0x7fefffffffffffff, f64(1e300), f64(-1e-300),
            0xfff0000000000001],
    "f16": [0, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0x7c00,
            0xfc00, 0x7e00, 0x7c01, 0xfe00, 0x0001, 0x03ff, 0x8001,
            0x0400, 0x7bff, 0xfbff, 0x3555],
    "bf16": [0, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0x4020, 0x7f80,
             0xff80, 0x7fc0, 0x7f81, 0x0001, 0x007f, 0x8001, 0x0080,
             0x7f7f, 0xff7f, 0x3eab],
}


# NaNs of both signs, quiet and signalling: the lanes after the edge
# values cross each with each (a NaN's bits are where GPUs and IEEE part)
NANS = {
    "f32": [0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fffffff],
    "f64": [0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001,
            0xfff0000000000001],
    "f16": [0x7e00, 0xfe00, 0x7c01, 0xfc01],
    "bf16": [0x7fc0, 0xffc0, 0x7f81, 0xff81],
}


def kind_of(t):
    if t in ("f32",):
        return "f32"
    if t == "f64":
        return "f64"
    if t in ("f16", "f16x2"):
        return "f16"
    if t in ("bf16", "bf16x2"):
        return "bf16"
    return "int"


def nan_pair(t, lane, pos):
    """operand pos of lane for a float type t in the NaN lanes (after
    the edge values), or None past them"""
    kind = kind_of(t)
    if kind not in NANS:
        return None
    nans, j = NANS[kind], lane - 2 * len(EDGE[kind])
    k = len(nans)
    if j < 0 or j >= k * k:
        return None
    return nans[(j // k, j % k, (j // k + j) % k)[pos]]


def value(rng, t, lane, pos):
    """operand pos of lane for type t: edge values first, crossed, then
    NaNs crossed, then values from the seed"""
    edge = EDGE[kind_of(t)]
    n = len(edge)
    bits = SIZE.get(t, 64)
    nan = nan_pair(t, lane, pos)
    if nan is not None:
        v = nan | (nan << 16 if t.endswith("x2") else 0)
        return v & ((1 << bits) - 1) if bits < 64 else v
    if lane < n * 2:
        v = edge[(lane + pos * 7) % n] if pos else edge[lane % n]
    else:
        v = rng.getrandbits(64)
        if kind_of(t) == "f32" and rng.random() < 0.5:
            v = f32(rng.uniform(-4, 4) * 10 ** rng.randint(-6, 6))
        elif kind_of(t) == "f64" and rng.random() < 0.5:
            v = f64(rng.uniform(-4, 4) * 10 ** rng.randint(-30, 30))
    if t.endswith("x2"):
        hi = edge[(lane // 3 + pos) % n] if lane < n * 2 else \
            rng.getrandbits(16)
        v = (v & 0xffff) | (hi & 0xffff) << 16
    if bits < 64:
        v &= (1 << bits) - 1
    return v


# ---- the forms ----

def int_forms():
    out = []
    for t in ("u16", "s16", "u32", "s32", "u64", "s64"):
        for op in ("add", "sub", "mul.lo", "mul.hi", "div", "rem", "min",
                   "max"):
            out.append(("%s.%s" % (op, t), t, [t, t], t))
        for op in ("mad.lo", "mad.hi"):
            out.append(("%s.%s" % (op, t), t, [t, t, t], t))
        out.append(("abs.%s" % t, t, [t], t) if t[0] == "s" else None)
        out.append(("neg.%s" % t, t, [t], t) if t[0] == "s" else None)
        if t in ("u16", "s16", "u32", "s32"):
            wide = t[0] + str(SIZE[t] * 2)
            out.append(("mul.wide.%s" % t, wide, [t, t], wide))
            out.append(("mad.wide.%s" % t, wide, [t, t, wide], wide))
        out.append(("sad.%s" % t, t, [t, t, t], t))
    for t in ("s32",):
        out.append(("add.sat.s32", t, [t, t], t))
        out.append(("sub.sat.s32", t, [t, t], t))
        out.append(("mul24.lo.s32", t, [t, t], t))
        out.append(("mul24.lo.u32", "u32", ["u32", "u32"], "u32"))
        out.append(("mad24.lo.s32", t, [t, t, t], t))
    for t in ("b16", "b32", "b64"):
        for op in ("and", "or", "xor"):
            out.append(("%s.%s" % (op, t), t, [t, t], t))
        out.append(("not.%s" % t, t, [t], t))
        out.append(("cnot.%s" % t, t, [t], t))
        out.append(("shl.%s" % t, t, [t, "u32"], t))
    for t in ("u16", "s16", "u32", "s32", "u64", "s64"):
        out.append(("shr.%s" % t, t, [t, "u32"], t))
    for t in ("b32", "b64"):
        out.append(("popc.%s" % t, "u32", [t], "u32"))
        out.append(("clz.%s" % t, "u32", [t], "u32"))
        out.append(("brev.%s" % t, t, [t], t))
    for t in ("u32", "s32", "u64", "s64"):
        out.append(("bfind.%s" % t, "u32", [t], "u32"))
        out.append(("bfind.shiftamt.%s" % t, "u32", [t], "u32"))
        out.append(("bfe.%s" % t, t, [t, "u32", "u32"], t))
    for t in ("b32", "b64"):
        out.append(("bfi.%s" % t, t, [t, t, "u32", "u32"], t))
    out.append(("prmt.b32", "b32", ["b32", "b32", "b32"], "b32"))
    for m in ("l.wrap", "r.wrap", "l.clamp", "r.clamp"):
        out.append(("shf.%s.b32" % m, "b32", ["b32", "b32", "u32"], "b32"))
    for lut in (0x96, 0xe8, 0x8e, 0x71, 0xf0, 0x00, 0xff):
        out.append(("lop3.b32:%#x" % lut, "b32", ["b32", "b32", "b32"],
                    "b32"))
    for a in ("u32", "s32"):
        for b in ("u32", "s32"):
            d = "s32" if "s" in a + b else "u32"
            out.append(("dp4a.%s.%s" % (a, b), d, [a, b, d], d))
            out.append(("dp2a.lo.%s.%s" % (a, b), d, [a, b, d], d))
            out.append(("dp2a.hi.%s.%s" % (a, b), d, [a, b, d], d))
    for m in ("clamp", "wrap"):
        out.append(("bmsk.%s.b32" % m, "b32", ["u32", "u32"], "b32"))
    for t in ("u16x2", "s16x2"):
        for op in ("add", "sub", "min", "max"):
            out.append(("%s.%s" % (op, t), t, [t, t], t))
    out.append(("vabsdiff4.u32.u32.u32.add", "u32",
                ["u32", "u32", "u32"], "u32"))
    out.append(("vabsdiff4.u32.s32.s32.add", "u32",
                ["u32", "u32", "u32"], "u32"))
    out.append(("vabsdiff4.u32.u32.u32", "u32", ["u32", "u32", "u32"],
                "u32"))
    for t in ("u32", "s32"):
        out.append(("vabsdiff2.u32.%s.%s.add" % (t, t), "u32",
                    ["u32", "u32", "u32"], "u32"))
    for op in ("min", "max"):
        out.append(("%s.relu.s16x2" % op, "s16x2", ["s16x2", "s16x2"],
                    "s16x2"))
    return [f for f in out if f]


RND = ("rn", "rz", "rm", "rp")


def float_forms():
    out = []
    for t in ("f32", "f64"):
        for op in ("add", "sub", "mul"):
            for r in RND:
                out.append(("%s.%s.%s" % (op, r, t), t, [t, t], t))
            if t == "f32":
                out.append(("%s.rn.ftz.%s" % (op, t), t, [t, t], t))
                out.append(("%s.rn.sat.%s" % (op, t), t, [t, t], t))
        for r in RND:
            out.append(("fma.%s.%s" % (r, t), t, [t, t, t], t))
            out.append(("div.%s.%s" % (r, t), t, [t, t], t))
            out.append(("rcp.%s.%s" % (r, t), t, [t], t))
            out.append(("sqrt.%s.%s" % (r, t), t, [t], t))
        for op in ("min", "max"):
            out.append(("%s.%s" % (op, t), t, [t, t], t))
        for op in ("abs", "neg"):
            out.append(("%s.%s" % (op, t), t, [t], t))
        out.append(("copysign.%s" % t, t, [t, t], t))
        for m in ("finite", "infinite", "number", "notanumber",
                  "normal", "subnormal"):
            out.append(("testp.%s.%s" % (m, t), "pred", [t], "pred"))
    # no rounding modifier: ptxas may fuse a mul into the add after it
    # (the emulator's contract.c); alone each is rounded to nearest
    for t in ("f32", "f64", "f16", "bf16", "f16x2"):
        for op in ("add", "sub", "mul"):
            out.append(("%s.%s" % (op, t), t, [t, t], t))
    out.append(("fma.rn.ftz.sat.f32", "f32", ["f32"] * 3, "f32"))
    out.append(("div.full.f32~", "f32", ["f32", "f32"], "f32"))
    out.append(("min.ftz.f32", "f32", ["f32", "f32"], "f32"))
    out.append(("min.NaN.f32", "f32", ["f32", "f32"], "f32"))
    out.append(("max.NaN.f32", "f32", ["f32", "f32"], "f32"))
    out.append(("min.xorsign.abs.f32", "f32", ["f32", "f32"], "f32"))
    out.append(("max.xorsign.abs.f32", "f32", ["f32", "f32"], "f32"))
    for op in ("div.approx", "rcp.approx", "sqrt.approx", "rsqrt.approx",
               "ex2.approx", "lg2.approx", "sin.approx", "cos.approx",
               "tanh.approx"):
        n = 2 if op.startswith("div") else 1
        out.append(("%s.f32~" % op, "f32", ["f32"] * n, "f32"))
        out.append(("%s.ftz.f32~" % op, "f32", ["f32"] * n, "f32"))
    out.append(("rcp.approx.ftz.f64~", "f64", ["f64"], "f64"))
    out.append(("rsqrt.approx.f64~", "f64", ["f64"], "f64"))
    for t in ("f16", "f16x2", "bf16", "bf16x2"):
        for op in ("add", "sub", "mul"):
            out.append(("%s.rn.%s" % (op, t), t, [t, t], t))
        out.append(("fma.rn.%s" % t, t, [t, t, t], t))
        out.append(("fma.rn.relu.%s" % t, t, [t, t, t], t))
        for op in ("min", "max", "neg", "abs"):
            n = 2 if op in ("min", "max") else 1
            out.append(("%s.%s" % (op, t), t, [t] * n, t))
        out.append(("min.NaN.%s" % t, t, [t, t], t))
        out.append(("max.xorsign.abs.%s" % t, t, [t, t], t))
        if t.startswith("f16"):
            out.append(("add.rn.sat.%s" % t, t, [t, t], t))
            out.append(("add.rn.ftz.%s" % t, t, [t, t], t))
            out.append(("fma.rn.sat.%s" % t, t, [t, t, t], t))
            out.append(("ex2.approx.%s~" % t, t, [t], t))
    out.append(("tanh.approx.f16~", "f16", ["f16"], "f16"))
    return out


def cvt_forms():
    out = []
    ints = ("u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64")
    floats = ("f16", "bf16", "f32", "f64")
    for d in ints + floats:
        for s in ints + floats:
            if d == s:
                continue
            fl_d, fl_s = d in floats, s in floats
            if fl_s and not fl_d:
                mods = ("rni", "rzi", "rmi", "rpi")
            elif fl_d and (not fl_s or SIZE[d] < SIZE[s]):
                mods = RND
            elif fl_d and fl_s and SIZE[d] > SIZE[s]:
                mods = ("",)
            else:
                mods = ("",)
            for m in mods:
                name = "cvt%s.%s.%s" % ("." + m if m else "", d, s)
                out.append((name, d, [s], d))
            if fl_s and not fl_d:
                out.append(("cvt.rzi.sat.%s.%s" % (d, s), d, [s], d))
            if not fl_s and not fl_d and SIZE[d] <= SIZE[s]:
                out.append(("cvt.sat.%s.%s" % (d, s), d, [s], d))
    out.append(("cvt.rn.ftz.f32.f64", "f32", ["f64"], "f32"))
    out.append(("cvt.rni.f32.f32", "f32", ["f32"], "f32"))
    out.append(("cvt.rzi.ftz.f32.f32", "f32", ["f32"], "f32"))
    out.append(("cvt.rn.sat.f32.f32", "f32", ["f32"], "f32"))
    out.append(("cvt.rna.tf32.f32", "b32", ["f32"], "b32"))
    out.append(("cvt.rn.f16x2.f32", "f16x2", ["f32", "f32"], "f16x2"))
    out.append(("cvt.rn.bf16x2.f32", "bf16x2", ["f32", "f32"], "bf16x2"))
    out.append(("cvt.rn.relu.f16x2.f32", "f16x2", ["f32", "f32"], "f16x2"))
    out.append(("cvt.rz.relu.bf16x2.f32", "bf16x2", ["f32", "f32"],
                "bf16x2"))
    return out


CMP_INT = ("eq", "ne", "lt", "le", "gt", "ge")
CMP_UNS = ("lo", "ls", "hi", "hs")
CMP_F = CMP_INT + ("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")


def cmp_forms():
    out = []
    for t in ("s32", "u32", "s64", "u64", "s16", "b32"):
        cmps = CMP_INT if t[0] in "su" else ("eq", "ne")
        if t[0] == "u" or t[0] == "b":
            cmps = cmps + CMP_UNS
        for c in cmps:
            out.append(("setp.%s.%s" % (c, t), "pred", [t, t], "pred"))
    for t in ("f32", "f64", "f16", "bf16"):
        for c in CMP_F:
            out.append(("setp.%s.%s" % (c, t), "pred", [t, t], "pred"))
    for c in ("lt", "gtu", "nan"):
        out.append(("setp.%s.ftz.f32" % c, "pred", ["f32", "f32"], "pred"))
        for b in ("and", "or", "xor"):
            out.append(("setp.%s.%s.f32" % (c, b), "pred",
                        ["f32", "f32", "pred"], "pred"))
    for t in ("f16x2", "bf16x2"):
        for c in ("eq", "lt", "gtu", "nan"):
            out.append(("setp.%s.%s" % (c, t), "pred2", [t, t], "pred2"))
            out.append(("set.%s.%s.%s" % (c, t, t), t, [t, t], t))
            out.append(("set.%s.u32.%s" % (c, t), "u32", [t, t], "u32"))
    for d in ("u32", "s32", "f32"):
        for c in ("lt", "equ"):
            out.append(("set.%s.%s.f32" % (c, d), d, ["f32", "f32"], d))
            out.append(("set.%s.%s.s32" % (c, d), d, ["s32", "s32"], d))
    for t in ("f16", "bf16"):
        for c in ("lt", "nan", "geu"):
            out.append(("set.%s.%s.%s" % (c, t, t), t, [t, t], t))
    for t in ("b32", "f32", "b64"):
        out.append(("selp.%s" % t, t, [t, t, "pred"], t))
    out.append(("slct.b32.s32", "b32", ["b32", "b32", "s32"], "b32"))
    out.append(("slct.b32.f32", "b32", ["b32", "b32", "f32"], "b32"))
    out.append(("slct.ftz.b32.f32", "b32", ["b32", "b32", "f32"], "b32"))
    return out


# Forms ptxas refuses for sm_90 (the PTX ISA has no such instruction):
# nvcc never writes them, and a GPU cannot be asked about them.
REFUSED = {
    "sub.u16x2", "sub.s16x2", "tanh.approx.ftz.f32~", "cvt.rn.sat.f32.f32",
    "setp.lo.b32", "setp.ls.b32", "setp.hi.b32", "setp.hs.b32",
    "set.equ.u32.s32", "set.equ.s32.s32", "set.equ.f32.s32",
}


def refused(name):
    """cvt between bf16 and the 8-bit integers, and cvt from bf16 to an
    integer with .sat, are not sm_90's either"""
    parts = name.split(".")
    if name in REFUSED:
        return True
    if parts[0] != "cvt" or "bf16" not in parts[-2:]:
        return False
    ints = [p for p in parts[-2:] if p != "bf16"]
    return bool(ints) and (ints[0] in ("u8", "s8") or
                           (parts[-1] == "bf16" and "sat" in parts))


def all_forms():
    return [f for f in int_forms() + float_forms() + cvt_forms() +
            cmp_forms() if not refused(f[0])]


# ---- PTX ----

def load_operand(i, t):
    """PTX that puts operand i (slot i of the lane; a fourth operand is
    the upper half of the third slot) in register %o<i>"""
    off = 8 * i if i < 3 else 20
    if t == "pred":
        return ("\tld.global.u32 %%t%d, [%%rd2+%d];\n"
                "\tsetp.ne.u32 %%p%d, %%t%d, 0;\n" % (i, off, i, i))
    rt = reg_type(t)
    return "\tld.global.%s %%o%d, [%%rd2+%d];\n" % (rt, i, off)


def kernel(name, form, dtype, srcs, res):
    mnem = form.rstrip("~")
    imm = None
    if ":" in mnem:
        mnem, imm = mnem.split(":")
    body = ".visible .entry %s(.param .u64 pin, .param .u64 pout)\n{\n" % name
    body += "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<6>;\n"
    body += "\t.reg .pred %p<4>;\n\t.reg .b32 %t<4>;\n"
    for i, t in enumerate(srcs):
        if t != "pred":
            body += "\t.reg .%s %%o%d;\n" % (reg_type(t), i)
    if res not in ("pred", "pred2"):
        body += "\t.reg .%s %%d;\n" % reg_type(res)
    body += ("\tld.param.u64 %rd0, [pin];\n\tld.param.u64 %rd1, [pout];\n"
             "\tmov.u32 %r0, %tid.x;\n"
             "\tmul.wide.u32 %rd3, %r0, 24;\n"
             "\tadd.s64 %rd2, %rd0, %rd3;\n"
             "\tmul.wide.u32 %rd4, %r0, 16;\n"
             "\tadd.s64 %rd5, %rd1, %rd4;\n")
    for i, t in enumerate(srcs):
        body += load_operand(i, t)
    ops = ["%%p%d" % i if t == "pred" else "%%o%d" % i
           for i, t in enumerate(srcs)]
    if res == "pred":
        body += "\t%s %%p3, %s;\n" % (mnem, ", ".join(ops))
        body += "\tselp.u32 %r1, 1, 0, %p3;\n"
        body += "\tst.global.u32 [%rd5+8], %r1;\n"
    elif res == "pred2":
        body += "\t%s %%p2|%%p3, %s;\n" % (mnem, ", ".join(ops))
        body += ("\tselp.u32 %r1, 1, 0, %p2;\n\tselp.u32 %r2, 2, 0, %p3;\n"
                 "\tor.b32 %r1, %r1, %r2;\n"
                 "\tst.global.u32 [%rd5+8], %r1;\n")
    else:
        if imm:
            ops.append(imm)
        if mnem.startswith("setp") and len(srcs) == 3:
            pass
        body += "\t%s %%d, %s;\n" % (mnem, ", ".join(ops))
        body += "\tst.global.%s [%%rd5], %%d;\n" % reg_type(res)
    body += "\tret;\n}\n"
    # setp with a boolean operand: its form names the result predicate
    if res == "pred" and len(srcs) == 3 and srcs[2] == "pred":
        body = body.replace("%s %%p3, %%o0, %%o1, %%p2;" % mnem,
                            "%s %%p3, %%o0, %%o1, %%p2;" % mnem)
    return body


def inputs(rng, srcs):
    """the LANES x 3 operand slots of a case whose sources are srcs"""
    data = bytearray()
    for lane in range(LANES):
        for pos in range(3):
            t = srcs[pos] if pos < len(srcs) else "u64"
            v = value(rng, t if t != "pred" else "u32", lane, pos)
            if t == "pred":
                v &= 1
            data += struct.pack("<Q", v & 0xffffffffffffffff)
    return data


def write(seed, outdir, forms, chains=None, steps=None):
    """the cases of forms, or of the fuzz chains; with steps (a fuzz
    kernel's index), the kernels of that one's chain's prefixes, each on
    its inputs: the first that differs ends at the step at fault"""
    import fuzz
    rng = random.Random(seed)
    ptx, cases, data = [], [], bytearray()
    if chains is not None:
        forms = [(tag, "b64", ["u64", "u64", "u64"], "fuzz")
                 for tag, _ in chains]
    for k, (form, dtype, srcs, res) in enumerate(forms):
        block = inputs(rng, srcs)
        if steps is not None and k != steps:
            continue
        kernels = [(form, chains[k][1])] if chains is not None else \
            [(form, None)]
        if steps is not None:
            kernels = [("%s.%d" % (form, j), chains[k][1][:j])
                       for j in range(1, len(chains[k][1]) + 1)]
        for tag, chain in kernels:
            name = "k%d" % len(cases)
            text = fuzz.kernel(name, chain) if chain is not None \
                else kernel(name, form, dtype, srcs, res)
            ptx.append("//@case %d\n%s%s" % (len(cases), HDR, text))
            if chain is not None:
                tag = "%s:%s" % (tag, "|".join(f[0] for f in chain))
            cases.append("%s %s %s %s\n" % (name, res, tag,
                                            ",".join(srcs)))
            data += block
    with open(outdir + "/isa.ptx", "w") as f:
        f.write("".join(ptx))
    with open(outdir + "/isa.cases", "w") as f:
        f.write("".join(cases))
    with open(outdir + "/isa.in", "wb") as f:
        f.write(bytes(data))


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: gen.py SEED OUTDIR [--fuzz N [--steps K]]")
    seed, outdir = int(sys.argv[1]), sys.argv[2]
    forms, chains, steps = all_forms(), None, None
    if "--fuzz" in sys.argv:
        import fuzz
        chains = fuzz.forms(seed, int(sys.argv[sys.argv.index("--fuzz") +
                                                1]), forms)
    if "--steps" in sys.argv and chains is not None:
        steps = int(sys.argv[sys.argv.index("--steps") + 1])
    write(seed, outdir, forms, chains, steps)


if __name__ == "__main__":
    main()
