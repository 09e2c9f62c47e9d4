"""Instructions a kernel issued (Nsight Compute) beside what loopy counts and the model prices.

The model prices a temporally blocked launch from its transform's traffic and the flops of its
point updates; the instructions of the scheme's own code (ring indices, guards, both stages)
are not in it. This puts, per variant, the warp instructions Nsight Compute counted in the
CUDA translation (``tools/opencl_to_cuda.py``) at the device's issue rate beside loopy's lane
count at the same rate (``gencl.model._predict.issue_time``), with how busy the schedulers
were and how many warps were resident:

    python tools/ncu_issue.py --times times.txt --ncu ncu.csv \\
        --space bench_results/nvidia-h200/box2d9/space.json --space …

``--ncu`` is the output of ``ncu --csv --metrics METRICS python tools/opencl_to_cuda.py … --reps 1``
(``--metrics`` prints METRICS), one or more such runs in one file; a second ``--ncu`` of the
same variants with ``--stall-metrics`` adds the cycles an issued instruction waited on global
loads (long scoreboard) and at barriers; ``--times`` the same variants timed without ncu.
Each variant's OpenCL time and sizes come from the record of the same point in the ``--space``
file of its kernel (the committed space it was measured in).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ncu_vs_model  # noqa: E402 -- the tool beside this one: its reader of ncu's --csv table

METRICS = ("gpu__time_duration.sum", "smsp__inst_executed.sum", "smsp__thread_inst_executed.sum",
           "smsp__thread_inst_executed_pred_on.sum",
           "smsp__issue_active.avg.pct_of_peak_sustained_active",
           "sm__warps_active.avg.pct_of_peak_sustained_active", "dram__bytes.sum",
           "smsp__inst_executed_op_global_ld.sum", "smsp__inst_executed_op_shared_ld.sum",
           "smsp__inst_executed_op_shared_st.sum", "smsp__inst_executed_op_global_st.sum",
           "smsp__average_warp_latency_per_inst_issued.ratio")
#: why warps did not issue, in cycles per issued instruction (a second ncu run: ``--stall-metrics``)
STALLS = ("long_scoreboard", "short_scoreboard", "barrier", "membar", "mio_throttle", "lg_throttle",
          "wait", "math_pipe_throttle", "not_selected", "selected", "dispatch_stall",
          "no_instruction", "drain", "branch_resolving")


def stall_metric(reason: str) -> str:
    return f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"


def read_ncu(text: str) -> dict[str, dict[str, Any]]:
    """Variant id → its point and metrics. opencl_to_cuda prints a line per variant as it runs
    (id, point, …) and ncu numbers the kernels of each process from 0 in launch order: one
    launch a variant with ``--reps 1``; each process's table is read by ncu_vs_model's reader."""
    out: dict[str, dict[str, Any]] = {}
    for run in text.split("==PROF== Connected")[1:]:
        printed = [line.split("\t")[:2] for line in run.splitlines()
                   if "\t" in line and not line.startswith('"')]
        for (vid, point), metrics in zip(printed, ncu_vs_model.read_ncu(run), strict=True):
            out[vid] = {"point": json.loads(point), **metrics}
    return out


def read_times(text: str) -> dict[str, float]:
    """Variant id → median seconds (opencl_to_cuda's ``median N us``)."""
    return {line.split("\t")[0]: float(line.split("median ")[1].split()[0]) * 1e-6
            for line in text.splitlines() if "\t" in line and "median " in line}


def read_runs(texts: list[str]) -> dict[str, dict[str, Any]]:
    """The same variants' ncu runs (``read_ncu`` each): their metrics together, per variant."""
    counted: dict[str, dict[str, Any]] = {}
    for text in texts:
        for vid, m in read_ncu(text).items():
            counted.setdefault(vid, {}).update(m)
    return counted


def rows(counted: dict[str, dict[str, Any]], times: dict[str, float],
         spaces: list[str]) -> list[dict[str, Any]]:
    """One row a counted variant: its record's OpenCL time, the model's price and loopy's
    issue beside the counters (each kernel's spec, profile and records read once)."""
    from gencl.model import load_params, load_results
    from gencl.model._explain import points_stats, predict_from_stats
    from gencl.model._predict import issue_time
    from gencl.spec import load_spec

    kernels = {}  # spec name → (spec, params, the space's results)
    for path in spaces:
        data = load_results(path)
        kernels[data["spec"]] = (load_spec(data["spec"]), load_params(data["device"]), data)
    out = []
    for vid, m in counted.items():
        name = vid.rsplit("-", 1)[0]
        if name not in kernels:
            sys.exit(f"ncu_issue: no --space for {name} (variant {vid})")
        spec, params, data = kernels[name]
        record = next((r for r in data["results"] if r["point"] == m["point"]
                       and r["status"] == "ok"), None)
        sizes = record["sizes"] if record else data["sizes"]
        stats = points_stats(spec, [m["point"]], [sizes], params, workers=1)[0]
        if isinstance(stats, str):
            sys.exit(f"ncu_issue: {vid}: {stats}")
        predicted = predict_from_stats(spec, [m["point"]], [sizes], [stats], params)[0]
        loopy_issue = issue_time(stats, params)
        cycles = m.get("smsp__average_warp_latency_per_inst_issued.ratio")
        waited = m.get(stall_metric("long_scoreboard"))
        out.append({
            "variant": vid, "scheme": m["point"].get("temporal", "none"),
            "sweeps": int(m["point"].get("sweeps", 1)),
            "opencl_s": record["median_s"] if record else None,
            "cuda_s": times.get(vid), "model_s": predicted.time_s if predicted else None,
            # the model's wait of the updates that read global arrays (update_latency)
            "model_wait_s": predicted.terms.get("update_latency") if predicted else None,
            "loopy_issue_s": loopy_issue,
            # warp instructions at the profile's lane rate over a sub-group's lanes
            "sass_issue_s": m["smsp__inst_executed.sum"] * params.subgroup_size
            / params.lane_issue_per_s,
            "sass_over_loopy": m["smsp__thread_inst_executed.sum"]
            / max(loopy_issue * params.lane_issue_per_s, 1.0),
            "issue_active_pct": m["smsp__issue_active.avg.pct_of_peak_sustained_active"],
            "warps_active_pct": m["sm__warps_active.avg.pct_of_peak_sustained_active"],
            "cycles_per_issue": cycles, "long_scoreboard": waited,
            "barrier": m.get(stall_metric("barrier")),
            # the share of a warp's cycles it waited on global loads, of the CUDA time
            "global_wait_s": times[vid] * waited / cycles
            if waited is not None and cycles and vid in times else None,
        })
    return out


def table(found: list[dict[str, Any]]) -> str:
    head = ("variant", "scheme", "k", "OpenCL µs", "CUDA µs", "model µs", "loopy issue µs",
            "SASS issue µs", "SASS / loopy lanes", "issue active %", "warps active %",
            "cycles a warp's issue", "of them on global loads", "at barriers",
            "CUDA µs × global-load share", "model's update wait µs")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def us(x: float | None) -> str:
        return "–" if x is None else f"{x * 1e6:.0f}"

    def cycles(x: float | None) -> str:
        return "–" if x is None else f"{x:.1f}"
    for r in found:
        lines.append("| " + " | ".join([
            r["variant"], r["scheme"], str(r["sweeps"]), us(r["opencl_s"]), us(r["cuda_s"]),
            us(r["model_s"]), us(r["loopy_issue_s"]), us(r["sass_issue_s"]),
            f"{r['sass_over_loopy']:.2f}", f"{r['issue_active_pct']:.0f}",
            f"{r['warps_active_pct']:.0f}", cycles(r["cycles_per_issue"]),
            cycles(r["long_scoreboard"]), cycles(r["barrier"]), us(r["global_wait_s"]),
            us(r["model_wait_s"])]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--metrics", action="store_true", help="print the ncu metrics and exit")
    ap.add_argument("--stall-metrics", action="store_true",
                    help="print the ncu metrics of the stall reasons and exit")
    ap.add_argument("--times")
    ap.add_argument("--ncu", action="append", default=[])
    ap.add_argument("--space", action="append", default=[])
    args = ap.parse_args(argv)
    if args.metrics:
        print(",".join(METRICS))
        return 0
    if args.stall_metrics:
        print(",".join(["smsp__inst_executed.sum", *map(stall_metric, STALLS)]))
        return 0
    if not (args.times and args.ncu and args.space):
        ap.error("--times, --ncu and --space are needed")
    counted = read_runs([Path(path).read_text() for path in args.ncu])
    times = read_times(Path(args.times).read_text())
    print(table(rows(counted, times, args.space)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
