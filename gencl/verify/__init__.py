"""Verify: emitted-code checks — numerics vs numpy, oclgrind, PTX inspection on NVIDIA."""

from gencl.verify._console import print_report
from gencl.verify._oclgrind import parse_findings, run_under_oclgrind
from gencl.verify._result import VariantCheck, VerifyReport
from gencl.verify._sample import choose_points, covering_sample, uncovered_pairs
from gencl.verify._verify import verify
from gencl.verify.ptx import check_ptx, generic_rules, rules_for

__all__ = ["VariantCheck", "VerifyReport", "check_ptx", "choose_points", "covering_sample",
           "generic_rules", "parse_findings", "print_report", "rules_for", "run_under_oclgrind",
           "uncovered_pairs", "verify"]

from gencl._callable import make_callable  # noqa: E402

make_callable(__name__, "verify")  # gencl.verify(...) is gencl.api.verify(...)
