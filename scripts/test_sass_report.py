#!/usr/bin/env python3
"""Unit tests of scripts/sass_report.py on canned `cuobjdump -sass` text (no
CUDA tools needed): parsing, loops, the hot path, the f64 / local / byte
store / 128-bit counts, the limits and exemptions, the roofline.

    python3 scripts/test_sass_report.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_report as sr  # noqa: E402


def line(addr, text):
    # cuobjdump's layout: address comment, instruction, encoding comments.
    return (
        f"        /*{addr:04x}*/                   {text} ;"
        "                                   /* 0x000fe20000000a00 */\n"
        "                                                                        "
        "/* 0x000fc80003f04070 */\n"
    )


def function(name, body):
    out = f"\t\tFunction : {name}\n\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
    for addr, text in body:
        out += line(addr, text)
    return out + "\t\t..........\n\n"


# unpack_u8_w3: straight-line chunk of four byte stores, then a tail loop
# (0x80..0xb0) with one byte store per iteration; EXIT and the final
# branch to itself.
CHUNKED = function(
    "unpack_u8_w3",
    [
        (0x00, "LDC R1, c[0x0][0x28]"),
        (0x10, "S2R R0, SR_TID.X"),
        (0x20, "@P0 BRA 0x80"),
        (0x30, "LDG.E R2, desc[UR4][R4.64]"),
        (0x40, "STG.E.U8 desc[UR4][R6.64], R2"),
        (0x50, "STG.E.U8 desc[UR4][R6.64+0x1], R2"),
        (0x60, "STG.E.U8 desc[UR4][R6.64+0x2], R2"),
        (0x70, "STG.E.U8 desc[UR4][R6.64+0x3], R2"),
        (0x80, "LDG.E.U8 R3, desc[UR4][R4.64]"),
        (0x90, "STG.E.U8 desc[UR4][R6.64], R3"),
        (0xA0, "IADD3 R8, R8, 0x1, RZ"),
        (0xB0, "@P1 BRA 0x80"),
        (0xC0, "EXIT"),
        (0xD0, "BRA 0xd0"),
        (0xE0, "NOP"),
    ],
)

# decode_e4m3_f32: a grid-stride loop (0x20..0x90) around an inner loop
# (0x40..0x60) that stores nothing; 128-bit load and store, f64 and local
# memory.
NESTED = function(
    "decode_e4m3_f32",
    [
        (0x00, "S2R R0, SR_TID.X"),
        (0x10, "LDL R9, [R1]"),
        (0x20, "LDG.E.128 R4, desc[UR4][R2.64]"),
        (0x30, "F2F.F64.F32 R10, R4"),
        (0x40, "DADD R10, R10, R12"),
        (0x50, "IADD3 R8, R8, 0x1, RZ"),
        (0x60, "@!P0 BRA 0x40"),
        (0x70, "STG.E.128 desc[UR4][R2.64], R4"),
        (0x80, "STL.64 [R1], R4"),
        (0x90, "@P1 BRA 0x20"),
        (0xA0, "EXIT"),
        (0xB0, "BRA 0xb0"),
    ],
)

# sum_w1: a reduction: the loop loads, the straight path stores one partial.
REDUCE = function(
    "sum_w1",
    [
        (0x00, "S2R R0, SR_TID.X"),
        (0x10, "LDG.E.64 R2, desc[UR4][R4.64]"),
        (0x20, "POPC R6, R2"),
        (0x30, "IADD3 R7, R7, R6, RZ"),
        (0x40, "@P0 BRA 0x10"),
        (0x50, "STG.E.64 desc[UR4][R8.64], R6"),
        (0x60, "EXIT"),
        (0x70, "BRA 0x70"),
    ],
)

SASS = "\n\tcode for sm_90\n" + CHUNKED + NESTED + REDUCE

RES = """
Resource usage:
 Common:
  GLOBAL:1024 CONSTANT[4]:8
 Function unpack_u8_w3:
  REG:32 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:552 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function decode_e4m3_f32:
  REG:22 STACK:32 SHARED:0 LOCAL:0 CONSTANT[0]:552 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def entries():
    regs = sr.parse_res_usage(RES)
    return {n: sr.analyze(n, ins, regs.get(n)) for n, ins in sr.parse_sass(SASS).items()}


