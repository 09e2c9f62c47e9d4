"""Space: measure an application kernel's whole space once per device, as a replayable cache.

``measure_space`` streams every point's Measurement into ``bench_results/<slug>/<spec>/space.json``
(resumable, splittable into shards); ``write_report`` turns the cache into seed 003's Table 2, a
roofline plot and ``summary.json``; ``measure_peers`` times what a user would otherwise run
(PyTorch, CuPy, a hand-written OpenCL kernel) at the same size.
"""

from gencl.space._limits import DeviceLimits, limits_for
from gencl.space._measure import measure_space, open_results, space_points
from gencl.space._peers import measure_copy_bandwidth, measure_peers
from gencl.space._report import summarize_space, write_report
from gencl.space._sweeps import run_sweeps, verify_sweeps

__all__ = ["DeviceLimits", "limits_for", "measure_copy_bandwidth", "measure_peers",
           "measure_space", "open_results", "run_sweeps", "space_points", "summarize_space",
           "verify_sweeps", "write_report"]
