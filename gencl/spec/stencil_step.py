"""One explicit stencil step as a tuning spec: what every ping-pong stencil file of ``tuning/``
states the same way.

A step reads some grids once and writes one once per interior point (its compulsory traffic),
runs over the interior only (its sizes are the interior's extents), and checks itself over
several launches with its ping-pong buffers swapped. ``stencil_step_spec`` builds the
``BenchmarkSpec`` from what differs: the program, data, reference, the grid (``GRID_2D``,
``GRID_3D``: sizes and the naive peer's block), the number of grids touched, the flops a point,
and the naive kernel and torch step its peers run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gencl.spec._hooks import ApplicationHooks
from gencl.spec._spec import BenchmarkSpec

#: the suite's element types, by the ``dtype`` parameter's values
DTYPES = {"float32": np.float32, "float64": np.float64}


def interior_points(point: Mapping[str, Any], sizes: Mapping[str, int]) -> int:
    """Points of the interior: the product of the sizes (each an extent of the domain)."""
    return math.prod(int(n) for n in sizes.values())


def to_padded(grid: np.ndarray, pad: int, fill: float = np.nan, *, radius: int = 1
              ) -> np.ndarray:
    """A logical grid (its boundary *radius* points wide included) in a padded buffer layout:
    every x row carries *pad* (≥ *radius*) elements on each side, the boundary in the last
    *radius* pad columns before the interior and the first after it (interior rows start *pad*
    elements in); the other pad columns hold *fill*."""
    nx = grid.shape[-1]
    out = np.full((*grid.shape[:-1], nx - 2 * radius + 2 * pad), fill, dtype=grid.dtype)
    out[..., pad - radius:pad - radius + nx] = grid
    return out


def from_padded(buf: np.ndarray, pad: int, *, radius: int = 1) -> np.ndarray:
    """The logical grid (boundary included) of a buffer in ``to_padded``'s layout."""
    return buf[..., pad - radius:buf.shape[-1] - pad + radius]


def logical_grids(buffers: Mapping[str, np.ndarray], names: tuple[str, ...], pad: int, *,
                  radius: int = 1) -> dict[str, np.ndarray]:
    """The named buffers of ``to_padded``'s layout as contiguous logical grids (what a peer
    that knows no pads is given)."""
    return {name: np.ascontiguousarray(from_padded(buffers[name], pad, radius=radius))
            for name in names}


@dataclass(frozen=True)
class OneGridStep:
    """The data, reference and peer hooks of a step that reads one grid (*source*) and writes
    the interior of another (*target*), both in ``to_padded``'s layout with *pad* elements a
    side and a boundary *radius* points wide kept in both: what a one-grid tuning kernel
    (copy2d, perona2d) would otherwise write out again. *update* writes the step of a logical
    grid into the interior of another (numpy or torch) and returns ``{target: …}``; *dtypes*
    maps the ``dtype`` knob's values to numpy types."""

    update: Callable[[Any, Any], Mapping[str, Any]]
    pad: int
    dtypes: Mapping[str, Any]
    source: str
    target: str
    radius: int = 1

    def step(self, grid: np.ndarray) -> np.ndarray:
        """One step of a logical grid (boundary kept)."""
        return self.update(grid, grid.copy())[self.target]

    def inputs(self, point: Mapping[str, Any], sizes: Mapping[str, int],
               rng: np.random.Generator) -> dict[str, np.ndarray]:
        """A random source grid; the target with its boundary, its interior NaN (a point the
        kernel misses cannot pass)."""
        r = self.radius
        grid = rng.uniform(-1, 1, size=(sizes["ny"] + 2 * r, sizes["nx"] + 2 * r)).astype(
            self.dtypes[point["dtype"]])
        start = grid.copy()
        start[r:-r, r:-r] = np.nan
        return {self.source: to_padded(grid, self.pad, radius=r),
                self.target: to_padded(start, self.pad, radius=r)}

    def reference(self, values: Mapping[str, np.ndarray], point: Mapping[str, Any],
                  sizes: Mapping[str, int]) -> dict[str, np.ndarray]:
        r = self.radius
        logical = from_padded(values[self.source], self.pad, radius=r)
        return {self.target: to_padded(self.step(logical), self.pad, radius=r)}

    def logical_inputs(self, ctx: Any) -> dict[str, np.ndarray]:
        """The run's inputs as logical grids (what a peer that knows no pads is given)."""
        r = self.radius
        grid = logical_grids(ctx.inputs, (self.source,), self.pad, radius=r)[self.source]
        start = grid.copy()
        start[r:-r, r:-r] = np.nan
        return {self.source: grid, self.target: start}

    def logical_reference(self, ctx: Any) -> dict[str, np.ndarray]:
        return {self.target: self.step(self.logical_inputs(ctx)[self.source])}


