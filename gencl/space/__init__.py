"""Space: measure an application kernel's whole space once per device, as a replayable cache.

``run_space`` streams every point's Measurement into ``bench_results/<slug>/<spec>/space.json``
(resumable, splittable into shards), times the spec's peers and the copy bandwidth in the same
run, and writes summary.json, report.md (seed 003's Table 2 for any kernel) and a roofline plot.
"""

from gencl.space._limits import DeviceLimits, limits_for
from gencl.space._measure import measure_space, open_results, space_points
from gencl.space._peers import measure_copy_bandwidth, measure_peers
from gencl.space._report import summarize_space, write_report
from gencl.space._run import (
    SpaceRun, check_fixed, generate_space, report_space, run_space, space_slice)

__all__ = ["DeviceLimits", "SpaceRun", "check_fixed", "generate_space", "limits_for",
           "measure_copy_bandwidth", "measure_peers", "measure_space", "open_results",
           "report_space", "run_space", "space_points", "space_slice", "summarize_space",
           "write_report"]

from gencl._callable import make_callable  # noqa: E402

make_callable(__name__, "space")  # gencl.space(...) is gencl.api.space(...)
