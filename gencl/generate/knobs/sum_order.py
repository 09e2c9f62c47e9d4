"""Sum order: the update's sums evaluated as written (left to right) or as a balanced tree.

Floating-point addition does not associate, so the OpenCL compiler evaluates ``a + b + … + z``
left to right: a chain of dependent adds as long as the sum. On the H200 that chain costs memory
time, not only arithmetic: NVIDIA's compiler (a streamed ``float`` item at 32 registers) issues
the loads of a long chain close to their use, between its adds, so a work item waits for memory
more than once per point (mehrstellen3d's 19-point update, 21 dependent operations, streamed:
502 µs at ``float``; the same with its twelve edge terms summed on their own, 13, as edge3d19
writes its update: 460 µs, edge3d19's own 456; ``float2`` 403 → 358, ``float4`` 357 → 334;
docs/tuning.md). ``"tree"`` regroups every sum of the kernel's assignments so that its
critical path is as short as a binary tree of its terms allows (the two shallowest partial sums
are added first, Huffman's rule), and prints the grouping: loopy's C printer drops the
parentheses of a sum nested in a sum (it treats + as associative), so the program is given a
target whose printer keeps them. Results differ from ``"as_written"`` by rounding only; every
variant is still checked against numpy.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any

import loopy as lp
from loopy.target.c.codegen.expression import CExpressionToCodeMapper
from loopy.target.pyopencl import PyOpenCLCASTBuilder, PyOpenCLTarget

from gencl.errors import KnobError
from gencl.generate.knobs._base import Transform, one_of

ORDERS = ("as_written", "tree")


def critical_path(expr: Any) -> int:
    """Dependent arithmetic operations on the longest path of *expr*, evaluated as a C compiler
    must evaluate it without reassociating: an n-ary sum or product left to right. Loads,
    variables and constants are 0; a subscript's index arithmetic is not counted."""
    import pymbolic.primitives as prim

    if isinstance(expr, prim.Sum | prim.Product):
        depth = critical_path(expr.children[0])
        for child in expr.children[1:]:
            depth = max(depth, critical_path(child)) + 1
        return depth
    if isinstance(expr, prim.Subscript | prim.Variable) \
            or not isinstance(expr, prim.ExpressionNode):
        return 0
    children: list[Any] = []  # a call's parameters come as a tuple
    for arg in getattr(expr, "__getinitargs__", lambda: ())():
        children.extend(arg if isinstance(arg, tuple) else (arg,))
    children = [c for c in children if isinstance(c, prim.ExpressionNode)
                and not isinstance(c, prim.Variable)]
    return 1 + max((critical_path(c) for c in children), default=0)


def _terms(expr: Any) -> list[Any]:
    """The terms of a sum, through every sum nested in it (the grouping as written)."""
    import pymbolic.primitives as prim

    if isinstance(expr, prim.Sum):
        return [t for c in expr.children for t in _terms(c)]
    return [expr]


def balance(expr: Any) -> Any:
    """*expr* with every sum regrouped into the tree of least critical path (subscripts kept as
    they are)."""
    import pymbolic.primitives as prim
    from loopy.symbolic import IdentityMapper

    class Balance(IdentityMapper):
        def map_subscript(self, expr: Any, *args: Any) -> Any:
            return expr  # index arithmetic: integers, isl's business

        def map_sum(self, expr: Any, *args: Any) -> Any:
            order = itertools.count()
            heap = [(critical_path(t), next(order), t)
                    for t in (self.rec(c, *args) for c in _terms(expr))]
            heapq.heapify(heap)
            while len(heap) > 1:
                (da, _, a), (db, _, b) = heapq.heappop(heap), heapq.heappop(heap)
                heapq.heappush(heap, (max(da, db) + 1, next(order), prim.Sum((a, b))))
            return heap[0][2]

    return Balance()(expr)


class _GroupedSumsToCode(CExpressionToCodeMapper):
    """loopy's C printer, but a sum inside a sum keeps its parentheses."""

    def map_sum(self, expr: Any, enclosing_prec: int) -> Any:
        from pymbolic.mapper.stringifier import PREC_PRODUCT, PREC_SUM

        return self.parenthesize_if_needed(
            self.join_rec(" + ", expr.children, PREC_PRODUCT), enclosing_prec, PREC_SUM)


class _GroupedSumsBuilder(PyOpenCLCASTBuilder):
    def get_c_expression_to_code_mapper(self) -> Any:
        return _GroupedSumsToCode()


class GroupedSumsTarget(PyOpenCLTarget):
    """PyOpenCL's target whose device code prints nested sums with their parentheses."""

    def get_device_ast_builder(self) -> Any:
        return _GroupedSumsBuilder(self)


def order_sums(t: lp.TranslationUnit, order: str) -> lp.TranslationUnit:
    """Every assignment's sums as written, or as balanced trees (``"tree"``). A tree needs
    PyOpenCL's default target (the one whose printer this module replaces): on any other,
    loopy's printer would print it flat, a variant that silently equals ``"as_written"``, so
    the value is refused there (a KnobError: the point leaves the space)."""
    if order == "as_written":
        return t
    if type(t.target) is not PyOpenCLTarget:
        raise KnobError(f"sum_order=tree needs PyOpenCL's default target (the program has "
                        f"{type(t.target).__name__}, whose printer drops a sum's grouping)")
    knl = t.default_entrypoint
    insns = [i.copy(expression=balance(i.expression)) if isinstance(i, lp.Assignment) else i
             for i in knl.instructions]
    t = t.with_kernel(knl.copy(instructions=insns))
    return t.copy(target=GroupedSumsTarget())


def _apply(t: lp.TranslationUnit, value: str, *, point: Any) -> lp.TranslationUnit:
    return order_sums(t, value)


TRANSFORM = Transform("sum_order", _apply, one_of(*ORDERS))