@dataclass(frozen=True)
class Grid:
    """The interior a step runs over: its size names, x first; every extent *gpu* on a GPU and
    *cpu* elsewhere; the *quick* sizes; the *verify* sizes (not a multiple of any power-of-two
    tile along y and z, x a multiple of every vector width); the naive peer's thread *block*."""

    extents: tuple[str, ...]
    gpu: int
    cpu: int
    quick: Mapping[str, int]
    verify: Mapping[str, int]
    block: tuple[int, ...]

    def sizes(self, point: Mapping[str, Any], device: Any, quick: bool) -> dict[str, int]:
        if quick:
            return dict(self.quick)
        n = self.gpu if device is not None and device.device_type.upper() == "GPU" else self.cpu
        return dict.fromkeys(reversed(self.extents), n)

    def verify_sizes(self, point: Mapping[str, Any], device: Any) -> dict[str, int]:
        return dict(self.verify)


#: 8192² on a GPU, 2048² on a CPU
GRID_2D = Grid(("nx", "ny"), 8192, 2048, {"ny": 64, "nx": 128}, {"ny": 37, "nx": 96}, (32, 8))
#: 512³ on a GPU, 128³ on a CPU
GRID_3D = Grid(("nx", "ny", "nz"), 512, 128, {"nz": 16, "ny": 16, "nx": 32},
               {"nz": 9, "ny": 11, "nx": 48}, (32, 4, 1))


def stencil_step_spec(*, name: str, description: str, program: Callable[..., Any],
                      inputs: Callable[..., Any], reference: Callable[..., Any], grid: Grid,
                      grids: int, flops_per_point: float, ping_pong: Sequence[tuple[str, str]],
                      naive: str, naive_args: Sequence[str], update: Callable[..., Any],
                      logical_inputs: Callable[..., Any],
                      logical_reference: Callable[..., Any]) -> BenchmarkSpec:
    """The spec of a step over *grid* that touches *grids* grids once per interior point (those
    it reads and the one it writes; a grid read and written counts twice), *flops_per_point* a
    point, whose *ping_pong* pairs (output, input) swap after each launch. Metrics: ``bytes``
    (the compulsory traffic), ``points``, ``flops``. Peers (``gencl.peers.naive_and_torch_peers``):
    the *naive* kernel (arguments *naive_args*) in OpenCL and CUDA, one thread a point in
    blocks of ``grid.block``, and *update* under torch, each checked on *logical_inputs*
    against *logical_reference*."""
    from gencl.peers import naive_and_torch_peers

    peers = naive_and_torch_peers(name, source=naive, args=naive_args, block=grid.block,
                                  extents=grid.extents, update=update, inputs=logical_inputs,
                                  expected=logical_reference)
    def compulsory_bytes(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
        return grids * np.dtype(DTYPES[point["dtype"]]).itemsize * interior_points(point, sizes)

    return BenchmarkSpec(
        name=name,
        description=description,
        program=program,
        params={"dtype": tuple(DTYPES)},
        inputs=inputs,
        reference=reference,
        sizes=grid.sizes,
        verify_sizes=grid.verify_sizes,
        metrics={"bytes": compulsory_bytes, "points": interior_points,
                 "flops": lambda p, s: flops_per_point * interior_points(p, s)},
        group="application",
        # the output feeds the input on the next sweep: correctness is checked over launches
        hooks=ApplicationHooks(ping_pong=tuple(ping_pong), compulsory_bytes=compulsory_bytes,
                               peers=peers),
        tolerance={"float32": 1e-5, "float64": 1e-12},
    )
