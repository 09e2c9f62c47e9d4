"""The update placed elsewhere: the form's instructions rewritten for a scheme's storage.

A scheme decides where each thing lives (the input in a ``__local`` tile or ring, a read-only
array in registers or global memory, the result in a private staging array or the output); this
module copies the program's instructions once per place, rewriting their reads accordingly, so
the update's arithmetic is the user's, written once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import loopy as lp
import pymbolic.primitives as prim
from loopy.symbolic import IdentityMapper

from gencl.generate.temporal._form import TemporalForm, _affine


class _Rewrite(IdentityMapper):
    def __init__(self, form: TemporalForm, coords: Mapping[str, Any],
                 read_input: Callable[[tuple[Any, ...]], Any],
                 read_register: Callable[[str], Any]) -> None:
        super().__init__()
        self.form, self.coords = form, coords
        self.read_input, self.read_register = read_input, read_register

    def map_variable(self, expr, *args):
        return self.coords.get(expr.name, expr)

    def map_subscript(self, expr, *args):
        name = getattr(expr.aggregate, "name", None)
        if name == self.form.input:
            return self.read_input(offsets(self.form, expr.index_tuple))
        if name in self.form.registers:
            return self.read_register(name)
        return super().map_subscript(expr, *args)


def offsets(form: TemporalForm, index: tuple[Any, ...]) -> tuple[Any, ...]:
    """Per axis, the input read's offset from the updated point (in the output's indices):
    ``u[i + 1 + s, j + 15]`` with the output at ``[i + 1, j + 16]`` gives ``(s, -1)``."""
    out = []
    for d, expr in enumerate(index):
        terms = dict(_affine(expr) or {})
        terms.pop(form.inames[d], None)
        terms[1] = terms.get(1, 0) - form.out_offsets[d]
        total: Any = terms.pop(1)
        for var, c in sorted(terms.items(), key=str):
            total = total + c * prim.Variable(var) if total != 0 else c * prim.Variable(var)
        out.append(total)
    return tuple(out)


def place_update(form: TemporalForm, *, prefix: str, coords: Mapping[str, Any],
                 read_input: Callable[[tuple[Any, ...]], Any],
                 read_register: Callable[[str], Any], result: Any,
                 within: frozenset[str], predicates: frozenset[Any],
                 depends_on: frozenset[str], temporaries: dict[str, str]) -> tuple[
                     list[lp.Assignment], str]:
    """The form's instructions, computing one point, as new instructions.

    Args:
        prefix: prepended to the instruction ids (unique per place).
        coords: parallel iname → the interior coordinate expression at this place.
        read_input: offsets per axis → the expression reading the input there.
        read_register: read-only array → the expression holding its value at the point.
        result: the assignee that receives the output's new value.
        within: the inames the instructions run inside (the update's own loops added).
        temporaries: scalar temporary name → its name at this place (filled in when empty).

    Returns:
        The instructions and the id of the one producing *result*.
    """
    knl = form.kernel
    own = {name: temporaries.setdefault(name, f"{prefix}{name}")
           for name in knl.temporary_variables}
    rename = {**coords, **{n: prim.Variable(v) for n, v in own.items()}}
    mapper = _Rewrite(form, rename, read_input, read_register)
    ids = {insn.id: f"{prefix}{insn.id}" for insn in knl.instructions}
    made, last = [], ""
    for insn in knl.instructions:
        name = getattr(getattr(insn.assignee, "aggregate", None), "name", None)
        if name == form.output:
            assignee, last = result, ids[insn.id]
        else:
            assignee = mapper(insn.assignee)
        made.append(lp.Assignment(
            assignee, mapper(insn.expression), id=ids[insn.id],
            depends_on=frozenset(ids[d] for d in insn.depends_on if d in ids) | depends_on,
            within_inames=within | (insn.within_inames - set(form.inames)),
            predicates=predicates | frozenset(mapper(p) for p in insn.predicates),
            depends_on_is_final=True))
    return made, last
