"""Gathers: global loads whose address the data gives (``x[j]`` with ``j = col[k, i]``), counted
on the data they read.

loopy's counters see no lane stride in ``x[j]`` (``j`` is a temporary, not an iname), so the model
priced such a load as a broadcast: one line a sub-group. Where the indices point is in the data,
not the program: spmv_ell's banded matrix gathers nearly coalesced rows of x, its random one a line
a lane, and the same program measures 106 and 234 µs on an H100. So the gathers are evaluated on
the spec's own inputs (``spec.inputs`` at the sizes predicted, seed 0: the data the measurement
uploads) for a sample of work-groups: each sub-group instruction's distinct lines and sectors, and
how many of a work-group's line requests bring a line the group has not touched before (those
miss a first-level cache that cannot hold the whole gathered array); and how many lines runs of
1, 4, 16, … consecutive work-groups touch (the working set of the groups resident at once,
whose size says whether the next level holds it: a banded matrix's gathers stay near the rows
being run however large the vector, random columns reach all of it).

Evaluated per work-group: an instruction's domain with the group's ids fixed gives its items and
iterations (isl), and the index expressions are evaluated on them with numpy, a temporary by the
instruction that writes it in the same loops, a global array by the bytes the measurement
uploads (the spec's arrays as laid out in memory, indexed by the variant's strides). Runs of
groups are evaluated at once, with numpy grids, where the instruction's domain is a box.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

#: work-groups evaluated, spread evenly over the launch
SAMPLE_GROUPS = 64
#: sector and line sizes the requests are counted at (a GPU's sector; a CPU's and a GPU's line)
SECTOR_BYTES = 32
LINE_BYTES = (64, 128)


def _single_writers(knl: Any) -> dict[str, Any]:
    """Private temporaries written by one instruction: name → that instruction."""
    writers: dict[str, list[Any]] = {}
    for insn in knl.instructions:
        if hasattr(insn, "expression"):
            for name in insn.assignee_var_names():
                if name in knl.temporary_variables:
                    writers.setdefault(name, []).append(insn)
    return {name: w[0] for name, w in writers.items() if len(w) == 1}


def data_temporaries(knl: Any) -> dict[str, Any]:
    """Private temporaries whose value comes from global memory (directly, or through another
    such temporary): name → the one instruction writing it (a temporary written twice is
    left out: which write a gather reads is then a question of order)."""
    from loopy.symbolic import get_dependencies

    from gencl.model._stats import _global_subscripts, global_arrays

    arrays = global_arrays(knl)
    single = _single_writers(knl)
    found: dict[str, Any] = {}
    changed = True
    while changed:
        changed = False
        for name, insn in single.items():
            if name in found:
                continue
            if _global_subscripts(insn.expression, arrays) \
                    or get_dependencies(insn.expression) & set(found):
                found[name] = insn
                changed = True
    return found


def gather_sites(knl: Any) -> list[tuple[Any, str, tuple]]:
    """(instruction, array, index) of every global load whose index reads memory: a data
    temporary, or a global array inside the subscript (``x[col[k]]``)."""
    from loopy.symbolic import get_dependencies

    from gencl.model._stats import _global_subscripts, global_arrays

    arrays = global_arrays(knl)
    data = data_temporaries(knl)
    sites = []
    for insn in knl.instructions:
        if not hasattr(insn, "expression"):
            continue
        for name, index in _global_subscripts(insn.expression, arrays):
            reads = set().union(*(get_dependencies(i) for i in index))
            if reads & set(data) or any(_global_subscripts(i, arrays) for i in index):
                sites.append((insn, name, index))
    return sites


def _written_in_order(knl: Any) -> list[tuple[str, Any]]:
    """(name, writer) of the private temporaries written once, each after the temporaries its
    value reads (an index may read a data temporary, or one computed from inames)."""
    from loopy.symbolic import get_dependencies

    single = _single_writers(knl)
    ordered: list[tuple[str, Any]] = []
    done: set[str] = set()
    while len(done) < len(single):
        ready = [n for n in single if n not in done
                 and not (get_dependencies(single[n].expression) & (set(single) - done - {n}))]
        if not ready:
            break  # a cycle (an accumulator reads itself): the rest are not evaluated
        for n in sorted(ready):
            ordered.append((n, single[n]))
            done.add(n)
    return ordered


class _Memory:
    """A global array as the measurement uploads it: the spec's array's bytes, indexed by the
    variant's element strides."""

    def __init__(self, values: np.ndarray, strides: list[int]) -> None:
        self.flat = np.ravel(np.ascontiguousarray(values))
        self.strides = strides

    def offset(self, index: Any) -> np.ndarray:
        index = index if isinstance(index, tuple) else (index,)
        if len(index) != len(self.strides):
            raise ValueError("subscript rank differs from the array's")
        return np.asarray(sum(np.asarray(i, dtype=np.int64) * s
                              for i, s in zip(index, self.strides)))

    def __getitem__(self, index: Any) -> np.ndarray:
        offset = self.offset(index)
        if np.any(offset < 0) or np.any(offset >= self.flat.size):
            raise ValueError("index outside the array")
        return self.flat[offset]