class Parse(unittest.TestCase):
    def test_functions_instructions_predicates(self):
        f = sr.parse_sass(SASS)
        self.assertEqual(list(f), ["unpack_u8_w3", "decode_e4m3_f32", "sum_w1"])
        ins = f["unpack_u8_w3"]
        self.assertEqual(len(ins), 15)
        self.assertEqual((ins[2].addr, ins[2].pred, ins[2].opcode), (0x20, "@P0", "BRA"))
        self.assertEqual(ins[4].opcode, "STG.E.U8")
        self.assertEqual(ins[4].base, "STG")
        self.assertEqual(ins[4].operands, "desc[UR4][R6.64], R2")
        self.assertEqual(f["decode_e4m3_f32"][6].pred, "@!P0")

    def test_encoding_comments_are_not_instructions(self):
        self.assertEqual(sr.parse_sass(line(0, "EXIT").split("\n", 1)[1]), {})

    def test_registers(self):
        self.assertEqual(sr.parse_res_usage(RES), {"unpack_u8_w3": 32, "decode_e4m3_f32": 22})

    def test_widths_and_f64(self):
        w = lambda op: sr.access_bytes(sr.Instr(0, "", op, ""))  # noqa: E731
        self.assertEqual(
            [w(o) for o in ["STG.E.U8", "LDG.E.S16", "LDG.E", "STG.E.64", "LDG.E.128", "LDG.E.ENL2.256"]],
            [1, 2, 4, 8, 16, 32],
        )
        f = lambda op: sr.is_f64(sr.Instr(0, "", op, ""))  # noqa: E731
        for op in ["DADD", "DFMA.RM", "DSETP.GEU.AND", "F2F.F64.F32", "F2F.F32.F64", "I2F.F64.U32", "MUFU.RCP64H"]:
            self.assertTrue(f(op), op)
        for op in ["DEPBAR.LE", "FADD", "F2F.F16.F32", "MUFU.RCP", "F2FP.F16.F32.PACK_AB", "IMAD.WIDE"]:
            self.assertFalse(f(op), op)

    def test_branch_targets(self):
        t = lambda ops: sr.branch_target(sr.Instr(0, "", "BRA", ops))  # noqa: E731
        self.assertEqual(t("0xba0"), 0xBA0)
        self.assertEqual(t("P0, 0x40"), 0x40)
        self.assertEqual(sr.branch_target(sr.Instr(0, "", "CALL.REL.NOINC", "0x40")), 0x40)


class Loops(unittest.TestCase):
    def test_nested_loops(self):
        ins = sr.parse_sass(SASS)["decode_e4m3_f32"]
        ls = sr.loops(ins)
        self.assertEqual([(l.start, l.end) for l in ls], [(0x20, 0x90), (0x40, 0x60)])

    def test_the_branch_to_itself_is_no_loop(self):
        ins = sr.parse_sass(SASS)["unpack_u8_w3"]
        self.assertEqual([(l.start, l.end) for l in sr.loops(ins)], [(0x80, 0xB0)])


