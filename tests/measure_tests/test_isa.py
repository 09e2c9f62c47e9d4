"""What PoCL compiled for a work-group (gencl.measure._isa): the counts of objdump's text, the
work-group functions a program binary holds, and a measurement on the real PoCL device that
records them."""

from __future__ import annotations

import numpy as np
import pytest

from gencl.generate import lower
from gencl.measure import measure_variant
from gencl.measure._isa import (
    count_instructions, loop_gathers, work_group_functions, work_group_isa, widest_vector_bits)
from gencl.spec import load_spec

#: a few lines as ``objdump -d --no-show-raw-insn`` prints them: a packed 512-bit load, a
#: gather, a scatter, a 256-bit add, a scalar move, an integer instruction, and lines that are
#: not code
DISASSEMBLY = """
jacobi.so:     file format elf64-x86-64

Disassembly of section .text:

0000000000001000 <_pocl_kernel_jacobi_workgroup>:
    1000:\tpush   %rbp
    1001:\tvmovups (%rdi,%rax,4),%zmm0
    1008:\tvgatherdps (%rsi,%zmm1,4),%zmm2{%k1}
    1010:\tvscatterdps %zmm2,(%rdx,%zmm1,4){%k2}
    1018:\tvaddps %ymm0,%ymm1,%ymm2
    101c:\tvmovss (%rdi),%xmm3
    1020:\tret
"""


def test_counts_follow_the_instructions_named():
    counts = count_instructions(DISASSEMBLY)
    assert counts == {"instructions": 7, "zmm": 3, "ymm": 1, "xmm": 1, "packed_moves": 1,
                      "scalar_moves": 1, "gathers": 1, "scatters": 1, "packed_arithmetic": 1,
                      "packed_arithmetic_bits": 256,
                      # no jump back: no loop, nothing gathered a pass of one
                      "loop_gathers_per_item": 0.0, "loop_scatters_per_item": 0.0}
    # scalar arithmetic and packed moves alone are no packed arithmetic
    scalar = count_instructions("    10:\tvaddss %xmm0,%xmm1,%xmm2\n"
                                "    14:\tvmovups %xmm0,(%rdi)\n")
    assert scalar["packed_arithmetic"] == 0 and scalar["packed_arithmetic_bits"] == 0
    assert widest_vector_bits(counts) == 512
    assert widest_vector_bits({**counts, "zmm": 0}) == 256
    assert widest_vector_bits({"xmm": 0, "ymm": 0, "zmm": 0}) == 0


#: a vectorized work-item loop as PoCL's build of Jacobi's branch form in one-row groups has it
#: (the EPYC, 64 × 1): eight items a pass (the counter rax, tested before the jump back), six
#: 256-bit gathers and two scatters; a loop before it with one gather and no item counter
#: (its offset steps 128 bytes), whose pass is one row of the group
LOOPS = """
    1400:\tvgatherdps (%rdi,%ymm3,4),%ymm4{%k1}
    1407:\tsub    $0xffffffffffffff80,%rax
    140b:\tcmp    $0x460,%rax
    1411:\tjne    1400 <_pocl_kernel_jacobi+0x400>
    14d0:\tvpsubd %ymm9,%ymm4,%ymm13
    14d5:\tvgatherdps (%rdi,%ymm16,4),%ymm14{%k3}
    14dc:\tvscatterdps %ymm14,(%rdx,%ymm16,4){%k3}
    14e3:\tvgatherdps (%rdi,%ymm17,4),%ymm14{%k2}
    14ea:\tvgatherdps (%rdi,%ymm17,4),%ymm16{%k2}
    14f1:\tvgatherdps (%rdi,%ymm15,4),%ymm17{%k2}
    14f8:\tvgatherdps (%rdi,%ymm13,4),%ymm15{%k2}
    14ff:\tvgatherdps (%rsi,%ymm13,4),%ymm18{%k2}
    1506:\tvscatterdps %ymm14,(%rdx,%ymm13,4){%k1}
    150d:\tadd    $0x8,%rax
    1511:\tvpaddd %ymm12,%ymm9,%ymm9
    1516:\tcmp    $0x40,%rax
    151a:\tjne    14d0 <_pocl_kernel_jacobi+0x4d0>
    1520:\tret
"""