def _evaluate(expr: Any, context: Mapping[str, Any]) -> Any:
    from pymbolic.mapper.evaluator import EvaluationMapper

    class Evaluate(EvaluationMapper):
        def map_subscript(self, e: Any) -> Any:
            aggregate = self.rec(e.aggregate)
            index = self.rec(e.index)
            if isinstance(aggregate, _Memory):
                return aggregate[index]
            return aggregate  # a private temporary's subscript (an ilp copy): its value here

    return Evaluate(dict(context))(expr)


def gather_requests(lin: Any, values: Mapping[str, Any], env: Mapping[str, int],
                    local_size: tuple[int, ...], groups_per_axis: tuple[int, ...],
                    subgroup_size: int) -> dict[str, dict[str, Any]]:
    """Per gathered array, over the sampled work-groups: "requests" (sub-group instructions),
    "sectors" and "lines" (distinct ones each touches, summed; lines per ``LINE_BYTES``) and
    "new_lines" (per line size: the distinct lines each work-group touches, summed: a
    group's requests for lines it touched before may hit the first level) and "groups" (the
    work-groups sampled); and "wave_lines" (per line size: [m, the distinct lines m consecutive
    work-groups touch] for m = 1, 4, 16, …, where the instruction's domain is a box). {} where
    the kernel has no gather or its indices cannot be evaluated."""
    import islpy as isl

    from gencl.model._stats import (
        _element_strides, _instruction_domain, _points, global_arrays, hardware_inames)

    sites = gather_sites(lin)
    if not sites:
        return {}
    arrays = global_arrays(lin)
    memory = {}
    for name, arg in arrays.items():
        if name in values and isinstance(values[name], np.ndarray):
            memory[name] = _Memory(values[name], _element_strides(arg, env))
    written = _written_in_order(lin)
    hw = hardware_inames(lin)
    axes = max(len(local_size), len(groups_per_axis))
    local = tuple(local_size) + (1,) * (axes - len(local_size))
    groups = tuple(groups_per_axis) + (1,) * (axes - len(groups_per_axis))
    total = int(np.prod(groups))
    sample = np.unique(np.linspace(0, total - 1, min(SAMPLE_GROUPS, total)).astype(int))
    sg = max(1, min(subgroup_size, int(np.prod(local))))
    out: dict[str, dict[str, Any]] = {}
    touched: dict[str, dict[int, dict[int, np.ndarray]]] = {}
    for insn, array, index in sites:
        domain, names = _instruction_domain(lin, insn, env)
        itemsize = int(np.dtype(arrays[array].dtype.numpy_dtype).itemsize)
        entry = out.setdefault(array, {"requests": 0, "sectors": 0,
                                       "lines": {str(n): 0 for n in LINE_BYTES},
                                       "new_lines": {str(n): 0 for n in LINE_BYTES},
                                       "groups": len(sample)})
        for linear in sample:
            gid = np.unravel_index(int(linear), groups, order="F")  # axis 0 fastest
            fixed = domain
            for i, name in enumerate(names):
                if name in hw and hw[name][0]:
                    fixed = fixed.fix_val(isl.dim_type.set, i, int(gid[hw[name][1]]))
            points = np.array(_points(fixed), dtype=np.int64).reshape(-1, len(names))
            if not len(points):
                continue
            context: dict[str, Any] = {**env, **memory}
            context.update({n: points[:, i] for i, n in enumerate(names)})
            for name, writer in written:  # a source before its users
                if set(writer.within_inames) <= set(names):
                    context[name] = _evaluate(writer.expression, context)
            if array not in memory:
                raise ValueError(f"no data for the gathered array {array}")
            address = memory[array].offset(_evaluate(index, context)) * itemsize
            lid = np.zeros(len(points), dtype=np.int64)
            scale = 1
            for axis in range(axes):
                col = next((i for i, n in enumerate(names)
                            if n in hw and not hw[n][0] and hw[n][1] == axis), None)
                if col is not None:
                    lid += points[:, col] * scale
                scale *= local[axis]
            # one request: a sub-group's lanes at one iteration of the other inames
            rest = [i for i, n in enumerate(names) if n not in hw]
            keys = np.column_stack([lid // sg] + [points[:, i] for i in rest])
            _, request = np.unique(keys, axis=0, return_inverse=True)
            request = request.ravel()
            entry["requests"] += int(request.max()) + 1
            entry["sectors"] += _distinct(request, address // SECTOR_BYTES)
            for line in LINE_BYTES:
                entry["lines"][str(line)] += _distinct(request, address // line)
                entry["new_lines"][str(line)] += len(np.unique(address // line))
        box = _box(domain)
        if box is not None:
            for runs, found in _run_lines(box, names, hw, groups, index, written, memory,
                                          env, array, itemsize).items():
                seen = touched.setdefault(array, {}).setdefault(runs, {})
                for line, ids in found.items():
                    seen[line] = np.union1d(seen.get(line, ids[:0]), ids)
    for array, by_run in touched.items():
        out[array]["wave_lines"] = {
            str(line): [[runs, int(len(by_run[runs][line]))] for runs in sorted(by_run)]
            for line in LINE_BYTES}
    return out


#: points evaluated at most for the lines of a run of consecutive work-groups
RUN_POINTS = 1 << 20


def _box(domain: Any) -> list[tuple[int, int]] | None:
    """Each dimension's [lowest, highest] value where *domain* is that whole box (spmv_ell's
    rows × slots), else None."""
    import islpy as isl

    whole = domain.to_set() if hasattr(domain, "to_set") else domain
    bounds = []
    for i in range(whole.dim(isl.dim_type.set)):
        lo, hi = whole.dim_min_val(i), whole.dim_max_val(i)
        if not (lo.is_int() and hi.is_int()):
            return None
        bounds.append((lo.to_python(), hi.to_python()))
    size = int(np.prod([hi - lo + 1 for lo, hi in bounds]))
    return bounds if size == whole.count_val().to_python() else None


def _run_lines(box: list[tuple[int, int]], names: list[str], hw: Mapping[str, tuple[bool, int]],
               groups: tuple[int, ...], index: tuple, written: list[tuple[str, Any]],
               memory: Mapping[str, _Memory], env: Mapping[str, int], array: str,
               itemsize: int) -> dict[int, dict[int, np.ndarray]]:
    """Lines (by ``LINE_BYTES``) a run of m consecutive work-groups touches through one
    gather, for m = 1, 4, 16, … (runs from the launch's middle, within ``RUN_POINTS``): the
    working set of the groups resident at once, whose size says which level serves them."""
    total = int(np.prod(groups))
    per_group = int(np.prod([hi - lo + 1 for (lo, hi), n in zip(box, names)
                             if not (n in hw and hw[n][0])]))
    found: dict[int, dict[int, np.ndarray]] = {}
    runs = 1
    while runs <= total and runs * per_group <= RUN_POINTS:
        start = max(0, total // 2 - runs // 2)
        linear = np.arange(start, min(total, start + runs))
        gid = np.unravel_index(linear, groups, order="F")
        axes: list[np.ndarray | None] = []
        for (lo, hi), name in zip(box, names):
            if name in hw and hw[name][0]:
                axes.append(None)
            else:
                axes.append(np.arange(lo, hi + 1))
        # every (group, other dimensions) point: the group's ids as one axis of the grid
        sizes = [len(linear)] + [len(a) for a in axes if a is not None]
        grid = np.indices(sizes).reshape(len(sizes), -1)
        context: dict[str, Any] = {**env, **memory}
        other = iter(range(1, len(sizes)))
        for name, values in zip(names, axes):
            if values is None:
                context[name] = gid[hw[name][1]][grid[0]]
            else:
                context[name] = values[grid[next(other)]]
        for name, writer in written:
            if set(writer.within_inames) <= set(names):
                context[name] = _evaluate(writer.expression, context)
        address = memory[array].offset(_evaluate(index, context)) * itemsize
        found[runs] = {line: np.unique(address // line) for line in LINE_BYTES}
        runs *= 4
    return found


def _distinct(request: np.ndarray, unit: np.ndarray) -> int:
    """Distinct (request, unit) pairs: the units each request touches, summed."""
    return len(np.unique(np.column_stack([request, unit]), axis=0))


def wave_bytes(gathers: Mapping[str, Any], array: str, line: int, groups: float) -> float | None:
    """Bytes of *array*'s lines that *groups* consecutive work-groups touch through its gathers
    (``gather_requests``' runs, log-log between them, in proportion beyond the longest); None
    where not counted."""
    runs = ((gathers.get(array) or {}).get("wave_lines") or {}).get(str(line))
    if not runs or groups <= 0:
        return None
    m, lines = np.array(runs, dtype=float).T
    if groups >= m[-1]:
        return float(lines[-1] * groups / m[-1] * line)
    return float(np.exp(np.interp(np.log(groups), np.log(m), np.log(lines))) * line)


class GatherShares(NamedTuple):
    """What one array's gathers touch, per sub-group instruction and per work-group."""

    lines_per_request: float
    sectors_per_request: float
    new_share: float        # of the line requests, those for a line new to the work-group
    lines_per_group: float  # distinct lines a work-group touches through them


def gather_shares(gathers: Mapping[str, Any], array: str, line: int) -> GatherShares | None:
    """*array*'s gathers counted at *line* bytes (``gather_requests``); None where not
    counted."""
    g = gathers.get(array)
    if not g or not g["requests"]:
        return None
    key = str(line) if str(line) in g["lines"] else str(max(int(k) for k in g["lines"]))
    lines, new = g["lines"][key], g["new_lines"][key]
    return GatherShares(lines / g["requests"], g["sectors"] / g["requests"],
                        min(1.0, new / lines) if lines else 0.0, new / max(1, g["groups"]))
