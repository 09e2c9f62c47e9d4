"""Pointer chase (seed 000 §VI-B/C, Mei & Chu): a dependent walk through an index array.

Shared by the specs that measure completion latency (``random_walk``, ``constant_memory``): the
loopy program of one walker, the ring it walks (Sattolo's single cycle, or a fixed stride), and the
numpy reference. Every load's address is the previous load's value, so the walk runs at one memory
completion latency Λ per step (plus the address arithmetic of the chain).

The walker's position lives in a one-element ``state`` buffer that the kernel reads at start and
writes back at the end: consecutive launches continue the walk instead of repeating the same first
``K`` steps, so after the engine's warm-up and a few samples the whole ring has been visited and a
ring that fits a cache is found in it (the paper's "multiple passes").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import loopy as lp
import numpy as np

#: Where the walked array lives: a kernel argument (global, constant) or a copy made by the
#: kernel before the walk (local, private; seed 000: "first copy the randomized array").
MEMORIES = ("global", "local", "constant", "private")


def walk_program(memory: str, elements: int | None = None, *, name: str = "walk",
                 index_dtype: Any = np.int32) -> lp.TranslationUnit:
    """One work item walking ``K`` steps through ``nxt`` held in *memory*.

    Args:
        memory: one of ``MEMORIES``.
        elements: compile-time length of the copy for ``local``/``private`` (their arrays must be
            sized at compile time); ignored for ``global``/``constant`` (length ``n`` at launch).
        index_dtype: type of the ring's entries, the walker and ``n``: ``np.int64`` for rings past
            2 Gi entries (a page-stride walk over many gigabytes).
    """
    if memory not in MEMORIES:
        raise ValueError(f"memory {memory!r} is not one of {MEMORIES}")
    wide = np.dtype(index_dtype) == np.int64
    if wide and memory not in ("global", "constant"):
        raise ValueError("64-bit rings live in global or constant memory")
    args: list[Any] = [
        lp.GlobalArg("state", index_dtype, shape=(1,), is_input=True, is_output=True),
        lp.ValueArg("n", index_dtype), lp.ValueArg("K", np.int32)]
    if memory == "constant":
        args.insert(0, lp.ConstantArg("nxt", index_dtype, shape=("n",)))
    else:
        args.insert(0, lp.GlobalArg("nxt", index_dtype, shape=("n",), is_input=True,
                                    is_output=False))
    if memory in ("global", "constant"):
        return lp.make_kernel(
            "{[k]: 0 <= k < K}",
            """
            <> idx = state[0] {id=start, dep=*}
            for k
                idx = nxt[idx] {id=step, dep=start}
            end
            state[0] = idx {dep=step}
            """,
            args, name=name, target=lp.PyOpenCLTarget(), lang_version=(2018, 2),
            index_dtype=np.int64 if wide else np.int32)
    assert elements is not None, "local/private walks need a compile-time length"
    space = lp.AddressSpace.LOCAL if memory == "local" else lp.AddressSpace.PRIVATE
    buf = lp.TemporaryVariable("buf", np.int32, shape=(elements,), address_space=space)
    knl = lp.make_kernel(
        "{[k, j]: 0 <= k < K and 0 <= j < N}",
        """
        for j
            buf[j] = nxt[j] {id=fill}
        end
        <> idx = state[0] {id=start, dep=*}
        for k
            idx = buf[idx] {id=step, dep=start:fill}
        end
        state[0] = idx {dep=step}
        """,
        [*args, buf], name=name, target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    return lp.fix_parameters(knl, N=elements)


def sattolo_ring(slots: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random single cycle through ``slots`` positions (Sattolo's distribution).

    Built as a random ordering closed into a ring, ``ring[order[i]] = order[i + 1]``: every slot is
    visited once per pass (seed 000: "paramount for the pass to equal the length of the array"),
    in O(n) numpy instead of Sattolo's Python loop.
    """
    order = rng.permutation(slots)
    ring = np.empty(slots, dtype=np.int64)
    ring[order] = np.roll(order, -1)
    return ring


