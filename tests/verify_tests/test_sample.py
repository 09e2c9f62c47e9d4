"""The pairwise covering sample: every value and every coverable pair, constraints respected."""

from __future__ import annotations

import itertools

from gencl.verify import covering_sample, uncovered_pairs

AXES = {"dtype": ("int8", "float32", "float64"), "vector_width": (1, 2, 4, 8),
        "unroll": ("none", "full"), "workgroup": (32, 64, 128, 256, 512)}


def _valid():
    names = list(AXES)
    for values in itertools.product(*AXES.values()):
        p = dict(zip(names, values))
        if p["vector_width"] > 1 and p["dtype"] == "int8":  # a constraint, as in specs/copy.py
            continue
        yield p


def test_sample_covers_every_pair_of_valid_points():
    valid = list(_valid())
    sample = covering_sample(AXES, valid)
    assert uncovered_pairs(AXES, valid, sample) == 0
    assert len(sample) < len(valid) / 4  # the point of sampling
    assert all(p in valid for p in sample)  # constraints hold
    for i, j in itertools.combinations(AXES, 2):  # independent check of the pair property
        wanted = {(p[i], p[j]) for p in valid}
        assert wanted == {(p[i], p[j]) for p in sample}, (i, j)


def test_sample_cap_and_first_point():
    valid = list(_valid())
    first = {"dtype": "float32", "vector_width": 4, "unroll": "full", "workgroup": 512}
    sample = covering_sample(AXES, valid, limit=5, first=[first])
    assert len(sample) == 5 and sample[0] == first
    assert uncovered_pairs(AXES, valid, sample) > 0


def test_choose_points_small_space_is_whole(tmp_path):
    from gencl.spec import load_spec
    from gencl.verify import choose_points

    spec = load_spec("tests/verify_tests/fixtures/foldable_chain.py")
    points, how = choose_points(spec)
    assert len(points) == 4 and how == "all 4 points"
    points, how = choose_points(spec, sample=3)
    assert len(points) == 3 and how.startswith("pairwise sample")


def test_choose_points_keeps_the_fixed_values_and_names_them():
    from gencl.spec import load_spec
    from gencl.verify import choose_points

    spec = load_spec("tests/verify_tests/fixtures/foldable_chain.py")
    name = next(n for n, values in spec.axes.items() if len(values) > 1)
    value = spec.axes[name][-1]
    whole, _ = choose_points(spec)
    points, how = choose_points(spec, fixed={name: value})
    assert points == [p for p in whole if p[name] == value] and 0 < len(points) < len(whole)
    assert how == f"all {len(points)} points, {name}={value}"


def test_choose_points_rejects_a_knob_outside_the_space():
    import pytest

    from gencl.errors import SpecError
    from gencl.spec import load_spec
    from gencl.verify import choose_points

    spec = load_spec("tests/verify_tests/fixtures/foldable_chain.py")
    with pytest.raises(SpecError, match="knob nope"):
        choose_points(spec, fixed={"nope": 1})
    name = next(iter(spec.axes))
    with pytest.raises(SpecError, match=f"knob {name}: value"):
        choose_points(spec, fixed={name: "not a value"})