class Analyze(unittest.TestCase):
    def test_chunked_kernel_hot_path_is_straight_line(self):
        e = entries()["unpack_u8_w3"]
        self.assertEqual(e.regs, 32)
        self.assertEqual((e.byte_stores, e.byte_stores_in_loop), (5, 1))
        self.assertEqual(e.hot, "straight")
        # Straight: 0x00..0x70 and EXIT (the NOP and the branch to itself out).
        self.assertEqual((e.hot_instrs, e.hot_stored, e.hot_loaded), (9, 4, 4))
        self.assertEqual(e.basis, "out")
        self.assertAlmostEqual(e.per_byte, 9 / 4)
        self.assertEqual((e.ldg128, e.stg128, e.local, e.f64), (0, 0, 0, 0))

    def test_grid_loop_kernel(self):
        e = entries()["decode_e4m3_f32"]
        self.assertEqual((e.ldg128, e.stg128, e.local, e.f64), (1, 1, 2, 2))
        self.assertEqual(e.f64_ops, ["F2F.F64.F32", "DADD"])
        # The outer loop's own body (0x20, 0x30, 0x70..0x90: the inner
        # loop left out) stores the most: it is the hot path.
        self.assertEqual(e.hot, "outer loop")
        self.assertEqual((e.hot_instrs, e.hot_stored, e.hot_loaded), (5, 16, 16))
        self.assertAlmostEqual(e.per_byte, 5 / 16)

    def test_no_hot_path_in_an_out_of_line_function(self):
        # A grid loop (0x10..0x50) storing one chunk, calling a rare path
        # at 0x80 whose own loop stores 32 bytes: the hot path is the grid
        # loop; the callee's byte store still counts for the limits.
        text = function(
            "pack_u32_w10",
            [
                (0x00, "S2R R0, SR_TID.X"),
                (0x10, "LDG.E.128 R4, desc[UR4][R2.64]"),
                (0x20, "STG.E.128 desc[UR4][R6.64], R4"),
                (0x30, "@P0 CALL.REL.NOINC 0x80"),
                (0x40, "IADD3 R0, R0, 0x1, RZ"),
                (0x50, "@P1 BRA 0x10"),
                (0x60, "EXIT"),
                (0x70, "BRA 0x70"),
                (0x80, "STG.E.64 desc[UR4][R6.64], R4"),
                (0x90, "STG.E.64 desc[UR4][R6.64+0x8], R4"),
                (0xA0, "STG.E.64 desc[UR4][R6.64+0x10], R4"),
                (0xB0, "STG.E.U8 desc[UR4][R6.64+0x18], R4"),
                (0xC0, "@P2 BRA 0x80"),
                (0xD0, "RET.REL.NODEC R20 0x0"),
            ],
        )
        e = sr.analyze("pack_u32_w10", sr.parse_sass(text)["pack_u32_w10"])
        self.assertEqual((e.hot, e.hot_stored, e.hot_loaded, e.calls_in_hot), ("loop", 16, 16, 1))
        self.assertEqual((e.byte_stores, e.byte_stores_in_loop), (1, 1))

    def test_of_equal_loops_the_shortest_is_hot(self):
        # Two copies of a grid loop (a run-time mode each), the second
        # longer: the first is the hot path, the second its `alt`.
        text = function(
            "nvfp4_quantize",
            [
                (0x00, "@P0 BRA 0x60"),
                (0x10, "LDG.E.128 R4, desc[UR4][R2.64]"),
                (0x20, "STG.E.128 desc[UR4][R6.64], R4"),
                (0x30, "@P1 BRA 0x10"),
                (0x40, "EXIT"),
                (0x60, "LDG.E.128 R4, desc[UR4][R2.64]"),
                (0x70, "FMUL R4, R4, R5"),
                (0x80, "FMUL R4, R4, R5"),
                (0x90, "STG.E.128 desc[UR4][R6.64], R4"),
                (0xA0, "@P1 BRA 0x60"),
                (0xB0, "EXIT"),
                (0xC0, "BRA 0xc0"),
            ],
        )
        e = sr.analyze("nvfp4_quantize", sr.parse_sass(text)["nvfp4_quantize"])
        self.assertEqual((e.hot, e.hot_instrs, e.alt_instrs), ("loop", 3, 5))
        # Per byte of what 16 bytes of f32 make: 4 codes of 4 bits and a
        # quarter of a scale byte, 2.25 bytes.
        self.assertIn("| 1.33 out | 2.22 |", sr.entry_table({"n": e}, False))

    def test_a_writers_hot_path_loads(self):
        # An outer loop whose own body only stores (what ptxas lays out
        # after an inner loop) stores more than the inner loop, which loads
        # and stores: the inner loop is the hot path.
        text = function(
            "pack_u8_w4",
            [
                (0x00, "IADD3 R9, R9, 0x1, RZ"),
                (0x10, "LDG.E.128 R4, desc[UR4][R2.64]"),
                (0x20, "STG.E.128 desc[UR4][R6.64], R4"),
                (0x30, "@P1 BRA 0x10"),
                (0x40, "STG.E.128 desc[UR4][R8.64], R4"),
                (0x50, "STG.E.128 desc[UR4][R8.64+0x10], R4"),
                (0x60, "@P2 BRA 0x00"),
                (0x70, "EXIT"),
                (0x80, "BRA 0x80"),
            ],
        )
        e = sr.analyze("pack_u8_w4", sr.parse_sass(text)["pack_u8_w4"])
        self.assertEqual((e.hot, e.hot_instrs, e.hot_stored, e.hot_loaded), ("loop", 3, 16, 16))

    def test_quantize_bytes_out_per_byte_in(self):
        self.assertEqual(sr.quantize_out_per_in("nvfp4_quantize"), (0.5 + 1 / 16) / 4)
        self.assertEqual(sr.quantize_out_per_in("nvfp4_quantize_bf16"), (0.5 + 1 / 16) / 2)
        self.assertEqual(sr.quantize_out_per_in("mx_quantize_e2m3_f16"), (0.75 + 1 / 32) / 2)
        self.assertEqual(sr.quantize_out_per_in("mx_quantize_e4m3"), (1 + 1 / 32) / 4)
        self.assertIsNone(sr.quantize_out_per_in("mx_dequantize_e4m3"))
        self.assertIsNone(sr.quantize_out_per_in("encode_e2m1_f32"))

    def test_code_after_an_out_of_line_function_can_be_hot(self):
        # ptxas may place a called function (0x20..0x50, to its RET) before
        # the entry's main loop (0x60..0x90): the loop is still hot.
        text = function(
            "unpack_u8_w3",
            [
                (0x00, "@P0 CALL.REL.NOINC 0x20"),
                (0x10, "BRA 0x60"),
                (0x20, "STG.E.64 desc[UR4][R6.64], R4"),
                (0x30, "STG.E.64 desc[UR4][R6.64+0x8], R4"),
                (0x40, "@P2 BRA 0x20"),
                (0x50, "RET.REL.NODEC R20 0x0"),
                (0x60, "LDG.E.128 R4, desc[UR4][R2.64]"),
                (0x70, "STG.E.128 desc[UR4][R6.64], R4"),
                (0x80, "IADD3 R0, R0, 0x1, RZ"),
                (0x90, "@P1 BRA 0x60"),
                (0xA0, "EXIT"),
                (0xB0, "BRA 0xb0"),
            ],
        )
        e = sr.analyze("unpack_u8_w3", sr.parse_sass(text)["unpack_u8_w3"])
        self.assertEqual((e.hot, e.hot_instrs, e.hot_stored, e.hot_loaded), ("loop", 4, 16, 16))
        # A `CALL` to the entry's own next block (ptxas does this) reaches
        # code with an `EXIT` before any `RET`: not a function.
        text = function(
            "unpack_u8_w3",
            [
                (0x00, "@P0 CALL.REL.NOINC 0x20"),
                (0x10, "BRA 0x80"),
                (0x20, "LDG.E.128 R4, desc[UR4][R2.64]"),
                (0x30, "STG.E.128 desc[UR4][R6.64], R4"),
                (0x40, "@P1 BRA 0x20"),
                (0x50, "EXIT"),
                (0x60, "RET.REL.NODEC R20 0x0"),
                (0x80, "EXIT"),
                (0x90, "BRA 0x90"),
            ],
        )
        e = sr.analyze("unpack_u8_w3", sr.parse_sass(text)["unpack_u8_w3"])
        self.assertEqual((e.hot, e.hot_instrs, e.hot_stored), ("loop", 3, 16))

    def test_a_copy_calling_out_of_line_per_value_is_not_cheap(self):
        # Two copies of a loop that move the same bytes: the first calls a
        # function (0x80..0xd0, a predicated EXIT inside it) once per value;
        # counting the callee it is the costlier, so the second is hot.
        body = [
            (0x00, "@P0 BRA 0x40"),
            (0x10, "LDG.E.128 R4, desc[UR4][R2.64]"),
            (0x18, "CALL.REL.NOINC 0x80"),
            (0x20, "STG.E.128 desc[UR4][R6.64], R4"),
            (0x28, "@P1 BRA 0x10"),
            (0x30, "EXIT"),
            (0x40, "LDG.E.128 R4, desc[UR4][R2.64]"),
            (0x48, "FMUL R4, R4, R5"),
            (0x50, "FMUL R4, R4, R5"),
            (0x58, "STG.E.128 desc[UR4][R6.64], R4"),
            (0x60, "@P1 BRA 0x40"),
            (0x68, "EXIT"),
            (0x70, "BRA 0x70"),
        ] + [(0x80 + 8 * k, "FFMA R4, R4, R5, R6") for k in range(8)] + [
            (0xC0, "@P3 EXIT"),
            (0xD0, "RET.REL.NODEC R20 0x0"),
        ]
        text = function("nvfp4_quantize", body)
        e = sr.analyze("nvfp4_quantize", sr.parse_sass(text)["nvfp4_quantize"])
        self.assertEqual((e.hot_instrs, e.calls_in_hot), (5, 0))
        self.assertEqual(e.alt_instrs, 4 + 10)

    def test_reduction_takes_the_loading_loop_per_byte_read(self):
        e = entries()["sum_w1"]
        self.assertEqual(e.hot, "loop")
        self.assertEqual((e.hot_instrs, e.hot_loaded, e.hot_stored), (4, 8, 0))
        self.assertEqual(e.basis, "in")
        self.assertAlmostEqual(e.per_byte, 0.5)


