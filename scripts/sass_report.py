#!/usr/bin/env python3
"""The static GPU performance report of the committed PTX: bitpack/ptx/SASS.md.

For each PTX file (bitpack/ptx/bitpack-TARGET.ptx) it runs `ptxas -arch=TARGET`
and `cuobjdump -sass` / `cuobjdump -res-usage` on the cubin, and for each entry
counts, in the machine code (SASS):

- 128-bit global loads and stores (`LDG.E.128`, `STG.E.128`; 256-bit ones
  count too), byte-wise global stores (`STG.E.U8`/`.S8`), local memory
  (`LDL`/`STL`: spills or a stack array), f64 instructions (`DADD`, `DMUL`,
  `DFMA`, `DSETP`, ..., `F2F.F64.*`, `F2F.*.F64`, `MUFU.RCP64H`, ...), and
  registers;
- the hot loop and its SASS instructions per byte (see "Method" in
  METHOD below, which is also written into SASS.md).

It then checks the limits (LIMITS below) against the exemptions of
bitpack/ptx/SASS-LIMITS and fails on a new violation or on an exemption
that no target needs any more.

    scripts/sass_report.py --bin DIR [--ptx-dir bitpack/ptx] [--out FILE]
                           [--limits FILE] [--update] [--baseline NOTE]
    scripts/sass_report.py --bin DIR --print-violations   # SASS-LIMITS lines

DIR holds `ptxas` and `cuobjdump` (the registry packages nvidia-cuda-nvcc
and nvidia-cuda-cuobjdump). Without --update the generated report must equal
--out (default bitpack/ptx/SASS.md). --baseline NOTE (with --update) writes
the current figures as the "Before" section, NOTE naming them; otherwise
that section is carried over from the existing file unchanged, so a
regeneration shows before and after side by side.

Standard library only; scripts/test_sass_report.py tests it on canned SASS.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

# ---- the machine the roofline estimate is for ----

#: NVIDIA H200 (GH100, sm_90): 132 SMs at about 1.98 GHz boost, 4 SM
#: sub-partitions each issuing one warp instruction per clock, HBM3e at
#: 4.8 TB/s.
H200 = {
    "name": "H200",
    "target": "sm_90",
    "sms": 132,
    "clock_hz": 1.98e9,
    "issue_per_sm_clock": 4,
    "hbm_bytes_per_s": 4.8e12,
}


def thread_instructions_per_second(gpu: dict = H200) -> float:
    """Thread-instructions per second: warp instructions issued x 32 lanes."""
    return gpu["sms"] * gpu["issue_per_sm_clock"] * gpu["clock_hz"] * 32


# ---- parsing ----

FUNC_RE = re.compile(r"^\s*Function\s*:\s*(\S+)")
# `/*0110*/   @!P0 BRA 0xba0 ;` (the encoding comments `/* 0x... */` have a
# space after `/*` and never match).
INSTR_RE = re.compile(
    r"^\s*/\*([0-9a-f]+)\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\s*([^;]*);"
)
RES_FUNC_RE = re.compile(r"^\s*Function\s+(\S+):")
RES_REG_RE = re.compile(r"\bREG:(\d+)")


@dataclass
class Instr:
    """One SASS instruction: its address, guard predicate, opcode with
    modifiers (`STG.E.U8`) and operand text."""

    addr: int
    pred: str
    opcode: str
    operands: str

    @property
    def base(self) -> str:
        """The opcode without modifiers: `STG` of `STG.E.U8`."""
        return self.opcode.split(".")[0]

    @property
    def mods(self) -> list[str]:
        return self.opcode.split(".")[1:]


def parse_sass(text: str) -> dict[str, list[Instr]]:
    """The instructions of each function of `cuobjdump -sass` output."""
    funcs: dict[str, list[Instr]] = {}
    cur: list[Instr] | None = None
    for line in text.splitlines():
        m = FUNC_RE.match(line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = INSTR_RE.match(line)
        if m and cur is not None:
            cur.append(
                Instr(int(m.group(1), 16), (m.group(2) or "").strip(), m.group(3), m.group(4).strip())
            )
    return funcs


def parse_res_usage(text: str) -> dict[str, int]:
    """Registers per function from `cuobjdump -res-usage`."""
    regs: dict[str, int] = {}
    cur = None
    for line in text.splitlines():
        m = RES_FUNC_RE.match(line)
        if m:
            cur = m.group(1)
            continue
        m = RES_REG_RE.search(line)
        if m and cur is not None:
            regs[cur] = int(m.group(1))
            cur = None
    return regs


# ---- classification ----

GLOBAL_LOADS = {"LDG", "LD"}  # LD: a generic address, global in these kernels
GLOBAL_STORES = {"STG", "ST"}
LOCAL = {"LDL", "STL"}
F64_OPS = {"DADD", "DMUL", "DFMA", "DSETP", "DSET", "DMNMX", "DMMA"}
CONVERSIONS = {"F2F", "F2I", "I2F", "FRND"}


def access_bytes(ins: Instr) -> int:
    """Bytes per thread of a load or store: `.U8`/`.S8` 1, `.U16`/`.S16` 2,
    none 4, `.64` 8, `.128` 16, `.256` 32."""
    widths = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "64": 8, "128": 16, "256": 32}
    for m in ins.mods:
        if m in widths:
            return widths[m]
    return 4


def is_f64(ins: Instr) -> bool:
    """A double-precision instruction (the f64 pipe is 1/64 of f32 on
    consumer parts and never needed by these kernels)."""
    if ins.base in F64_OPS:
        return True
    if ins.base in CONVERSIONS and "F64" in ins.mods:
        return True
    return ins.base == "MUFU" and any("64" in m for m in ins.mods)


def branch_target(ins: Instr) -> int | None:
    """The target address of a direct branch (`BRA 0xba0`) or call
    (`CALL.REL.NOINC 0x970`), else None."""
    if ins.base not in ("BRA", "CALL"):
        return None
    m = re.match(r"(?:`\()?0x([0-9a-f]+)", ins.operands.split(",")[-1].strip())
    return int(m.group(1), 16) if m else None


# ---- analysis ----


@dataclass
class Loop:
    start: int
    end: int
    instrs: list[Instr]

    @property
    def count(self) -> int:
        return len(self.instrs)

    def stored(self) -> int:
        return sum(access_bytes(i) for i in self.instrs if i.base in GLOBAL_STORES)

    def loaded(self) -> int:
        return sum(access_bytes(i) for i in self.instrs if i.base in GLOBAL_LOADS)


def loops(instrs: list[Instr]) -> list[Loop]:
    """Every backward-branch region [target, branch] (a loop), one per
    target (its last back edge); a branch to itself (the `BRA` after the
    final `EXIT`) is no loop."""
    ends: dict[int, int] = {}
    for ins in instrs:
        t = branch_target(ins) if ins.base == "BRA" else None
        if t is not None and t < ins.addr:
            ends[t] = max(ends.get(t, t), ins.addr)
    return [
        Loop(s, e, [i for i in instrs if s <= i.addr <= e and i.base != "NOP"])
        for s, e in sorted(ends.items())
    ]


@dataclass
class Entry:
    """The figures of one entry on one target."""

    name: str
    regs: int | None = None
    ldg128: int = 0
    stg128: int = 0
    byte_stores: int = 0
    byte_stores_in_loop: int = 0
    local: int = 0
    f64: int = 0
    f64_ops: list[str] = field(default_factory=list)
    #: The hot path: "loop" or "straight" (no loop: the whole entry).
    hot: str = "straight"
    hot_instrs: int = 0
    hot_stored: int = 0
    hot_loaded: int = 0
    calls_in_hot: int = 0

    @property
    def basis(self) -> str:
        """What the per-byte figure divides by: "out" (bytes stored per
        iteration), "in" (bytes loaded, for reductions) or "" (neither)."""
        if self.hot_stored:
            return "out"
        return "in" if self.hot_loaded else ""

    #: Instructions of the costliest other path that moves the same bytes as
    #: the hot path (a run-time mode's copy of the loop), 0 if none.
    alt_instrs: int = 0
    #: The longest run of the hot path's 128-bit stores through one address
    #: register at offsets 16 bytes apart: chunks one thread stores next to
    #: each other in an iteration (0: no 128-bit store in the hot path).
    store_run: int = 0

    @property
    def store_lines(self) -> int | None:
        """128-byte lines one warp store instruction of the hot path touches
        when each thread stores `store_run` consecutive chunks an iteration
        and the lanes take consecutive runs: 4 at one chunk per thread (a
        warp covers 512 contiguous bytes), 4k at k chunks, up to 32."""
        if not self.store_run:
            return None
        return min(32, 4 * self.store_run)

    @property
    def basis_bytes(self) -> float:
        """What the per-byte figures divide by, per iteration of the hot
        path: the bytes stored, or for a quantize entry the bytes its loads
        make (codes and one scale per block: one lane in 2 or 4 stores the
        scales' word, so the stores overcount them), or the bytes loaded
        for a reduction; 0 when none."""
        ratio = quantize_out_per_in(self.name)
        if ratio is not None and self.hot_loaded:
            return self.hot_loaded * ratio
        return self.hot_stored or self.hot_loaded

    @property
    def per_byte(self) -> float | None:
        """SASS instructions per byte of the hot path (of `basis_bytes`)."""
        b = self.basis_bytes
        return self.hot_instrs / b if b else None


QUANTIZE = re.compile(r"(?:mx_quantize_(e\dm\d)|nvfp4_quantize)(?:_(f16|bf16))?")


def quantize_out_per_in(name: str) -> float | None:
    """Bytes a quantize entry writes (codes and scales) per byte it reads;
    None for any other entry."""
    m = QUANTIZE.fullmatch(name)
    if not m:
        return None
    out = (FORMAT_BITS[m.group(1)] / 8 + 1 / 32) if m.group(1) else (0.5 + 1 / 16)
    return out / (2 if m.group(2) else 4)


ADDR_RE = re.compile(r"\[(R\d+)(?:\.64)?(?:\+(0x[0-9a-f]+))?\]")


def store_run(instrs: list[Instr]) -> int:
    """The longest run of 128-bit global stores through one address register
    whose offsets are 16 bytes apart (a thread's neighbouring chunks). A
    warp-interleaved store (offsets 512 apart: lane `l` of step `i` at chunk
    `32i + l`) is a run of one."""
    offsets: dict[str, set[int]] = {}
    for i in instrs:
        if i.base in GLOBAL_STORES and access_bytes(i) >= 16:
            ms = ADDR_RE.findall(i.operands)
            if ms:
                reg, off = ms[-1]
                offsets.setdefault(reg, set()).add(int(off, 16) if off else 0)
    best = 0
    for offs in offsets.values():
        for o in offs:
            if o - 16 in offs:
                continue
            k = 1
            while o + 16 * k in offs:
                k += 1
            best = max(best, k)
    return best


def analyze(name: str, instrs: list[Instr], regs: int | None = None) -> Entry:
    e = Entry(name, regs)
    body = [i for i in instrs if i.base != "NOP"]
    # Out-of-line functions (`#[inline(never)]`: the rare paths) are placed
    # in the entry's code, each from a call target to its first `RET`. Their
    # instructions count for the limits, but no hot path is taken from them.
    # (A region with an unconditional `EXIT` in it is the entry's own code,
    # which ptxas sometimes reaches through a `CALL` to the next block.)
    targets = sorted({t for i in body if i.base == "CALL" and (t := branch_target(i)) is not None})
    rets = [i.addr for i in body if i.base == "RET"]
    exits = [i.addr for i in body if i.base == "EXIT" and not i.pred]
    callees = [
        (t, r)
        for t in targets
        if (r := next((r for r in rets if r >= t), None)) is not None
        and not any(t <= x <= r for x in exits)
    ]

    def in_callee(addr: int) -> bool:
        return any(a <= addr <= b for a, b in callees)

    ls = loops(body)
    in_loop = {i.addr for lp in ls for i in lp.instrs}
    for i in body:
        w = access_bytes(i) if i.base in GLOBAL_LOADS | GLOBAL_STORES else 0
        if i.base in GLOBAL_LOADS and w >= 16:
            e.ldg128 += 1
        if i.base in GLOBAL_STORES and w >= 16:
            e.stg128 += 1
        if i.base in GLOBAL_STORES and w == 1:
            e.byte_stores += 1
            if i.addr in in_loop:
                e.byte_stores_in_loop += 1
        if i.base in LOCAL:
            e.local += 1
        if is_f64(i):
            e.f64 += 1
            if i.opcode not in e.f64_ops:
                e.f64_ops.append(i.opcode)
    # Each loop's own body: its instructions but those of the loops nested
    # in it (whose trip counts are unknown). An innermost loop's own body
    # is all of it.
    own = []
    for lp in ls:
        if in_callee(lp.start):
            continue
        nested = [b for b in ls if b is not lp and lp.start <= b.start and b.end <= lp.end]
        body_ = [i for i in lp.instrs if not any(b.start <= i.addr <= b.end for b in nested)]
        own.append((Loop(lp.start, lp.end, body_), "loop" if not nested else "outer loop"))
    # The straight-line path: every instruction in no loop (the trailing
    # branch to itself left out). One-chunk-per-thread kernels do their bulk
    # work here, with a loop only for the tail.
    straight = Loop(
        -1,
        -1,
        [
            i
            for i in body
            if i.addr not in in_loop
            and branch_target(i) != i.addr
            and not in_callee(i.addr)
        ],
    )
    # A reduction (sum, amax, the scale passes) writes a few partials once:
    # its hot path is the one that loads the most, and its figures are per
    # byte read.
    reduction = bool(REDUCTION.fullmatch(name))
    cands = own + [(straight, "straight")]

    def shape(c: tuple[Loop, str]) -> tuple:
        moved = (c[0].loaded(), c[0].stored()) if reduction else (c[0].stored(), c[0].loaded())
        # A writer's hot path loads what it writes: an outer loop's own
        # body that only stores (the tails of loops ptxas lays out across
        # its range) is not it while a path that loads and stores exists.
        both = reduction or (c[0].loaded() > 0 and c[0].stored() > 0)
        return (both, *moved, c[1] != "straight", c[1] == "loop")

    # Of the paths that move the most, the shortest: an entry with a mode
    # chosen at run time (stochastic rounding) keeps a copy of its loop per
    # mode, and the default one is the cheapest; the others are `alt`.
    # A path's cost counts each function it calls (to its `RET`), so that
    # a copy whose per-value work is out of line is not taken for cheap.
    callee_len = {
        a: sum(1 for i in body if a <= i.addr <= b) for a, b in callees
    }

    def cost(c: tuple[Loop, str]) -> int:
        calls = [branch_target(i) for i in c[0].instrs if i.base == "CALL"]
        return c[0].count + sum(callee_len.get(t, 0) for t in calls if t is not None)

    top = max(shape(c) for c in cands)
    tied = [c for c in cands if shape(c) == top]
    hot, kind = min(tied, key=cost)
    alts = [cost(c) for c in tied if c[0] is not hot]
    e.alt_instrs = max(alts) if alts else 0
    e.hot = kind
    e.hot_instrs = hot.count
    e.hot_loaded = hot.loaded()
    e.hot_stored = 0 if reduction and e.hot_loaded else hot.stored()
    e.calls_in_hot = sum(1 for i in hot.instrs if i.base == "CALL")
    e.store_run = store_run(hot.instrs)
    return e


@dataclass
class Roofline:
    compute_s_per_byte: float
    memory_s_per_byte: float

    @property
    def bound(self) -> str:
        return "issue" if self.compute_s_per_byte > self.memory_s_per_byte else "memory"

    @property
    def share(self) -> float:
        """The share of HBM (copy) bandwidth the entry can reach."""
        return self.memory_s_per_byte / max(self.compute_s_per_byte, self.memory_s_per_byte)

    @property
    def gb_per_s(self) -> float:
        """Bytes of the basis (output, or input for a reduction) per second, in GB/s."""
        return 1e-9 / max(self.compute_s_per_byte, self.memory_s_per_byte)


#: Entries whose figures are per byte read (they write a few partials).
REDUCTION = re.compile(r"sum_w\d+|sum_partials|amax_partials|mx_scales_\w+|nvfp4_scales")
FORMAT_BITS = {"e2m1": 4, "e2m3": 6, "e3m2": 6, "e4m3": 8, "e5m2": 8, "e8m0": 8}
OUT_BYTES = {"f32": 4, "f16": 2, "bf16": 2}


def nominal_traffic(name: str) -> float | None:
    """Bytes read + written in DRAM per byte of the basis (output; input
    for sum, amax and the scale passes), from what the entry computes: the
    data each element needs once, rounded to sectors over a whole array
    (so exactly the bytes). None for an entry this table does not know."""
    m = re.fullmatch(r"unpack_u(8|16|32)_w(\d+)", name)
    if m:  # w bits in, 1/2/4 bytes out per element
        return 1 + int(m.group(2)) / int(m.group(1))
    m = re.fullmatch(r"pack_u(8|32)_w(\d+)", name)
    if m:
        return 1 + int(m.group(1)) / int(m.group(2))
    if REDUCTION.fullmatch(name):
        return 1.0
    m = re.fullmatch(r"decode_(e\dm\d)_(f32|f16|bf16)", name)
    if m:
        return 1 + FORMAT_BITS[m.group(1)] / 8 / OUT_BYTES[m.group(2)]
    m = re.fullmatch(r"encode_(e\dm\d)_\w+", name)
    if m:
        return 1 + 32 / FORMAT_BITS[m.group(1)]
    m = re.fullmatch(r"(?:mx_(?:encode|quantize)_(e\dm\d)|nvfp4_(?:encode|quantize))(?:_(f16|bf16))?", name)
    if m:  # f32 (f16, bf16) in; elements and one scale byte per 32 (NVFP4: per 16) out
        out = (FORMAT_BITS[m.group(1)] / 8 + 1 / 32) if m.group(1) else (0.5 + 1 / 16)
        return 1 + (2 if m.group(2) else 4) / out
    m = re.fullmatch(r"mx_(?:decode|dequantize)_(e\dm\d)|nvfp4_(?:decode|dequantize)", name)
    if m:  # the reverse, f32 out
        packed = (FORMAT_BITS[m.group(1)] / 8 + 1 / 32) if m.group(1) else (0.5 + 1 / 16)
        return 1 + packed / 4
    return None


def roofline(e: Entry, gpu: dict = H200) -> Roofline | None:
    """time per byte = max(instructions per byte / issue rate, bytes moved per
    byte / HBM bandwidth). Bytes moved: `nominal_traffic` of the entry, or
    for an entry it does not know the hot path's loads + stores, each in
    whole 32-byte sectors of a warp of contiguous lanes."""
    if e.per_byte is None:
        return None
    moved = nominal_traffic(e.name)
    if e.basis != ("in" if REDUCTION.fullmatch(e.name) else "out"):
        moved = None  # the table's basis is not the hot path's
    if moved is None:
        basis = e.hot_stored or e.hot_loaded

        def sectors(per_thread: int) -> int:
            return -(-per_thread * 32 // 32) * 32  # a warp's bytes, rounded up to sectors

        moved = (sectors(e.hot_loaded) + sectors(e.hot_stored)) / (32 * basis)
    return Roofline(
        e.per_byte / thread_instructions_per_second(gpu), moved / gpu["hbm_bytes_per_s"]
    )


# ---- limits ----

BULK = re.compile(r"^(unpack_|pack_|decode_|encode_|sum_w|amax_partials|mx_|nvfp4_)")
BULK_WRITER = re.compile(
    r"^(unpack_|pack_|decode_|encode_|mx_encode_|mx_decode_|mx_quantize_|mx_dequantize_"
    r"|nvfp4_encode|nvfp4_decode|nvfp4_quantize|nvfp4_dequantize)"
)

#: (name, what it requires, test: Entry -> violated?)
LIMITS = [
    ("local", "no local memory (`LDL`/`STL`) in any entry", lambda e: e.local > 0),
    ("f64", "no f64 instruction in any entry", lambda e: e.f64 > 0),
    (
        "byte-store-loop",
        "no byte-wise global store (`STG.E.U8`/`.S8`) inside a loop",
        lambda e: e.byte_stores_in_loop > 0,
    ),
    (
        "ldg128",
        "a 128-bit global load in every bulk entry (unpack, pack, decode, encode, sum, amax, "
        "MX and NVFP4 scales, quantize and decode)",
        lambda e: bool(BULK.match(e.name)) and e.ldg128 == 0,
    ),
    (
        "stg128",
        "a 128-bit global store in every bulk entry that writes an array (all of the above "
        "but sum, amax and the scales)",
        lambda e: bool(BULK_WRITER.match(e.name)) and e.stg128 == 0,
    ),
]
LIMITS.append(
    (
        "store-stride",
        "no thread of a bulk writer stores two neighbouring 16-byte chunks in an iteration of "
        "its hot path (two `STG.128` through one address register 16 bytes apart), so the "
        "lanes of a warp store consecutive chunks and one store instruction covers 512 "
        "contiguous bytes (4 lines of 128 B; a thread storing k neighbouring chunks puts its "
        "neighbours 16k bytes apart, and the warp's store touches up to 32 lines)",
        lambda e: bool(BULK_WRITER.match(e.name)) and e.store_run > 1,
    )
)
LIMIT_NAMES = [n for n, _, _ in LIMITS]


def violations(results: dict[str, dict[str, Entry]]) -> dict[tuple[str, str], list[str]]:
    """(limit, entry) -> the targets where the entry breaks the limit."""
    out: dict[tuple[str, str], list[str]] = {}
    for target, entries in results.items():
        for e in entries.values():
            for name, _, broken in LIMITS:
                if broken(e):
                    out.setdefault((name, e.name), []).append(target)
    return out


def parse_limits(text: str) -> set[tuple[str, str]]:
    """The exemptions of SASS-LIMITS: `LIMIT ENTRY` per line, `#` comments."""
    out = set()
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or parts[0] not in LIMIT_NAMES:
            raise ValueError(
                f"SASS-LIMITS line {n}: expected 'LIMIT ENTRY' with LIMIT one of "
                f"{', '.join(LIMIT_NAMES)}, got {line!r}"
            )
        out.add((parts[0], parts[1]))
    return out


def check_limits(
    found: dict[tuple[str, str], list[str]], exempt: set[tuple[str, str]]
) -> list[str]:
    """The problems: violations without an exemption, and exemptions no
    target needs (remove them: the list only shrinks)."""
    problems = []
    for (limit, entry), targets in sorted(found.items()):
        if (limit, entry) not in exempt:
            problems.append(f"new violation: {entry} breaks '{limit}' on {', '.join(targets)}")
    for limit, entry in sorted(exempt - set(found)):
        problems.append(
            f"stale exemption: {entry} no longer breaks '{limit}' on any target; "
            f"remove '{limit} {entry}' from bitpack/ptx/SASS-LIMITS"
        )
    return problems


# ---- the report ----

METHOD = """\
## Method

- **Source**: `ptxas -arch=TARGET bitpack/ptx/bitpack-TARGET.ptx`, then
  `cuobjdump -sass` and `cuobjdump -res-usage` of the cubin.
- **128-bit**: global loads/stores of 16 bytes or more per thread
  (`LDG.E.128`, `STG.E.128`, and 256-bit ones where a target has them).
  `LD`/`ST` (generic addresses) count as global.
- **byte stores**: `STG.E.U8`/`.S8` anywhere in the entry, and (the limit)
  inside any loop.
- **f64**: `DADD`, `DMUL`, `DFMA`, `DSETP`, `DSET`, `DMNMX`, `DMMA`,
  `F2F`/`F2I`/`I2F`/`FRND` with an `.F64` operand, `MUFU.*64*`.
- **Hot path**: every backward branch (`BRA` to a lower address, not to
  itself) closes a loop, the region from its target to the branch. A
  loop's own body is its instructions but those of the loops nested in it;
  the straight-line path is every instruction in no loop. The hot path is,
  of the loops' own bodies (per iteration) and the straight-line path (per
  pass), the one that stores the most bytes, then the one that loads the
  most, then a loop, then an innermost one: a grid-stride kernel's main
  loop, or the unrolled chunk of a one-chunk-per-thread kernel (whose loop
  is only the tail), never in an out-of-line function (from a `CALL`'s
  target to its first `RET`, with no unconditional `EXIT` between); of paths that move the same bytes, the shortest, counting the
  functions it calls (an entry with a mode chosen at run time, stochastic
  rounding, keeps a copy of its loop per mode: **alt** is the instr/B of the
  costliest other copy with its calls, which the roofline does not use). **hot** says which (`outer loop`: a loop with loops
  inside, whose iterations are not counted). **instr/B** = its
  instructions (no `NOP`) / the bytes it stores per thread (`out`), or the
  bytes it loads (`in`) for a path that stores nothing and for a
  reduction (sum, amax, the scale passes: they write a few partials, and
  their hot path is the one that loads the most).
- **lines/STG**: the 128-byte lines one warp store instruction of the hot
  path touches: 4k for the longest run of k 128-bit stores through one
  address register at offsets 16 bytes apart (a thread's neighbouring
  chunks; the lanes take consecutive runs), so 4 for one chunk per thread
  (a warp covers 512 contiguous bytes) and for a warp-interleaved store
  (offsets 512 apart), 32 for a thread that stores 8 neighbouring chunks. On the H200 the wide
  kernels of commit 4516a7b stored 2 to 32 chunks per thread an iteration:
  at 8 lines `unpack_u8_w4` reached 0.84 of copy bandwidth, at 32 lines
  `unpack_u8_w1` 0.21 and `decode_e2m1_f32` 0.13 (`GPU.md`). The roofline
  below does not model this; the `store-stride` limit keeps every bulk
  writer at 4 lines instead.
- **Limits of the method**: a conditional path counts as if always taken
  (the straight-line path includes the setup of the tail, and both sides of
  every branch); a `CALL` (`calls`) is one instruction here although the
  callee runs too; predicated-off instructions still issue, so counting
  them is right for issue time; the hot path is found by shape, not by
  profile. Loads in the hot path may hit L1 (a word read again per
  output): they cost issue slots, counted, but not DRAM traffic.
- **Quantize entries** (`mx_quantize_*`, `nvfp4_quantize*`) count per
  byte of output their hot loop's loads make (each value's code and one
  scale byte per block), not per byte their stores write: the scales go
  out as one `u32` per 2 or 4 lanes, which the stores would count for every
  lane.
