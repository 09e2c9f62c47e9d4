"""sum_order: the critical path of an update against closed forms, the balanced tree keeps the
terms and prints its grouping, the derived space offers it only to long chains, and a tree
variant of a user's stencil (names not the suite's) matches numpy on PoCL."""

from __future__ import annotations

import random

import loopy as lp
import numpy as np
import pymbolic.primitives as prim
import pytest
from pymbolic import parse

from gencl.errors import KnobError
from gencl.generate import derive_space, lower, with_derived_space
from gencl.generate.knobs.sum_order import balance, critical_path, order_sums
from gencl.measure import verify_variant
from gencl.spec import load_spec
from tests.generate_tests._stencils import star_spec


@pytest.mark.parametrize(("text", "written", "tree"), [
    ("a", 0, 0),
    ("a + b + c + d", 3, 2),                     # n terms: n − 1 as written, ⌈log₂ n⌉ as a tree
    ("a + b + c + d + e + f + g + h + k", 8, 4),
    ("2 * (a + b + c) + d", 4, 4),               # the product waits for its sum either way
    ("d + e + 2 * (a + b + c)", 4, 4),           # the deep term is added last as a tree
    ("u[i + 1] + u[i + 2] + u[i + 3]", 2, 2),    # index arithmetic is not counted
    ("sqrt(a + b + c) / d", 4, 4),               # a call waits for its parameters
])
def test_critical_path_closed_forms(text, written, tree):
    expr = parse(text)
    assert critical_path(expr) == written
    assert critical_path(balance(expr)) == tree


def test_balance_keeps_the_terms_and_the_value():
    rng = random.Random(3)
    names = [f"x{k}" for k in range(13)]
    text = " + ".join(f"{rng.choice([1, 2, 3])} * {n}" if k % 3 == 0 else n
                      for k, n in enumerate(names))
    expr, tree = parse(text), balance(parse(text))
    terms = sorted(map(str, _leaves(tree)))
    assert terms == sorted(map(str, _leaves(expr)))
    env = {n: rng.uniform(-1, 1) for n in names}
    from pymbolic import evaluate
    assert evaluate(tree, env) == pytest.approx(evaluate(expr, env), rel=1e-12)
    assert critical_path(tree) < critical_path(expr)


def _leaves(expr):
    if isinstance(expr, prim.Sum):
        return [t for c in expr.children for t in _leaves(c)]
    return [expr]


def test_the_tree_is_printed_with_its_parentheses():
    # loopy's own printer drops the parentheses of a sum nested in a sum: a + (b + c) would be
    # printed, and evaluated, as (a + b) + c
    t = lp.make_kernel("{[i]: 0 <= i < n}", "b[i] = a[i] + a[i + 1] + a[i + 2] + a[i + 3]",
                       [lp.GlobalArg("a", np.float32, shape=("n + 3",)),
                        lp.GlobalArg("b", np.float32, shape=("n",)), lp.ValueArg("n", np.int32)],
                       target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    written = lp.generate_code_v2(t).device_code()
    tree = lp.generate_code_v2(order_sums(t, "tree")).device_code()
    assert "a[i] + a[1 + i] + a[2 + i] + a[3 + i]" in written
    assert "(a[i] + a[1 + i]) + (a[2 + i] + a[3 + i])" in tree
    assert order_sums(t, "as_written") is t


def test_a_tree_on_a_target_that_prints_it_flat_is_refused():
    # loopy's plain OpenCL target prints a nested sum flat: a tree there would be a variant
    # equal to the written one under another name, so the value leaves the space
    t = lp.make_kernel("{[i]: 0 <= i < n}", "b[i] = a[i] + a[i + 1] + a[i + 2] + a[i + 3]",
                       [lp.GlobalArg("a", np.float32, shape=("n + 3",)),
                        lp.GlobalArg("b", np.float32, shape=("n",)), lp.ValueArg("n", np.int32)],
                       target=lp.OpenCLTarget(), lang_version=(2018, 2))
    assert order_sums(t, "as_written") is t
    with pytest.raises(KnobError, match="sum_order=tree needs PyOpenCL's default target"):
        order_sums(t, "tree")


def test_offered_only_where_the_tree_saves_a_long_chain():
    # mehrstellen3d: 21 dependent operations as written, 7 as a tree; laplace3d: 8 and 6
    assert derive_space(load_spec("mehrstellen3d")).knobs["sum_order"].values == (
        "as_written", "tree")
    assert derive_space(load_spec("mehrstellen3d")).stencil.update_paths == (21, 7)
    assert "sum_order" not in derive_space(load_spec("laplace3d")).knobs
    # a user's star of radius 3 written as one sum of 18 neighbours: 19 → 7; radius 1: 7 → 5
    assert "sum_order" in derive_space(star_spec(radius=3)).knobs
    assert "sum_order" not in derive_space(star_spec(radius=1)).knobs


def test_a_tree_variant_of_a_users_stencil_matches_numpy(engine):
    spec = with_derived_space(star_spec(radius=3))
    rng = np.random.default_rng(5)
    for partial in ({"sum_order": "tree"},
                    {"sum_order": "tree", "vector_width": 4, "stream_z": 4, "block_y": 2}):
        point = spec.complete(partial)
        assert spec.outside(point) is None, spec.outside(point)
        variant = lower(spec, point)
        assert ") + (" in variant.source
        built = engine.build(variant)
        sizes = {"nz": 8, "ny": 6, "nx": 32}
        values = spec.inputs(point, sizes, rng)
        assert verify_variant(engine, spec, built, sizes, values) <= 1.0, partial