class Limits(unittest.TestCase):
    def setUp(self):
        self.results = {"sm_90": entries(), "sm_80": entries()}
        self.found = sr.violations(self.results)

    def test_what_breaks(self):
        self.assertEqual(
            sorted(self.found),
            [
                ("byte-store-loop", "unpack_u8_w3"),
                ("f64", "decode_e4m3_f32"),
                ("ldg128", "sum_w1"),
                ("ldg128", "unpack_u8_w3"),
                ("local", "decode_e4m3_f32"),
                ("stg128", "unpack_u8_w3"),
            ],
        )
        self.assertEqual(self.found[("f64", "decode_e4m3_f32")], ["sm_90", "sm_80"])

    def test_new_and_stale(self):
        exempt = set(self.found) - {("f64", "decode_e4m3_f32")} | {("local", "sum_w1")}
        problems = sr.check_limits(self.found, exempt)
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("new violation: decode_e4m3_f32 breaks 'f64' on sm_90, sm_80", problems[0])
        self.assertIn("stale exemption: sum_w1 no longer breaks 'local'", problems[1])
        self.assertEqual(sr.check_limits(self.found, set(self.found)), [])

    def test_store_stride(self):
        def entry(name, stores):
            body = [(0x00, "S2R R0, SR_TID.X"), (0x10, "LDG.E.128 R4, desc[UR4][R2.64]")]
            body += [(0x20 + 0x10 * k, st) for k, st in enumerate(stores)]
            end = 0x20 + 0x10 * len(stores)
            body += [(end, "@P0 BRA 0x10"), (end + 0x10, "EXIT"), (end + 0x20, f"BRA {hex(end + 0x20)}")]
            return sr.analyze(name, sr.parse_sass(function(name, body))[name])

        # One chunk per thread an iteration (plus a scale word): 4 lines.
        one = entry("decode_e2m1_f32", ["STG.E.128 desc[UR4][R6.64], R4", "STG.E desc[UR4][R8.64], R9"])
        self.assertEqual((one.store_run, one.store_lines), (1, 4))
        self.assertEqual(sr.violations({"sm_90": {"d": one}}), {})
        # A warp-interleaved store (steps 512 bytes apart): still 4 lines.
        inter = entry(
            "mx_quantize_e4m3",
            ["STG.E.128 desc[UR4][R6.64], R4", "STG.E.128 desc[UR4][R6.64+0x200], R8"],
        )
        self.assertEqual((inter.store_run, inter.store_lines), (1, 4))
        self.assertEqual(sr.violations({"sm_90": {"q": inter}}), {})
        # Eight neighbouring chunks per thread: neighbours 128 bytes apart.
        eight = entry(
            "decode_e2m1_f32",
            [f"STG.E.128 desc[UR4][R6.64{'+' + hex(16 * k) if k else ''}], R4" for k in range(8)],
        )
        self.assertEqual((eight.store_run, eight.store_lines), (8, 32))
        self.assertEqual(
            sr.violations({"sm_90": {"d": eight}}), {("store-stride", "decode_e2m1_f32"): ["sm_90"]}
        )
        # Through two address registers: no run (their relation is unknown).
        two = entry(
            "mx_quantize_e2m1_f16",
            ["STG.E.128 desc[UR4][R6.64], R4", "STG.E.128 desc[UR4][R10.64+0x10], R8"],
        )
        self.assertEqual(two.store_run, 1)
        # A reduction stores no chunk: no figure, no violation.
        self.assertIsNone(sr.Entry("sum_w4").store_lines)

    def test_limits_file(self):
        text = "# comment\n\nlocal  mx_decode_e2m1   # why\nf64 nvfp4_encode\n"
        self.assertEqual(
            sr.parse_limits(text), {("local", "mx_decode_e2m1"), ("f64", "nvfp4_encode")}
        )
        for bad in ["spill x\n", "local\n", "local a b\n"]:
            with self.assertRaises(ValueError) as cm:
                sr.parse_limits(bad)
            self.assertIn("line 1", str(cm.exception))