- **Roofline (H200)**: 132 SMs x 4 sub-partitions x 1 warp instruction per
  clock at 1.98 GHz = 1.045e12 warp instructions/s, 3.345e13 thread
  instructions/s; HBM3e 4.8 TB/s. Per byte of the basis: issue time =
  instr/B / 3.345e13 s; memory time = bytes moved / 4.8e12 s, bytes moved
  (read + written per byte of the basis) from what the entry computes
  (unpack `u8` w3: 3/8 byte read per byte written, so 1.375; encode to E2M1:
  8 bytes of f32 read per byte written, so 9; a reduction: 1 per byte
  read), which over a whole array is the same count in 32-byte sectors; for
  an entry of no known family, the hot path's own loads and stores, each
  rounded up to whole sectors for a warp of contiguous lanes. time = the
  larger; **GB/s** = basis bytes per second; **share** = memory time / time,
  the fraction of copy (HBM) bandwidth the entry can reach (100% when
  memory-bound). Only issue slots and DRAM bytes are modelled, not the
  memory pipeline: a warp's byte store whose lanes each own a chunk
  touches 32 sectors for 32 bytes (32 L2 transactions), so for entries with
  byte stores or narrow, strided accesses the share is an upper bound
  (the byte-store and 128-bit limits are there for that reason).
