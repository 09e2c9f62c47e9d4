"""The register estimate's liveness walk against closed forms: carried register blocks, rotated
vector columns whose side lanes only a shuffle reads, one load shared by two temporaries,
values read straight into an expression."""

from __future__ import annotations

import numpy as np
import pytest

from gencl.model._liveness import DIRECT_LIVE_SHARE, live_private_words
from gencl.model._stats import _declared_private_words, _linearized


def _suite_variant(kernel: str, **point):
    from gencl.api import load
    from gencl.generate import transform_program

    spec = load(f"tuning/{kernel}.py")
    base = {"dtype": "float32", "temporal": "none", "sweeps": 1, "temporal_points": [1, 1]}
    return transform_program(spec, {**base, **point})


@pytest.mark.parametrize("width, words", [(1, 9), (4, 18), (8, 30)])
def test_a_streamed_box_keeps_its_centre_columns_and_one_lane_of_each_side(width, words):
    """box2d9 streamed along j: three rows of the centre column are live (all lanes), and of
    the columns beside it only the lane next to the centre, which a shuffle picks: 3 × width
    + 3 × 2 words (scalar code: the 3 × 3 window). The declared temporaries hold far more."""
    t = _suite_variant("box2d9", vector_width=width, stream=4, workgroup=[64, 2])
    sizes = {"ny": 256, "nx": 256}
    assert live_private_words(_linearized(t), sizes) == words
    if width > 1:
        assert _declared_private_words(t.default_entrypoint, sizes) > 4 * words


def test_two_temporaries_loaded_from_one_address_share_their_registers():
    """box3d27 streamed along k at float4: the centre column is loaded into the rotation the
    stencil reads directly and into the one the shuffles read; once each, 3 rows × 3 planes ×
    (4 centre lanes + 2 side lanes) = 54 words."""
    t = _suite_variant("box3d27", vector_width=4, stream_k=4, block_j=1, local_u="none",
                       workgroup=[64, 2, 1])
    assert live_private_words(_linearized(t), {"nz": 64, "ny": 64, "nx": 256}) == 54


def _blocked_sum(block: int):
    """out[i, b] = Σ_k u[k, i, b], register-blocked: *block* accumulators carried through the
    sequential k loop, the block unrolled."""
    import loopy as lp

    knl = lp.make_kernel(
        "{[i, k, b0, b1, b2]: 0 <= i < n and 0 <= k < nk and 0 <= b0, b1, b2 < %d}" % block,
        """
        acc[b0] = 0 {id=init}
        acc[b1] = acc[b1] + u[k, i, b1] {id=sum, dep=init}
        out[i, b2] = acc[b2] {dep=sum}
        """,
        [lp.GlobalArg("u", np.float32, shape=("nk", "n", block)),
         lp.GlobalArg("out", np.float32, shape=("n", block)),
         lp.TemporaryVariable("acc", np.float32, shape=(block,),
                              address_space=lp.AddressSpace.PRIVATE),
         lp.ValueArg("n", np.int32), lp.ValueArg("nk", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", 64, inner_tag="l.0", outer_tag="g.0")
    knl = lp.tag_inames(knl, {"b0": "unr", "b1": "unr", "b2": "unr"})
    return lp.prioritize_loops(knl, "k,b1")


@pytest.mark.parametrize("block", [1, 4])
def test_accumulators_a_loop_carries_are_live_through_it(block):
    """Each accumulator is live through the k loop; the unrolled sums run one after another,
    each with one value read straight from u live while it runs."""
    words = live_private_words(_linearized(_blocked_sum(block)), {"n": 256, "nk": 16})
    assert words == block + DIRECT_LIVE_SHARE * 1


def test_values_read_into_an_expression_count_while_it_runs():
    """No temporaries: the four values of a 4-point sum, DIRECT_LIVE_SHARE of them at once."""
    import loopy as lp

    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}",
        "out[i] = u[i] + u[i + 1] + u[i + 2] + u[i + 3]",
        [lp.GlobalArg("u", np.float32, shape=("n + 3",)),
         lp.GlobalArg("out", np.float32, shape=("n",)), lp.ValueArg("n", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", 64, inner_tag="l.0", outer_tag="g.0")
    assert live_private_words(_linearized(knl), {"n": 1024}) == 4 * DIRECT_LIVE_SHARE


def test_the_counted_statistics_carry_the_live_words():
    from gencl.model import compute_stats

    stats = compute_stats(_blocked_sum(4), {"n": 256, "nk": 16}, subgroup_size=32)
    assert stats.extra["live_private_words"] == 4 + DIRECT_LIVE_SHARE


def test_the_estimate_does_not_follow_the_processs_string_hashes():
    """Jacobi with float4 rows blocked by two: the walk draws a random value for each iname
    and parameter to tell constant indices apart. Drawn in a set's order, the values followed
    the process's string hashes, and this variant's live words were 12 in some processes and 16
    in others (PYTHONHASHSEED 3 against 0)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("from gencl.api import load; from gencl.model._stats import variant_stats; "
            "spec = load('jacobi'); "
            "p = spec.complete({'vector_width': 4, 'block_y': 2}); "
            "s = variant_stats(spec, p, spec.verify_sizes(p, None), subgroup_size=32); "
            "print(s.extra['live_private_words'])")
    root = Path(__file__).resolve().parents[2]
    words = set()
    for seed in ("0", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "GENCL_NO_CACHE": "1",
               "PYTHONPATH": str(root)}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=300, cwd=root)
        assert out.returncode == 0, out.stderr
        words.add(json.loads(out.stdout.strip().splitlines()[-1]))
    assert len(words) == 1