class Roofline(unittest.TestCase):
    def test_issue_rate(self):
        self.assertAlmostEqual(sr.thread_instructions_per_second() / 1e13, 3.345, places=3)

    def test_nominal_traffic(self):
        cases = {
            "unpack_u8_w3": 1 + 3 / 8,
            "unpack_u32_w17": 1 + 17 / 32,
            "pack_u8_w4": 3.0,
            "pack_u32_w16": 3.0,
            "sum_w5": 1.0,
            "decode_e2m1_f32": 1 + 0.5 / 4,
            "decode_e4m3_bf16": 1.5,
            "encode_e2m1_satfinite": 9.0,
            "mx_encode_e4m3": 1 + 4 / (1 + 1 / 32),
            "nvfp4_decode": 1 + (0.5 + 1 / 16) / 4,
            "mx_quantize_e4m3": 1 + 4 / (1 + 1 / 32),
            "mx_quantize_e2m1_bf16": 1 + 2 / (0.5 + 1 / 32),
            "nvfp4_quantize_f16": 1 + 2 / (0.5 + 1 / 16),
            "nvfp4_quantize": 1 + 4 / (0.5 + 1 / 16),
            "mx_dequantize_e2m1": 1 + (0.5 + 1 / 32) / 4,
            "nvfp4_dequantize": 1 + (0.5 + 1 / 16) / 4,
        }
        for name, want in cases.items():
            self.assertAlmostEqual(sr.nominal_traffic(name), want, msg=name)
        self.assertIsNone(sr.nominal_traffic("scale_e2m1"))

    def test_memory_and_issue_bound(self):
        e = sr.Entry("unpack_u8_w3", hot="straight", hot_instrs=9, hot_stored=4, hot_loaded=4)
        r = sr.roofline(e)
        self.assertEqual(r.bound, "memory")  # 2.25 instr/B is cheap
        self.assertAlmostEqual(r.share, 1.0)
        self.assertAlmostEqual(r.gb_per_s, 4800 / 1.375)
        e.hot_instrs = 400  # 100 instr/B
        r = sr.roofline(e)
        self.assertEqual(r.bound, "issue")
        self.assertAlmostEqual(r.gb_per_s, 3.345e13 / 100 / 1e9, delta=0.5)
        self.assertAlmostEqual(r.share, (1.375 / 4.8e12) / (100 / 3.345e13), places=3)

    def test_unknown_entry_uses_its_own_sectors(self):
        # 4 bytes loaded and stored per thread: a warp moves 4 + 4 sectors.
        e = sr.Entry("scale_e2m1", hot="straight", hot_instrs=40, hot_stored=4, hot_loaded=4)
        r = sr.roofline(e)
        self.assertAlmostEqual(r.memory_s_per_byte, 2 / 4.8e12)
        e = sr.Entry("x", hot="straight", hot_instrs=1)
        self.assertIsNone(sr.roofline(e))