def test_a_loop_gathers_its_elements_over_the_items_a_pass_covers():
    # the work-item loop: 6 gathers × 8 elements over 8 items a pass, 2 scatters the same
    assert loop_gathers(LOOPS, 64) == {"loop_gathers_per_item": 6.0,
                                       "loop_scatters_per_item": 2.0}
    # the first loop alone: no item counter, so its pass is a row of the group (32 items)
    first = LOOPS.split("    14d0")[0]
    assert loop_gathers(first, 32)["loop_gathers_per_item"] == pytest.approx(8 / 32)
    # without the group's row, the widest gather's elements
    assert loop_gathers(first)["loop_gathers_per_item"] == 1.0
    # a counter whose flags a conditional jump tests at once counts the items too (64 × 2),
    # and a 128-bit gather of 64-bit elements moves two
    counted = """
    2000:\tvgatherqpd (%rsi,%xmm1,8),%xmm2{%k1}
    2007:\tadd    $0xfffffffffffffffe,%rcx
    200b:\tje     2100 <_pocl_kernel_k+0x100>
    2011:\tcmp    %r11d,%r13d
    2014:\tjne    2000 <_pocl_kernel_k>
"""
    assert loop_gathers(counted, 64)["loop_gathers_per_item"] == 1.0
    assert count_instructions(counted, 64)["loop_gathers_per_item"] == 1.0


def _entry(name: str, body: bytes) -> bytes:
    raw = name.encode()
    return len(raw).to_bytes(4, "little") + raw + len(body).to_bytes(4, "little") + body


def test_a_binary_entry_is_found_by_kernel_and_local_size():
    elf = b"\x7fELF" + bytes(60)
    binary = (b"header" + _entry("/program.bc", b"BC\xc0\xde")
              + _entry("/k/32-4-1-goffs0-smallgrid/k.so", elf)
              + _entry("/k/64-1-1-goffs0/k.so", elf + b"x"))
    found = work_group_functions(binary)
    assert found == {("k", (32, 4, 1)): elf, ("k", (64, 1, 1)): elf + b"x"}
    # a name without its length before it, or a body that is not an ELF, is no entry
    assert work_group_functions(b"/k/32-4-1-goffs0/k.so" + bytes(8)) == {}
    assert work_group_functions(_entry("/k/8-1-1-goffs0/k.so", b"not an elf")) == {}


def test_the_launched_work_group_function_is_counted(engine):
    import pyopencl as cl

    # a float loop over the items: PoCL compiles a function for each local size it launches
    source = ("__kernel void scale(__global float *restrict a) "
              "{ int i = get_global_id(0); a[i] = a[i] * 3.0f + 1.0f; }")
    program = cl.Program(engine.ctx, source).build()
    binary = program.get_info(cl.program_info.BINARIES)[0]
    buffer = cl.Buffer(engine.ctx, cl.mem_flags.READ_WRITE, 4096 * 4)
    program.scale(engine.queue, (4096,), (64,), buffer).wait()
    counted = work_group_isa(binary, "scale", (64,))
    assert counted is not None and counted["instructions"] > 5
    # every x86-64 has SSE: a loop over floats names xmm registers at least
    assert counted["widest_vector_bits"] >= 128
    assert work_group_isa(binary, "scale", (16,)) is None  # never launched at that size
    assert work_group_isa(b"not a pocl binary", "scale", (64,)) is None


def test_a_measurement_on_pocl_records_its_work_group_code(engine):
    spec = load_spec("jacobi")
    point = spec.complete({"dtype": "float32", "boundary": "padded", "vector_width": 1,
                           "workgroup": [32, 4], "local": "none"})
    m = measure_variant(engine, spec, lower(spec, point), {"n": 64})
    assert m.status == "ok"
    isa = m.extra["isa"]
    assert isa["instructions"] > 20 and isa["widest_vector_bits"] >= 128
    assert set(isa) >= {"packed_moves", "scalar_moves", "gathers", "scatters",
                        "packed_arithmetic", "packed_arithmetic_bits"}
    assert np.isfinite(m.median_s)


def test_no_counts_for_a_binary_without_work_group_functions():
    # NVIDIA's binary is PTX text: nothing in it is a PoCL entry
    assert work_group_isa(b"//\n// Generated by NVIDIA NVVM Compiler\n.version 8.0\n",
                          "jacobi", (32, 4)) is None
