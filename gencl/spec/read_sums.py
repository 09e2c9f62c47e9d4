"""A kernel that sums what it reads: work item i runs K iterations, each adding up groups of
unrolled reads, and stores the sum once (the request_overlap and fill_overlap benchmarks: what
their reads cost beside one another, the arithmetic one add a read)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import loopy as lp
import numpy as np


def read_sums(name: str, reads: Sequence[tuple[str, str, str]], arrays: Sequence[Any],
              workgroup: int, **fixed: int) -> lp.TranslationUnit:
    """The kernel *name*: per iteration ``sum(iname, expression)`` over 0 ≤ iname < bound for
    each (iname, bound, expression) of *reads*, unrolled, into one sum an item, stored in
    ``out[i]``. *arrays*: the read arrays' ``GlobalArg`` (``out``, ``n`` and ``K`` are added);
    *fixed*: the bounds' and shapes' values. Whole work-groups of *workgroup* items, K ≥ 1."""
    inames = ["i", "k", *(iname for iname, _, _ in reads)]
    bounds = ["0 <= i < n", "0 <= k < K", *(f"0 <= {iname} < {bound}"
                                             for iname, bound, _ in reads)]
    terms = " + ".join(f"sum({iname}, {expression})" for iname, _, expression in reads)
    t = lp.make_kernel(
        f"{{[{', '.join(inames)}]: {' and '.join(bounds)}}}",
        f"""
        for i
            <> acc = 0 {{id=zero}}
            for k
                acc = acc + {terms} {{id=add, dep=zero}}
            end
            out[i] = acc {{dep=add}}
        end
        """,
        [*arrays,
         lp.GlobalArg("out", np.float32, shape=("n",), is_input=False, is_output=True),
         lp.ValueArg("n", np.int32), lp.ValueArg("K", np.int32)],
        name=name, target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    t = lp.fix_parameters(t, **fixed)
    t = lp.tag_inames(t, {iname: "unr" for iname, _, _ in reads})
    return lp.assume(t, f"n mod {workgroup} = 0 and n >= {workgroup} and K >= 1")
