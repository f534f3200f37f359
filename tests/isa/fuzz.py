"""Random straight-line kernels for the differential fuzzer (gen.py
--fuzz N): each kernel runs a chain of forms drawn from the conformance
forms -- each form's sources are earlier results of the chain or the
lane's inputs, reinterpreted to the form's types -- and stores the last
result and an xor-fold of all of them, so that a difference anywhere in
the chain shows (gen.py --steps K runs kernel K's prefixes, to find the
step).  Approximate forms are left out (their bits are not the ISA's to
fix) except those the emulator computes as the GPU's special-function
unit does (EXACT_APPROX, as tests/isa/isa.c), and so are a form's sources
that are one register twice; an f32
or f64 NaN result goes on as the one NaN of its type (CANON)."""
import random

import gen

CHAIN = 12

# A float result that is a NaN goes on as this one: which of two NaN
# operands an instruction passes on (and so a payload's sign and bits)
# is the operand order ptxas chose, not the instruction's -- the
# conformance cases hold one NaN's way through each instruction.
CANON = {"f32": "0x7fffffff", "f64": "0x7fffffffffffffff"}


def _cast(var, frm, to):
    """PTX moving register var of type frm into a fresh register of type
    to: a bit reinterpretation, zero-extended or truncated"""
    fb, tb = gen.SIZE[frm], gen.SIZE[to]
    if frm == "pred" or to == "pred":
        return None
    rf, rt = gen.reg_type(frm), gen.reg_type(to)
    if fb == tb:
        return "mov.%s %%%%TO, %s;" % (rt, var)
    return "cvt.u%d.u%d %%%%TO, %s;" % (tb, fb, var)


# The approximate forms the emulator computes bit for bit (isa.c's
# exact_approx; harness/emu/vm/mufu.h).
EXACT_APPROX = ("rcp.approx.", "sqrt.approx.", "rsqrt.approx.f32",
                "rsqrt.approx.ftz.f32", "ex2.approx.f32",
                "ex2.approx.ftz.f32", "lg2.approx.", "div.approx.")


def _usable(form):
    name, _, srcs, res = form
    exact = "~" not in name or name.startswith(EXACT_APPROX)
    return (exact and ":" not in name and res not in
            ("pred", "pred2") and "pred" not in srcs and
            len(srcs) <= 3 and not name.startswith("set."))


def _source(regs, k, used):
    """the register k back among regs (cyclically), or the next one back
    not in used: each source of a form its own register, as ptxas would
    fold an operation on one value twice (min(x, x) is x, NaN or not)"""
    for i in range(len(regs)):
        src = regs[-1 - (k + i) % len(regs)]
        if src[0] not in used:
            return src
    return regs[-1 - k % len(regs)]


def kernel(name, forms):
    body = [".visible .entry %s(.param .u64 pin, .param .u64 pout)" % name,
            "{", "\t.reg .b32 %r<4>;", "\t.reg .b64 %rd<8>;",
            "\t.reg .b64 %in<3>;", "\t.reg .b64 %x;"]
    regs, code, n = [], [], 0
    code += ["\tld.param.u64 %rd0, [pin];", "\tld.param.u64 %rd1, [pout];",
             "\tmov.u32 %r0, %tid.x;", "\tmul.wide.u32 %rd3, %r0, 24;",
             "\tadd.s64 %rd2, %rd0, %rd3;", "\tmul.wide.u32 %rd4, %r0, 16;",
             "\tadd.s64 %rd5, %rd1, %rd4;", "\tmov.b64 %x, 0;"]
    for i in range(3):
        code.append("\tld.global.b64 %%in%d, [%%rd2+%d];" % (i, 8 * i))
        regs.append(("%%in%d" % i, "b64"))
    decl = set()
    for form, dtype, srcs, res in forms:
        ops, used = [], set()
        for t in srcs:
            src, st = _source(regs, len(ops) * 5 + n, used)
            used.add(src)
            tmp = "%%c%d" % n
            n += 1
            cast = _cast(src, st, t)
            decl.add("\t.reg .%s %s;" % (gen.reg_type(t), tmp))
            code.append("\t" + cast.replace("%%TO", tmp))
            ops.append(tmp)
        out = "%%v%d" % n
        n += 1
        decl.add("\t.reg .%s %s;" % (gen.reg_type(res), out))
        code.append("\t%s %s, %s;" % (form.rstrip("~"), out,
                                       ", ".join(ops)))
        if res in CANON:
            pred = "%%q%d" % n
            decl.add("\t.reg .pred %s;" % pred)
            code.append("\ttestp.notanumber.%s %s, %s;" % (res, pred, out))
            code.append("\tselp.%s %s, %s, %s, %s;" % (
                gen.reg_type(res), out, CANON[res], out, pred))
        regs.append((out, res))
        wide = "%%w%d" % n
        n += 1
        decl.add("\t.reg .b64 %s;" % wide)
        code.append("\t" + _cast(out, res, "b64").replace("%%TO", wide))
        code.append("\txor.b64 %%x, %%x, %s;" % wide)
    last, lt = regs[-1]
    wide = "%%w%d" % n
    decl.add("\t.reg .b64 %s;" % wide)
    code.append("\t" + _cast(last, lt, "b64").replace("%%TO", wide))
    code += ["\tst.global.b64 [%%rd5], %s;" % wide,
             "\tst.global.b64 [%rd5+8], %x;", "\tret;", "}"]
    return "\n".join(body + sorted(decl) + code) + "\n"


def forms(seed, n, all_forms):
    """n kernels of CHAIN random forms: returned as gen.write's forms,
    each a ready kernel (its form field holds its text)"""
    rng = random.Random(seed)
    usable = [f for f in all_forms if _usable(f)]
    out = []
    for k in range(n):
        chain = [rng.choice(usable) for _ in range(CHAIN)]
        out.append(("fuzz%d" % k, chain))
    return out
