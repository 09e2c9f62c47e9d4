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


def walk_program(memory: str, elements: int | None = None, *,
                 name: str = "walk") -> lp.TranslationUnit:
    """One work item walking ``K`` steps through ``nxt`` held in *memory*.

    Args:
        memory: one of ``MEMORIES``.
        elements: compile-time length of the copy for ``local``/``private`` (their arrays must be
            sized at compile time); ignored for ``global``/``constant`` (length ``n`` at launch).
    """
    if memory not in MEMORIES:
        raise ValueError(f"memory {memory!r} is not one of {MEMORIES}")
    args: list[Any] = [
        lp.GlobalArg("state", np.int32, shape=(1,), is_input=True, is_output=True),
        lp.ValueArg("n", np.int32), lp.ValueArg("K", np.int32)]
    if memory == "constant":
        args.insert(0, lp.ConstantArg("nxt", np.int32, shape=("n",)))
    else:
        args.insert(0, lp.GlobalArg("nxt", np.int32, shape=("n",), is_input=True,
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
            args, name=name, target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
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


def ring_array(n: int, spacing: int, pattern: str, rng: np.random.Generator) -> np.ndarray:
    """Index array of ``n`` int32 whose walked slots are every *spacing*-th element.

    ``pattern="random"``: Sattolo ring over the slots (no prefetcher can guess the next line);
    ``"stride"``: slot k → k+1 (the fixed-stride chase of Saavedra-Barrera/Mei & Chu, used for
    the line size). Unwalked elements hold random valid indices, never zeros.
    """
    slots = max(1, n // spacing)
    if pattern == "random":
        ring = sattolo_ring(slots, rng)
    elif pattern == "stride":
        ring = (np.arange(slots) + 1) % slots
    else:
        raise ValueError(f"pattern {pattern!r} is not 'random' or 'stride'")
    nxt = rng.integers(0, n, size=n).astype(np.int32)
    nxt[np.arange(slots) * spacing] = (ring * spacing).astype(np.int32)
    return nxt


def walk_reference(values: Mapping[str, Any], steps: int) -> dict[str, np.ndarray]:
    """Where the walker stands after *steps* steps from ``state[0]``."""
    nxt = np.asarray(values["nxt"])
    idx = int(values["state"][0])
    for _ in range(steps):
        idx = int(nxt[idx])
    return {"state": np.array([idx], dtype=np.int32)}
