"""The 32-bit words of private values one work item keeps live at once: a liveness walk over
the linearized kernel, for the register estimate of ``gencl.model._registers``.

Before a variant is built the model has no register count from the compiler, and summing the
private temporaries the program declares counts every vector gather and every copy a transform
makes as storage of its own: box2d9's streamed ``float8`` rows declare 192 words, where ptxas
uses 56 registers in all. The walk counts *slots* (one lane of one element of a private
temporary, 4 bytes) and follows what NVIDIA's compiler was seen doing in the build logs of the
H200 suite:

- a temporary written only by copies of other temporaries, or by a gather written as a
  constant ``shuffle2`` (``gencl.generate.knobs.vector``), names their slots and holds none:
  vector code is scalarized, so a shuffle moves no data;
- two temporaries loaded from the same address in the same iteration share their slots (the
  compiler loads it once);
- a slot is live from its first definition to its last use; one that a sequential loop uses
  before it defines it, or that was defined before the loop, is live through the whole loop
  (carried: the planes a streamed axis keeps);
- a slot read only by moves into slots that are never read is dead (the lanes of a rotated
  vector column that no shuffle picks);
- each iteration of an unrolled loop indexes its own elements (the loop is expanded);
- the global values an instruction reads straight into its expression are live while it runs,
  ``DIRECT_LIVE_SHARE`` of them at a time (a sum consumes its operands as they arrive), and the
  copies of an unrolled instruction one after another.

Where an index is not a constant once the unrolled inames are fixed, the access reaches every
element of the temporary. Against ptxas on the 2,106 built variants of the six suite kernels
the estimate was developed on, with ``ADDRESS_WORDS`` added, the median ratio is 0.92–1.28 per
kernel (the declared sum: 0.95–3.42).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

#: share of the global values one instruction reads directly that are live at once: ptxas
#: issues the loads of a sum ahead of it and the sum drains them as they arrive
DIRECT_LIVE_SHARE = 0.5

Slot = tuple[str, tuple[int, ...], int]  # (temporary, element, lane)


class _Temporary(NamedTuple):
    vector_axis: int | None
    lanes: int
    elements: list[int]  # extents of the other axes
    words_per_slot: float


def walk(lin: Any, env: Mapping[str, int]) -> _Walk:
    """The walk over *lin* (a linearized kernel, ``gencl.model._stats._linearized``) at sizes
    *env*, built once for both its readers: ``peak()`` and ``load_lanes()``."""
    return _Walk(lin, env)


def live_private_words(lin: Any, env: Mapping[str, int]) -> float:
    """Most 32-bit words of private values live at one point of *lin* (a linearized kernel,
    ``gencl.model._stats._linearized``) at sizes *env*."""
    return _Walk(lin, env).peak()


class _Walk:
    def __init__(self, lin: Any, env: Mapping[str, int]) -> None:
        import loopy as lp
        from loopy.kernel.array import VectorArrayDimTag

        from gencl.model._stats import _value, _vector_inames, unrolled_inames

        self.lin = lin
        self.temps: dict[str, _Temporary] = {}
        for name, t in lin.temporary_variables.items():
            if t.address_space != lp.AddressSpace.PRIVATE:
                continue
            shape = [int(_value(s, env)) for s in (t.shape or ())]
            axis = next((i for i, tag in enumerate(t.dim_tags or ())
                         if isinstance(tag, VectorArrayDimTag)), None)
            self.temps[name] = _Temporary(axis, shape[axis] if axis is not None else 1,
                                          [s for i, s in enumerate(shape) if i != axis],
                                          np.dtype(t.dtype.numpy_dtype).itemsize / 4)
        self.arrays = {a.name: a for a in lin.args if isinstance(a, lp.ArrayArg)}
        self.vector_axis = {name: {i for i, tag in enumerate(a.dim_tags or ())
                                   if isinstance(tag, VectorArrayDimTag)}
                            for name, a in self.arrays.items()}
        rng = random.Random(0)
        # sorted: the values drawn for each name must not follow the process's string hashes
        # (a set's order), or the constants found, and the live words, vary from run to run
        names = sorted(set(lin.all_inames()) | set(lin.all_params()))
        # an index is a constant where it takes one value at two random points
        self.points: list[Mapping[str, int]] = [
            {n: rng.randrange(1 << 10, 1 << 20) for n in names} for _ in range(2)]
        vector = _vector_inames(lin)
        unrolled = unrolled_inames(lin, vector)
        self.events: list[tuple[int, Any]] = []
        self.loops: list[tuple[int, int]] = []
        self.trips: dict[int, float] = {}  # position → iterations of the loops around it
        entered: list[tuple[int, float]] = []
        position = 0
        for item in lin.linearization:
            kind = type(item).__name__
            if kind in ("EnterLoop", "LeaveLoop") and (item.iname in vector
                                                       or item.iname in unrolled):
                continue
            if kind == "EnterLoop":
                entered.append((position, _trip_count(lin, item.iname, env)))
            elif kind == "LeaveLoop":
                self.loops.append((entered.pop()[0], position - 1))
            elif kind == "RunInstruction":
                insn = lin.id_to_insn[item.insn_id]
                self.events.extend((position, one) for one in self._unrolled(insn, unrolled))
                self.trips[position] = float(np.prod([n for _, n in entered]))
                position += 1
        self.length = position
        self.parent: dict[Slot, Slot] = {}
        self._share_loads()
        self.names = self._aliases()

    # {{{ slots

    def _unrolled(self, insn: Any, unrolled: set[str]) -> list[Any]:
        """*insn* once per iteration of the unrolled loops around it, their inames fixed."""
        import loopy as lp
        from loopy.symbolic import SubstitutionMapper, pw_aff_to_expr
        from pymbolic.mapper.substitutor import make_subst_func

        inames = sorted(unrolled & insn.within_inames)
        if not inames or not isinstance(insn, lp.Assignment):
            return [insn]
        ranges = []
        for name in inames:
            bounds = self.lin.get_iname_bounds(name, constants_only=True)
            low = int(pw_aff_to_expr(bounds.lower_bound_pw_aff))
            ranges.append(range(low, low + int(pw_aff_to_expr(bounds.size))))
        copies = []
        for values in itertools.product(*ranges):
            fix = SubstitutionMapper(make_subst_func(dict(zip(inames, values))))
            copies.append(insn.copy(assignee=fix(insn.assignee), expression=fix(insn.expression)))
        return copies

    def _constant(self, expr: Any) -> int | None:
        values = _values(expr, self.points)
        return values[0] if values and len(set(values)) == 1 else None

    def _raw_slots(self, ref: Any) -> list[Slot]:
        """The slots a reference to a private temporary reaches (every element along an axis
        whose index is not constant; one lane where the vector axis is indexed by a number)."""
        import pymbolic.primitives as prim

        name, index = (ref.name, ()) if isinstance(ref, prim.Variable) else \
            (ref.aggregate.name, ref.index_tuple)
        axis, lanes, shape, _ = self.temps[name]  # a _Temporary
        lane_index = index[axis] if axis is not None and axis < len(index) else None
        lane_set = [lane_index] if isinstance(lane_index, int) else range(lanes)
        elements: list[tuple[int, ...]] = [()]
        for expr, extent in zip((e for i, e in enumerate(index) if i != axis), shape):
            at = self._constant(expr)
            elements = [e + (x,) for e in elements
                        for x in ([at] if at is not None else range(extent))]
        return [(name, e, lane) for e in elements for lane in lane_set]

    def _find(self, slot: Slot) -> Slot:
        while slot in self.parent:
            slot = self.parent[slot]
        return slot

    def slots(self, ref: Any) -> list[Slot]:
        return [self._find(s) for s in self._raw_slots(ref)]

    def _load_key(self, ref: Any) -> tuple:
        """An address of a global array, its vector axis left out, as values at the points."""
        skip = self.vector_axis[ref.aggregate.name]
        return (ref.aggregate.name, *(tuple(_values(e, self.points) or [repr(e)])
                                      for i, e in enumerate(ref.index_tuple) if i not in skip))

    # }}}

    # {{{ who holds storage

    def _loaded(self, insn: Any) -> bool:
        """A plain load of a global array into a private temporary."""
        import loopy as lp
        import pymbolic.primitives as prim

        return (isinstance(insn, lp.Assignment) and isinstance(insn.expression, prim.Subscript)
                and getattr(insn.expression.aggregate, "name", None) in self.arrays
                and _target(insn.assignee) in self.temps)

    def _share_loads(self) -> None:
        first: dict[tuple, list[Slot]] = {}
        for _, insn in self.events:
            if not self._loaded(insn):
                continue
            key, slots = self._load_key(insn.expression), self._raw_slots(insn.assignee)
            if key in first and len(first[key]) == len(slots):
                for held, other in zip(first[key], slots):
                    a, b = self._find(held), self._find(other)
                    if a != b:
                        self.parent[b] = a
            else:
                first.setdefault(key, slots)

    def _copy(self, insn: Any) -> bool:
        """A move of private values: a plain copy of a temporary, or a shuffle gather."""
        import loopy as lp
        import pymbolic.primitives as prim

        from gencl.generate.knobs.vector import shuffle_lanes

        if isinstance(insn, lp.CInstruction):
            return shuffle_lanes(insn.code) is not None
        return isinstance(insn.expression, (prim.Subscript, prim.Variable)) and \
            _target(insn.expression) in self.temps and _target(insn.assignee) in self.temps

    def _written(self, insn: Any) -> list[str]:
        import loopy as lp

        return [_target(a) for a in (insn.assignees if isinstance(insn, lp.CInstruction)
                                     else (insn.assignee,))]

    def _aliases(self) -> dict[Slot, list[Slot]]:
        """Slots of the temporaries that only name others → the slots they name."""
        import loopy as lp

        from gencl.generate.knobs.vector import shuffle_lanes

        writers: dict[str, list[Any]] = {}
        for _, insn in self.events:
            for name in self._written(insn):
                writers.setdefault(name, []).append(insn)
        self.alias_temps = {n for n, ws in writers.items()
                            if n in self.temps and all(self._copy(w) for w in ws)}
        names: dict[Slot, list[Slot]] = {}
        for name in self.alias_temps:
            for insn in writers[name]:
                if isinstance(insn, lp.CInstruction):
                    gather = shuffle_lanes(insn.code)
                    assert gather is not None  # _copy took it for a shuffle
                    target, lanes = gather
                    for lane, (source, at) in enumerate(lanes):
                        names.setdefault((target, (), lane), []).append(
                            self._find((source, (), at)))
                    continue
                targets, sources = self._raw_slots(insn.assignee), self.slots(insn.expression)
                pairs = zip(targets, sources) if len(targets) == len(sources) else \
                    ((t, s) for t in targets for s in sources if t[2] == s[2])
                for t, s in pairs:
                    names.setdefault(t, []).append(s)
        return names

    def _held(self, slot: Slot, depth: int = 0) -> list[Slot]:
        """The slots holding what *slot* names."""
        if slot[0] not in self.alias_temps or depth > 32:
            return [slot]
        return [h for s in self.names.get(slot, ()) for h in self._held(s, depth + 1)]

    # }}}

    # {{{ liveness

    def _reads(self, insn: Any) -> tuple[list[Slot], list[Any]]:
        """(the held slots of private values *insn* reads, its direct global subscripts)."""
        import loopy as lp
        import pymbolic.primitives as prim
        from loopy.symbolic import WalkMapper

        if isinstance(insn, lp.CInstruction):
            refs = [prim.Variable(v) for v in insn.read_variables if v in self.temps]
            return [h for r in refs for s in self.slots(r) for h in self._held(s)], []
        temps, arrays = self.temps, self.arrays
        found: tuple[list[Any], list[Any]] = ([], [])

        class Refs(WalkMapper):
            def map_subscript(self, expr: Any, *args: Any) -> None:
                name = getattr(expr.aggregate, "name", None)
                if name in temps:
                    found[0].append(expr)
                    return
                if name in arrays:
                    found[1].append(expr)
                for index in expr.index_tuple:
                    self.rec(index)

            def map_variable(self, expr: Any, *args: Any) -> None:
                if expr.name in temps:
                    found[0].append(expr)

        Refs()(insn.expression)
        return [h for r in found[0] for s in self.slots(r) for h in self._held(s)], found[1]

    def _needed(self) -> set[Slot]:
        """Slots some instruction other than a move reads, and what moves into them."""
        needed: set[Slot] = set()
        moves: list[tuple[Slot, Slot]] = []
        for _, insn in self.events:
            if any(n in self.alias_temps for n in self._written(insn)):
                continue
            reads, _ = self._reads(insn)
            if self._copy(insn):
                targets = self.slots(insn.assignee)
                moves.extend((t, s) for t in targets for s in reads if t[2] == s[2])
            else:
                needed.update(reads)
        changed = True
        while changed:
            changed = False
            for target, source in moves:
                if target in needed and source not in needed:
                    needed.add(source)
                    changed = True
        return needed

    def load_lanes(self, skip: frozenset[str] = frozenset()) -> dict[str, dict[str, float]]:
        """Per global array, the vectors one work item loads, by the lanes something reads:
        ``{"<lanes of the vector>:<needed lanes, comma-separated>": loads per item}``, each
        address once per iteration (``_share_loads``). A lane is needed where a slot it loads is
        (``_needed``) or where an expression reads the address directly (every lane).
        Instructions in *skip* (those loopy emits lane by lane) are left out."""
        needed = self._needed()
        found: dict[tuple, tuple[str, int, set[int], float]] = {}
        for position, insn in self.events:
            if insn.id in skip:
                continue
            refs: list[tuple[Any, set[int] | None]]
            if self._loaded(insn):
                raw = self._raw_slots(insn.assignee)
                refs = [(insn.expression, {s[2] for s in raw if self._find(s) in needed})]
            else:
                refs = [(ref, None) for ref in self._reads(insn)[1]]
            for ref, lanes in refs:
                name = ref.aggregate.name
                axes = self.vector_axis[name]
                width = max([int(self._constant(self.arrays[name].shape[a]) or 1)
                             for a in axes] or [1])
                if lanes is None:  # a direct read: every lane, or the one a constant index names
                    at = [self._constant(ref.index_tuple[a]) for a in axes]
                    lanes = {at[0]} if at and at[0] is not None else set(range(width))
                key = self._load_key(ref)
                if key in found:
                    found[key][2].update(lanes)
                else:
                    found[key] = (name, width, set(lanes), self.trips.get(position, 1.0))
        out: dict[str, dict[str, float]] = {}
        for name, width, lanes, times in found.values():
            pattern = f"{width}:{','.join(map(str, sorted(lanes)))}"
            out.setdefault(name, {})
            out[name][pattern] = out[name].get(pattern, 0.0) + times
        return out

    def peak(self) -> float:
        if not self.events:
            return 0.0
        needed = self._needed()
        loaded = {self._load_key(insn.expression): self.slots(insn.assignee)
                  for _, insn in self.events if self._loaded(insn)}
        uses: dict[Slot, list[tuple[int, bool]]] = {}  # slot → (position, is a use)
        direct_words = np.zeros(self.length)
        for position, insn in self.events:
            written = self._written(insn)
            if any(n in self.alias_temps for n in written):
                continue
            reads, direct = self._reads(insn)
            if self._loaded(insn):
                direct = []  # its load is the definition of its target
            targets = [s for n in written if n in self.temps
                       for s in self.slots(_reference(insn, n))]
            if self._copy(insn):  # a move: its source is read where its target is needed
                lanes = {t[2] for t in targets if t in needed}
                reads = [s for s in reads if s[2] in lanes]
            for slot in reads:
                uses.setdefault(slot, []).append((position, True))
            for slot in targets:
                if slot in needed:
                    uses.setdefault(slot, []).append((position, False))
            words = 0.0
            for ref in direct:
                if self._load_key(ref) in loaded:  # the value a temporary already holds
                    for slot in loaded[self._load_key(ref)]:
                        uses.setdefault(slot, []).append((position, True))
                    continue
                array = self.arrays[ref.aggregate.name]
                width = 1
                for axis in self.vector_axis[array.name]:
                    width = int(self._constant(array.shape[axis]) or 1)
                words += width * np.dtype(array.dtype.numpy_dtype).itemsize / 4
            # the copies of an unrolled instruction run one after another
            direct_words[position] = max(direct_words[position], DIRECT_LIVE_SHARE * words)
        live = direct_words
        for slot, seen in uses.items():
            if not any(is_use for _, is_use in seen):
                continue
            first, last = min(p for p, _ in seen), max(p for p, _ in seen)
            for start, end in self.loops:
                # (position, is a definition): at one position the reads come first
                inside = sorted((p, not is_use) for p, is_use in seen if start <= p <= end)
                if inside and (first < start or not inside[0][1]):  # carried
                    first, last = min(first, start), max(last, end)
            live[first:last + 1] += self.temps[slot[0]].words_per_slot
        return float(live.max())

    # }}}


def _trip_count(lin: Any, iname: str, env: Mapping[str, int]) -> float:
    """Iterations of the loop over *iname* at sizes *env* (1 where loopy cannot bound it)."""
    from loopy.symbolic import pw_aff_to_expr

    from gencl.model._stats import _value

    try:
        return max(1.0, _value(pw_aff_to_expr(lin.get_iname_bounds(iname).size), env))
    except Exception:  # noqa: BLE001 -- a bound loopy states only with other inames
        return 1.0


def _target(ref: Any) -> str:
    import pymbolic.primitives as prim

    return ref.name if isinstance(ref, prim.Variable) else getattr(ref.aggregate, "name", "")


def _reference(insn: Any, name: str) -> Any:
    """The reference to *name* among *insn*'s assignees."""
    import loopy as lp

    refs = insn.assignees if isinstance(insn, lp.CInstruction) else (insn.assignee,)
    return next(r for r in refs if _target(r) == name)


def _values(expr: Any, points: list[Mapping[str, int]]) -> list[int]:
    """*expr* at each of *points*; [] where it is not of inames and parameters alone."""
    from pymbolic import evaluate

    try:
        return [int(evaluate(expr, p)) for p in points]
    except Exception:  # noqa: BLE001 -- an index of values the walk does not know
        return []