class Report(unittest.TestCase):
    def test_before_section_is_kept(self):
        results = {"sm_90": entries()}
        before = sr.before_section(results, ["sm_90"], "The first kernels.")
        text = sr.render(results, ["sm_90"], "ptxas V1", before)
        self.assertEqual(sr.kept_before(text), before)
        self.assertIn("| `unpack_u8_w3` | 32 | 0 | 0 | 5 (1) |", text)
        self.assertIn("## sm_90 (H200 roofline)", text)
        # Regenerated with other figures, the Before section stays.
        results["sm_90"]["unpack_u8_w3"].hot_instrs = 99
        again = sr.render(results, ["sm_90"], "ptxas V1", sr.kept_before(text))
        self.assertEqual(sr.kept_before(again), before)
        self.assertNotEqual(again, text)
        self.assertIsNone(sr.kept_before("no markers"))

    def test_per_entry_before_is_kept_and_quoted(self):
        results = {"sm_90": entries()}
        before = sr.before_section(results, ["sm_90"], "The first kernels.")
        old = entries()
        old["unpack_u8_w3"].hot_instrs = 400
        before = sr.with_before_entries(before, "Commit abc, before the rewrite.", old)
        self.assertEqual(sr.kept_before(before), before)
        kept = sr.parse_before_entries(before)
        self.assertEqual(kept["unpack_u8_w3"][0], "100.00")
        self.assertNotIn("sum_partials_x", kept)
        text = sr.render(results, ["sm_90"], "ptxas V1", before)
        row = next(ln for ln in text.splitlines() if ln.startswith("| `unpack_u8_w3` | 32"))
        self.assertTrue(row.endswith(f" {kept['unpack_u8_w3'][0]}, {kept['unpack_u8_w3'][1]}, {kept['unpack_u8_w3'][2]} |"), row)
        # Adding it again replaces the table instead of appending a second.
        again = sr.with_before_entries(before, "Commit abc, before the rewrite.", old)
        self.assertEqual(again.count(sr.PER_ENTRY_HEAD), 1)

    def test_summary_counts(self):
        s = sr.summary({"sm_90": entries()}, ["sm_90"])
        row = s.splitlines()[2]
        # local, f64, byte-store-loop, ldg128, stg128, store-stride
        self.assertTrue(row.startswith("| sm_90 | 1 | 1 | 1 | 2 | 1 | 0 |"), row)


if __name__ == "__main__":
    unittest.main()