"""

LIMITS_DOC = """\
## Limits (checked by `scripts/check-ptx.sh`)

{items}

An entry that breaks a limit must be listed in `bitpack/ptx/SASS-LIMITS`
(`LIMIT ENTRY`, one per line). The check fails on a violation that is not
listed and on a listed exemption that no target needs any more, so the list
only shrinks.
"""

BEFORE_BEGIN = "<!-- before:begin (kept by regenerations; sass_report.py --baseline rewrites it) -->"
BEFORE_END = "<!-- before:end -->"


def fmt(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def summary(results: dict[str, dict[str, Entry]], targets: list[str]) -> str:
    """Per target: entries breaking each limit, and the instr/B and share of
    the bulk entries (median, worst)."""
    lines = [
        "| target | " + " | ".join(LIMIT_NAMES) + " | bulk instr/B median | worst | "
        "H200 share median | worst |",
        "|---" * (len(LIMIT_NAMES) + 5) + "|",
    ]
    for t in targets:
        es = list(results[t].values())
        counts = [sum(1 for e in es if broken(e)) for _, _, broken in LIMITS]
        bulk = [e for e in es if BULK.match(e.name) and e.per_byte is not None]
        pb = [e.per_byte for e in bulk]
        worst = max(bulk, key=lambda e: e.per_byte, default=None)
        shares = [(roofline(e).share, e.name) for e in bulk]
        low = min(shares, default=None)
        lines.append(
            f"| {t} | "
            + " | ".join(str(c) for c in counts)
            + f" | {fmt(statistics.median(pb) if pb else None)}"
            + f" | {fmt(worst.per_byte) + ' `' + worst.name + '`' if worst else '-'}"
            + f" | {fmt(100 * statistics.median(s for s, _ in shares), 0) + '%' if shares else '-'}"
            + f" | {fmt(100 * low[0], 0) + '% `' + low[1] + '`' if low else '-'}"
            + " |"
        )
    return "\n".join(lines)


def entry_table(
    entries: dict[str, Entry], with_roofline: bool, before: dict[str, tuple[str, str, str]] | None = None
) -> str:
    head = (
        "| entry | regs | LDG.128 | STG.128 | STG.U8 (in loop) | LDL/STL | f64 | hot | instr | "
        "B out | B in | instr/B | alt | calls | lines/STG |"
    )
    if with_roofline:
        head += " bound | GB/s | share |"
        if before:
            head += " before: instr/B, lines, share |"
    lines = [head, "|---" * (head.count("|") - 1) + "|"]
    for name in sorted(entries):
        e = entries[name]
        f64 = f"{e.f64} ({', '.join(e.f64_ops[:3])}{', ...' if len(e.f64_ops) > 3 else ''})" if e.f64 else "0"
        pb = e.per_byte
        row = (
            f"| `{e.name}` | {e.regs if e.regs is not None else '-'} | {e.ldg128} | {e.stg128} | "
            f"{e.byte_stores} ({e.byte_stores_in_loop}) | {e.local} | {f64} | {e.hot} | "
            f"{e.hot_instrs} | {e.hot_stored} | {e.hot_loaded} | "
            f"{fmt(pb)}{' ' + e.basis if pb is not None else ''} | "
            f"{fmt(e.alt_instrs / e.basis_bytes) if e.alt_instrs and pb else '-'} | "
            f"{e.calls_in_hot} | "
            f"{e.store_lines if e.store_lines is not None else '-'} |"
        )
        if with_roofline:
            r = roofline(e)
            row += (
                f" {r.bound} | {r.gb_per_s:.0f} | {100 * r.share:.0f}% |"
                if r
                else " - | - | - |"
            )
            if before:
                b = before.get(name)
                row += f" {b[0]}, {b[1]}, {b[2]} |" if b else " (new) |"
        lines.append(row)
    return "\n".join(lines)


def render(
    results: dict[str, dict[str, Entry]],
    targets: list[str],
    tools: str,
    before: str,
) -> str:
    items = "\n".join(f"- `{n}`: {doc}" for n, doc, _ in LIMITS)
    parts = [
        "# SASS of the committed PTX: wide accesses, byte stores, local memory, f64, "
        "instructions per byte",
        "",
        f"Generated by `scripts/sass_report.py` ({tools}) from `bitpack/ptx/bitpack-*.ptx`; "
        "`scripts/check-ptx.sh --update` rewrites it and `scripts/check-ptx.sh` fails when it "
        "is stale or a limit breaks. Do not edit by hand.",
        "",
        "## Before",
        "",
        before.strip(),
        "",
        "## Now",
        "",
        summary(results, targets),
        "",
        LIMITS_DOC.format(items=items).rstrip(),
        "",
        METHOD.rstrip(),
    ]
    for t in targets:
        rl = t == H200["target"]
        parts += [
            "",
            f"## {t}" + (" (H200 roofline)" if rl else ""),
            "",
            entry_table(results[t], rl, parse_before_entries(before) if rl else None),
        ]
    return "\n".join(parts) + "\n"


def before_section(results, targets, note: str) -> str:
    return "\n".join([BEFORE_BEGIN, "", note.strip(), "", summary(results, targets), "", BEFORE_END])


BEFORE_ROW = re.compile(r"^\| `(\w+)` \| ([^|]*) \| ([^|]*) \| ([^|]*) \|$")


def before_entries(entries: dict[str, Entry]) -> str:
    """Per bulk entry of an older PTX on the H200's target: instr/B, the
    lines a warp store touches and the roofline share, as a table that a
    regeneration keeps and the sm_90 table quotes beside today's figures."""
    lines = ["| entry | instr/B | lines/STG | H200 share |", "|---|---|---|---|"]
    for name in sorted(entries):
        e = entries[name]
        if not BULK.match(name):
            continue
        r = roofline(e)
        share = f"{100 * r.share:.0f}%" if r else "-"
        sl = e.store_lines if e.store_lines is not None else "-"
        lines.append(f"| `{name}` | {fmt(e.per_byte)} | {sl} | {share} |")
    return "\n".join(lines)