def page_local_order(slots: int, per_granule: int, rng: np.random.Generator) -> np.ndarray:
    """Slot order that finishes one granule (*per_granule* consecutive slots) before the next.

    Granules are taken in random order, the slots of each in random order: as unpredictable as
    a Sattolo ring at the scale of cache lines, while the walk stays inside one granule for
    *per_granule* steps (one TLB miss per granule at most).
    """
    per = max(1, min(per_granule, slots))
    granules = -(-slots // per)
    grid = np.arange(granules * per, dtype=np.int64).reshape(granules, per)
    order = rng.permuted(grid, axis=1)[rng.permutation(granules)].ravel()
    return order[order < slots]


def ring_array(n: int, spacing: int, pattern: str, rng: np.random.Generator, *,
               granule: int | None = None, dtype: Any = np.int32) -> np.ndarray:
    """Index array of ``n`` entries whose walked slots are every *spacing*-th element.

    ``pattern="random"``: Sattolo ring over the slots (no prefetcher can guess the next line);
    ``"stride"``: slot k → k+1 (the fixed-stride chase of Saavedra-Barrera/Mei & Chu, used for
    the line size); ``"page_local"``: random order inside each *granule* elements (a page or
    more), granules in random order (``page_local_order``). Unwalked elements hold random valid
    indices, never zeros.
    """
    slots = max(1, n // spacing)
    if pattern == "random":
        ring = sattolo_ring(slots, rng)
    elif pattern == "stride":
        ring = (np.arange(slots) + 1) % slots
    elif pattern == "page_local":
        if not granule:
            raise ValueError("a page_local ring needs a granule (elements)")
        order = page_local_order(slots, max(1, granule // spacing), rng)
        ring = np.empty(slots, dtype=np.int64)
        ring[order] = np.roll(order, -1)
    else:
        raise ValueError(f"pattern {pattern!r} is not 'random', 'stride' or 'page_local'")
    # drawn in the index type: 8× faster than int64 and a cast (the H200 walks fill 256 MiB)
    nxt = rng.integers(0, n, size=n, dtype=dtype)
    nxt[np.arange(slots) * spacing] = (ring * spacing).astype(dtype)
    return nxt


def page_stride_slots(pages: int, stride: int, line: int) -> np.ndarray:
    """Element offsets of a page-stride walk: one slot per *stride* elements, skewed by a line.

    Slot i sits ``(i mod stride/line)`` lines into its stride, i.e. at ``i·line mod stride``:
    the address bits below log2(stride) of slot i are those of line i of a packed array, so a
    cache indexed by those bits (any L1 once the stride passes its index bits; a 2 MiB page keeps
    them from virtual to physical) puts the walk's lines in the same sets as the packed control
    walk's, instead of all into the set of offset 0. What changes with the stride is the number
    of pages the walk touches.
    """
    i = np.arange(pages, dtype=np.int64)
    per = max(1, stride // line)
    return i * stride + (i % per) * line


def ring_order(slots: int, rng: np.random.Generator) -> np.ndarray:
    """A random visiting order of *slots* slots, starting at slot 0 (a Sattolo ring, unrolled)."""
    ring = sattolo_ring(slots, rng)
    order = np.empty(slots, dtype=np.int64)
    idx = 0
    for k in range(slots):
        order[k] = idx
        idx = int(ring[idx])
    return order


def links(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(where, value) of a ring visiting *positions* in order: ``nxt[where[k]] = value[k]``."""
    positions = np.asarray(positions, dtype=np.int64)
    return positions, np.roll(positions, -1)


# {{{ rings built on the device

def fill_program() -> lp.TranslationUnit:
    """``nxt[i]`` = a valid index that looks random (a multiplicative hash of i, mod n).

    Fills a ring array of billions of entries at device bandwidth, so a page-stride walk over
    gigabytes needs no host array; only the walked slots are then overwritten (``scatter``).
    """
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}",
        "nxt[i] = (i * 40503 + 12345) % n",
        [lp.GlobalArg("nxt", np.int64, shape=("n",), is_input=False, is_output=True),
         lp.ValueArg("n", np.int64)],
        name="fill_ring", target=lp.PyOpenCLTarget(), lang_version=(2018, 2),
        index_dtype=np.int64)
    return lp.split_iname(knl, "i", 256, outer_tag="g.0", inner_tag="l.0")


def scatter_program() -> lp.TranslationUnit:
    """``nxt[where[k]] = value[k]``: a ring's links written into a filled array."""
    knl = lp.make_kernel(
        "{[k]: 0 <= k < m}",
        "nxt[where[k]] = value[k]",
        [lp.GlobalArg("nxt", np.int64, shape=("n",), is_input=True, is_output=True),
         lp.GlobalArg("where", np.int64, shape=("m",)),
         lp.GlobalArg("value", np.int64, shape=("m",)),
         lp.ValueArg("n", np.int64), lp.ValueArg("m", np.int32)],
        name="scatter_ring", target=lp.PyOpenCLTarget(), lang_version=(2018, 2),
        index_dtype=np.int64)
    return lp.split_iname(knl, "k", 64, outer_tag="g.0", inner_tag="l.0")

# }}}


# {{{ Mei & Chu's fine-grained chase

#: One read of the SM cycle counter (inline PTX; NVIDIA's OpenCL C compiler accepts ``asm``).
CLOCK_ASM = 'asm volatile("mov.u32 %0, %%clock;" : "=r"({}) : : "memory");'
#: Accesses kept one by one (the last of the timed steps) and histogram bins (``BIN`` cycles).
WINDOW, BINS, BIN = 1024, 512, 4


def clocked_walk_program(*, window: int = WINDOW, bins: int = BINS, bin_cycles: int = BIN,
                         clock: tuple[str, str] | None = None) -> lp.TranslationUnit:
    """One work item: ``K0`` untimed steps, then ``S`` steps each timed by two ``%clock`` reads.

    Per step: ``t0 = clock; j = nxt[j]; win_j[k % window] = j; t1 = clock`` (Mei & Chu's order:
    the ``__local`` store of ``j`` needs the load's value, so ``t1`` is read after the load has
    completed); ``t1 - t0`` goes to ``win_t`` and to a histogram of *bins* bins of *bin_cycles*
    cycles (the last bin holds everything slower). ``__local`` memory keeps the records out of
    the caches under test. After the walk: ``out_t``/``out_j`` the last *window* steps (slot
    ``k % window``), ``out_hist`` the histogram of all ``S`` steps, ``state`` the final position.
    The ``asm`` text is carried by loopy ``CInstruction``s: the program stays a loopy program.
    *clock* replaces the two reads' code (C assigning ``t0``, then ``t1``), so the same kernel
    runs where PTX does not (a test of the bookkeeping on a CPU device).
    """
    from pymbolic import var

    codes = dict(zip(("t0", "t1"), clock or (CLOCK_ASM.format("t0"), CLOCK_ASM.format("t1"))))

    def read_clock(name: str, after: frozenset[str], reads: frozenset[str] = frozenset()):
        return lp.CInstruction((), codes[name], assignees=(var(name),),
                               read_variables=reads, id=f"clock_{name}", depends_on=after,
                               within_inames=frozenset({"k"}))

    local = lp.AddressSpace.LOCAL
    knl = lp.make_kernel(
        ["{[w]: 0 <= w < K0}", "{[k]: 0 <= k < S}", "{[z, h]: 0 <= z, h < H}",
         "{[r]: 0 <= r < R}"],
        [
            "j = start {id=init}",
            "for w\n j = nxt[j] {id=warm, dep=init}\nend",
            "for z\n hist[z] = 0 {id=zero}\nend",
            read_clock("t0", frozenset({"warm", "zero"})),
            "for k\n"
            " j = nxt[j] {id=step, dep=clock_t0}\n"
            " win_j[k % R] = j {id=keep_j, dep=step}\n"
            "end",
            read_clock("t1", frozenset({"keep_j"}), frozenset({"j"})),
            "for k\n"
            " dt = t1 - t0 {id=delta, dep=clock_t1}\n"
            " win_t[k % R] = dt {id=keep_t, dep=delta}\n"
            " b = dt // B if dt < B * H else H - 1 {id=bin, dep=delta}\n"
            " hist[b] = hist[b] + 1 {id=tally, dep=bin:keep_t}\n"
            "end",
            "for h\n out_hist[h] = hist[h] {dep=tally}\nend",
            "for r\n out_t[r] = win_t[r] {id=out_t, dep=tally}\n"
            " out_j[r] = win_j[r] {id=out_j, dep=tally}\nend",
            "state[0] = j {dep=step}",
        ],
        [lp.GlobalArg("nxt", np.int32, shape=("n",), is_input=True, is_output=False),
         lp.GlobalArg("out_t", np.uint32, shape=("R",), is_input=False, is_output=True),
         lp.GlobalArg("out_j", np.int32, shape=("R",), is_input=False, is_output=True),
         lp.GlobalArg("out_hist", np.uint32, shape=("H",), is_input=False, is_output=True),
         lp.GlobalArg("state", np.int32, shape=(1,), is_input=False, is_output=True),
         lp.ValueArg("n", np.int32), lp.ValueArg("start", np.int32),
         lp.ValueArg("K0", np.int32), lp.ValueArg("S", np.int32),
         lp.TemporaryVariable("j", np.int32), lp.TemporaryVariable("t0", np.uint32),
         lp.TemporaryVariable("t1", np.uint32), lp.TemporaryVariable("dt", np.uint32),
         lp.TemporaryVariable("b", np.int32),
         lp.TemporaryVariable("win_t", np.uint32, shape=("R",), address_space=local),
         lp.TemporaryVariable("win_j", np.int32, shape=("R",), address_space=local),
         lp.TemporaryVariable("hist", np.uint32, shape=("H",), address_space=local)],
        name="clocked_walk", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    return lp.fix_parameters(knl, R=window, H=bins, B=bin_cycles)


def clocked_reference(positions_of_steps: np.ndarray, window: int = WINDOW
                      ) -> dict[str, np.ndarray]:
    """What ``clocked_walk`` leaves in ``out_j``/``state``: positions after steps K0+1 … K0+S.

    *positions_of_steps* are the positions after each timed step, in order (length ``S``); slot
    ``k % window`` of ``out_j`` holds the last step ``k`` that wrote it.
    """
    pos = np.asarray(positions_of_steps, dtype=np.int32)
    steps = len(pos)
    out = np.empty(window, dtype=np.int32)
    for k in range(max(0, steps - window), steps):
        out[k % window] = pos[k]
    return {"out_j": out, "state": pos[-1:].copy()}



#: Timed accesses kept one by one in registers by ``windowed_walk_program``: fully unrolled, each
#: a private ``uint`` (64 clocks + the walk's few values stay well under 255 registers, so nothing
#: spills to the L1-cached private memory that the walk measures).
REG_WINDOW = 64


def windowed_walk_program(*, window: int = REG_WINDOW,
                          clock: tuple[str, str, str] | None = None) -> lp.TranslationUnit:
    """One work item, no ``__local`` memory: the L1 it measures keeps its full size.

    ``K0`` untimed steps, then ``S = R + L`` timed ones. The clock is read right after each load
    is *issued*; the next load's address is that load's value, so it issues only when the load
    has completed, and the difference of consecutive clock reads is one access's latency (plus
    the address arithmetic). The first ``R`` (= *window*) timed steps are unrolled and their
    clocks kept in a private array with constant indices (registers); the ``L`` steps after
    them count in registers the accesses slower than ``thr`` cycles and sum all latencies.
    Nothing is stored while the walk runs. After it: ``out_t`` the window's ``R`` latencies,
    ``out_n = [slow accesses of all S, sum of the S latencies]``, ``state`` the final position
    (the walk's check: ``K0 + S + 1`` loads from ``start``).

    *clock* replaces the three clock reads' code (C assigning ``clk[0]``, then
    ``clk[{after}]``: a ``str.format`` template of ``step`` and ``after = step + 1``, then
    ``now``), so the same kernel runs where PTX does not (the bookkeeping's test on a CPU).
    """
    from pymbolic import var

    first, inner, loop = clock or (CLOCK_ASM.format("clk[0]"), CLOCK_ASM.format("clk[{after}]"),
                                   CLOCK_ASM.format("now"))
    clk = var("clk")
    # the window, written out step by step (constant indices; loopy's unrolling of a
    # CInstruction would redeclare its iname in one scope)
    window_steps: list[Any] = []
    for step in range(window):
        window_steps += [
            f"j = nxt[j] {{id=wstep{step}, dep=clock{step}}}",
            lp.CInstruction((), inner.format(step=step, after=step + 1),
                            assignees=(clk[step + 1],), read_variables=frozenset({"j", "clk"}),
                            id=f"clock{step + 1}", depends_on=frozenset({f"wstep{step}"}))]

    knl = lp.make_kernel(
        ["{[w]: 0 <= w < K0}", "{[k]: 0 <= k < L}", "{[v]: 0 <= v < R}"],
        [
            "j = start {id=init}",
            "for w\n j = nxt[j] {id=warm, dep=init}\nend",
            "j = nxt[j] {id=first, dep=warm}",
            lp.CInstruction((), first, assignees=(clk[0],), read_variables=frozenset({"j"}),
                            id="clock0", depends_on=frozenset({"first"})),
            *window_steps,
            f"prev = clk[R] {{id=prev0, dep=clock{window}}}",
            "slow = 0 {id=zero_slow}",
            "total = 0 {id=zero_total}",
            "for k\n j = nxt[j] {id=lstep, dep=prev0}\nend",
            lp.CInstruction((), loop, assignees=(var("now"),),
                            read_variables=frozenset({"j", "prev"}), id="clock_loop",
                            depends_on=frozenset({"lstep"}), within_inames=frozenset({"k"})),
            "for k\n"
            " dt = now - prev {id=ldt, dep=clock_loop}\n"
            " slow = slow + (1 if dt > thr else 0) {id=lslow, dep=ldt:zero_slow}\n"
            " total = total + dt {id=ltotal, dep=ldt:zero_total}\n"
            " prev = now {id=lprev, dep=ldt}\n"
            "end",
            "for v\n"
            " dw = clk[v + 1] - clk[v] {id=wdt, dep=lslow:ltotal:lprev}\n"
            " out_t[v] = dw {id=keep, dep=wdt}\n"
            " slow = slow + (1 if dw > thr else 0) {id=wslow, dep=wdt}\n"
            " total = total + dw {id=wtotal, dep=wdt}\n"
            "end",
            "out_n[0] = slow {dep=wslow}",
            "out_n[1] = total {dep=wtotal}",
            "state[0] = j {dep=lstep}",
        ],
        [lp.GlobalArg("nxt", np.int32, shape=("n",), is_input=True, is_output=False),
         lp.GlobalArg("out_t", np.uint32, shape=("R",), is_input=False, is_output=True),
         lp.GlobalArg("out_n", np.uint32, shape=(2,), is_input=False, is_output=True),
         lp.GlobalArg("state", np.int32, shape=(1,), is_input=False, is_output=True),
         lp.ValueArg("n", np.int32), lp.ValueArg("start", np.int32),
         lp.ValueArg("K0", np.int32), lp.ValueArg("L", np.int32),
         lp.ValueArg("thr", np.uint32),
         lp.TemporaryVariable("j", np.int32), lp.TemporaryVariable("now", np.uint32),
         lp.TemporaryVariable("prev", np.uint32), lp.TemporaryVariable("dt", np.uint32),
         lp.TemporaryVariable("dw", np.uint32), lp.TemporaryVariable("slow", np.uint32),
         lp.TemporaryVariable("total", np.uint32),
         lp.TemporaryVariable("clk", np.uint32, shape=("R + 1",),
                              address_space=lp.AddressSpace.PRIVATE)],
        name="windowed_walk", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.fix_parameters(knl, R=window)
    # unrolled: every index of clk is a constant, so the compiler keeps it in registers
    return lp.tag_inames(knl, {"v": "unr"})


def windowed_reference(positions: np.ndarray, latency: np.ndarray, thr: int, window: int
                       ) -> dict[str, np.ndarray]:
    """What ``windowed_walk`` leaves for a walk whose timed loads read *positions* (the ``S``
    loads' addresses, in order, then the final position last: length ``S + 1``) with the
    per-access *latency* (length ``S``) its clock reports."""
    lat = np.asarray(latency, dtype=np.uint64)
    return {"out_t": lat[:window].astype(np.uint32),
            "out_n": np.array([int((lat > thr).sum()), int(lat.sum() % (1 << 32))],
                              dtype=np.uint32),
            "state": np.asarray(positions[-1:], dtype=np.int32)}

# }}}


def walk_reference(values: Mapping[str, Any], steps: int) -> dict[str, np.ndarray]:
    """Where the walker stands after *steps* steps from ``state[0]``."""
    nxt = np.asarray(values["nxt"])
    idx = int(values["state"][0])
    for _ in range(steps):
        idx = int(nxt[idx])
    return {"state": np.array([idx], dtype=np.asarray(values["state"]).dtype)}