def with_before_entries(before: str, note: str, entries: dict[str, Entry]) -> str:
    """`before` (markers included) with the per-entry table of `entries`
    (an older PTX) and its note added at the end, replacing an earlier one."""
    body = before[len(BEFORE_BEGIN) : -len(BEFORE_END)]
    cut = body.find(PER_ENTRY_HEAD)
    if cut >= 0:
        body = body[:cut]
    table = before_entries(entries)
    return f"{BEFORE_BEGIN}{body.rstrip()}\n\n{PER_ENTRY_HEAD}\n\n{note.strip()}\n\n{table}\n\n{BEFORE_END}"


PER_ENTRY_HEAD = "### Per entry on sm_90, before"


def parse_before_entries(before: str) -> dict[str, tuple[str, str, str]]:
    """entry -> (instr/B, lines/STG, share) of the kept per-entry table."""
    i = before.find(PER_ENTRY_HEAD)
    if i < 0:
        return {}
    out = {}
    for ln in before[i:].splitlines():
        m = BEFORE_ROW.match(ln.strip())
        if m and m.group(1) != "entry":
            out[m.group(1)] = (m.group(2).strip(), m.group(3).strip(), m.group(4).strip())
    return out


def kept_before(existing: str) -> str | None:
    """The "Before" section of an existing report, markers included."""
    i, j = existing.find(BEFORE_BEGIN), existing.find(BEFORE_END)
    if i < 0 or j < i:
        return None
    return existing[i : j + len(BEFORE_END)]


# ---- running the tools ----


def run_tools(bindir: str, ptx: str, target: str, work: str) -> tuple[str, str]:
    cubin = os.path.join(work, f"{target}.cubin")
    subprocess.run(
        [os.path.join(bindir, "ptxas"), f"-arch={target}", ptx, "-o", cubin], check=True
    )
    cuobjdump = os.path.join(bindir, "cuobjdump")
    sass = subprocess.run([cuobjdump, "-sass", cubin], check=True, capture_output=True, text=True)
    res = subprocess.run(
        [cuobjdump, "-res-usage", cubin], check=True, capture_output=True, text=True
    )
    return sass.stdout, res.stdout


def tool_versions(bindir: str) -> str:
    def ver(tool):
        out = subprocess.run(
            [os.path.join(bindir, tool), "--version"], capture_output=True, text=True
        ).stdout
        m = re.search(r"V\d+\.\d+\.\d+", out)
        return f"{tool} {m.group(0) if m else '?'}"

    return ", ".join(ver(t) for t in ("ptxas", "cuobjdump"))


def read_targets(ptx_dir: str) -> list[str]:
    with open(os.path.join(ptx_dir, "TARGETS")) as f:
        return [l.split()[0] for l in f if l.strip() and not l.startswith("#")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="folder with ptxas and cuobjdump")
    ap.add_argument("--ptx-dir", default="bitpack/ptx")
    ap.add_argument("--out", default=None, help="the report (default PTX_DIR/SASS.md)")
    ap.add_argument("--limits", default=None, help="exemptions (default PTX_DIR/SASS-LIMITS)")
    ap.add_argument("--update", action="store_true", help="write the report")
    ap.add_argument("--baseline", default=None, metavar="NOTE", help="with --update: the current figures become the Before section")
    ap.add_argument("--print-violations", action="store_true", help="print SASS-LIMITS lines for today's violations")
    ap.add_argument(
        "--before-ptx",
        nargs=2,
        metavar=("PTX", "NOTE"),
        default=None,
        help="with --update: the per-entry figures of an older sm_90 PTX (and a note saying "
        "which) join the Before section; the sm_90 table quotes them beside today's",
    )
    a = ap.parse_args(argv)
    out = a.out or os.path.join(a.ptx_dir, "SASS.md")
    limits = a.limits or os.path.join(a.ptx_dir, "SASS-LIMITS")
    targets = read_targets(a.ptx_dir)
    results: dict[str, dict[str, Entry]] = {}
    with tempfile.TemporaryDirectory() as work:
        for t in targets:
            sass, res = run_tools(a.bin, os.path.join(a.ptx_dir, f"bitpack-{t}.ptx"), t, work)
            regs = parse_res_usage(res)
            results[t] = {n: analyze(n, ins, regs.get(n)) for n, ins in parse_sass(sass).items()}
    found = violations(results)
    if a.print_violations:
        for limit, entry in sorted(found):
            print(f"{limit:<16}{entry}")
        return 0
    existing = open(out).read() if os.path.exists(out) else ""
    if a.baseline is not None:
        before = before_section(results, targets, a.baseline)
    else:
        before = kept_before(existing) or before_section(
            results, targets, "No baseline recorded: these are the figures of the first report."
        )
    if a.before_ptx is not None:
        with tempfile.TemporaryDirectory() as work:
            sass, res = run_tools(a.bin, a.before_ptx[0], H200["target"], work)
            regs = parse_res_usage(res)
            old = {n: analyze(n, ins, regs.get(n)) for n, ins in parse_sass(sass).items()}
        before = with_before_entries(before, a.before_ptx[1], old)
    report = render(results, targets, tool_versions(a.bin), before)
    status = 0
    if a.update:
        with open(out, "w") as f:
            f.write(report)
        print(f"sass_report: wrote {out}", file=sys.stderr)
    elif report != existing:
        print(
            f"sass_report: {out} is stale: run scripts/check-ptx.sh --update and commit",
            file=sys.stderr,
        )
        status = 1
    try:
        exempt = parse_limits(open(limits).read()) if os.path.exists(limits) else set()
    except ValueError as e:
        print(f"sass_report: {e}", file=sys.stderr)
        return 1
    problems = check_limits(found, exempt)
    for p in problems:
        print(f"sass_report: FAIL: {p}", file=sys.stderr)
    if problems:
        status = 1
    else:
        print(
            f"sass_report: every limit holds or is exempt ({len(exempt)} exemptions in {limits})",
            file=sys.stderr,
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
