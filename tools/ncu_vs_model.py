"""Nsight Compute's counters of gencl variants beside what the model prices for them.

    gencl generate KERNEL --knob … --out DIR                  # one folder a variant
    python tools/opencl_to_cuda.py DIR… --size … > times.txt
    ncu --csv --metrics "$(python tools/ncu_vs_model.py --metrics)" \\
        python tools/opencl_to_cuda.py DIR… --size … --reps 1 > ncu.csv
    python tools/ncu_vs_model.py --times times.txt --ncu ncu.csv \\
        --profile bench_results/nvidia-h200 [--space SPACE.json …] [--json]

One line a variant: its CUDA time, the model's prediction, and each figure the model prices
that a counter measures (``gencl.model._predict.COUNTS``): the DRAM bytes of a launch
(``dram__bytes_read`` + ``_write``), the warps a compute unit holds (the model's resident
items over the sub-group width, the counter's achieved average), and what the work-groups ask
of the L2 for the lines they bring into the first level, the ``l2_bandwidth`` term's count
(``next_level_fill_bytes`` in 32-byte sectors and ``next_level_fill_requests``), and again for
those the first level let go (``next_level_refill_*``, counted, not priced), together (the L2's
sectors and requests from the first level, ``lts__t_sectors_srcunit_tex`` and
``lts__t_requests_srcunit_tex``, reads and writes). The variants pair with ncu's
launches in order: ``opencl_to_cuda.py --reps 1`` launches each once, in the order it prints them.

Not paired: the model's ``first_level_requests`` count the cache lines each sub-group
instruction touches, ncu's ``l1tex__t_requests`` one a warp instruction, whatever lines it
touches (H200, sobel2d at 64 × 4, 8192²: 21.0 million of each for ``float``, but 23.1 million
lines against 5.8 million requests for ``float4``, whose instructions touch four lines each).
The tool prints the warp instructions apart (``--metrics`` asks for them).

The model prices the device of ``--profile`` as ``gencl explain --profile`` does (a what-if:
that device's own parameters, wherever this runs). ``--space`` takes each point's OpenCL record
from the measured spaces of that device: its time (beside the CUDA one: trust a translation's
counters only where the two agree) and its build log's registers, which the prediction then
uses as ``gencl explain --accuracy`` does; without it the model estimates the registers.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

#: the DRAM bytes the model prices (``Prediction.counts``) and the metrics that sum to them
DRAM = ("dram__bytes_read.sum", "dram__bytes_write.sum")
#: warps a compute unit holds, on average over its active cycles
WARPS = "sm__warps_active.avg.per_cycle_active"
#: global load and store warp instructions (L1TEX requests: one an instruction)
INSTRUCTIONS = ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")
#: what the first level asks of the L2 (``next_level_fill_bytes`` over 32-byte sectors and
#: ``next_level_fill_requests``: the lines the groups bring in, their stores written through)
FILL_SECTORS = ("lts__t_sectors_srcunit_tex_op_read.sum",
                "lts__t_sectors_srcunit_tex_op_write.sum")
FILL_REQUESTS = ("lts__t_requests_srcunit_tex_op_read.sum",
                 "lts__t_requests_srcunit_tex_op_write.sum")
SECTOR_BYTES = 32
METRICS = ("gpu__time_duration.sum", *DRAM, WARPS, *INSTRUCTIONS, *FILL_SECTORS, *FILL_REQUESTS)


def read_times(text: str) -> list[tuple[str, dict[str, Any], float]]:
    """(spec name, point, CUDA median in seconds) of each line ``opencl_to_cuda.py`` printed."""
    out = []
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) < 4 or not fields[3].startswith("median "):
            continue
        name = fields[0].rsplit("-", 1)[0]
        out.append((name, json.loads(fields[1]), float(fields[3].split()[1]) * 1e-6))
    return out


def read_ncu(text: str) -> list[dict[str, float]]:
    """Each launch's metrics, in launch order, from ``ncu --csv`` (its own lines before the
    table, such as ``==PROF==``, skipped)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise ValueError("no ncu --csv table (a header line starting with \"ID\")")
    launches: dict[str, dict[str, float]] = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        value = row["Metric Value"].replace(",", "")
        try:
            launches.setdefault(row["ID"], {})[row["Metric Name"]] = float(value)
        except ValueError:
            continue
    return [launches[k] for k in sorted(launches, key=int)]


def record_key(spec: str, point: dict[str, Any]) -> str:
    return spec + json.dumps(point, sort_keys=True)


def space_records(paths: list[str]) -> dict[str, dict[str, Any]]:
    """Measured spaces' ok records by spec and point."""
    records = {}
    for path in paths:
        for r in json.loads(Path(path).read_text())["results"]:
            if r.get("status") == "ok":
                records[record_key(r["spec"], r["point"])] = r
    return records


def total(counters: dict[str, float], metrics: tuple[str, ...]) -> float | None:
    """The metrics' sum; None where ncu was not asked for one of them."""
    return sum(counters[m] for m in metrics) if all(m in counters for m in metrics) else None


def compare(times: list[tuple[str, dict[str, Any], float]], launches: list[dict[str, float]],
            profile: str, records: dict[str, dict[str, Any]],
            sizes: dict[str, int]) -> list[dict[str, Any]]:
    """One row a variant: the model's prediction and counts beside the counters."""
    from gencl import api
    from gencl.model import load_device_profile, params_from_profile
    from gencl.model._explain import points_stats, predict_variant
    from gencl.model._predict import with_refill_counts
    from gencl.model._registers import with_build_log

    if len(times) != len(launches):
        raise ValueError(f"{len(times)} variants timed but {len(launches)} launches profiled: "
                         "profile the same folders with --reps 1")
    device_profile = load_device_profile(profile)
    params = params_from_profile(device_profile)
    specs = {name: api.load(name) for name, _, _ in times}  # each spec loaded once
    rows = []
    for (name, point, cuda_s), counters in zip(times, launches):
        spec = specs[name]
        at = {**spec.sizes(point, device_profile.device, False), **sizes}
        record = records.get(record_key(name, point))
        stats = points_stats(spec, [point], [at], params, workers=1)[0]
        if isinstance(stats, str):  # loopy could not count it: no model figures
            pred, counts = None, {}
        else:
            stats = with_build_log(stats, record.get("build_log") if record else None)
            pred = with_refill_counts(predict_variant(spec, point, at, stats, params), stats,
                                      params)
            counts = pred.counts
        resident = counts.get("resident_items_per_cu")
        rows.append({
            "spec": name, "point": point, "sizes": at, "cuda_s": cuda_s,
            "opencl_s": record["median_s"] if record else None,
            "predicted_s": pred.time_s if pred else None,
            "bottleneck": pred.bottleneck if pred else None,
            "dram_bytes": {"model": counts.get("dram_bytes"), "ncu": total(counters, DRAM)},
            "warps_per_cu": {"model": resident / params.subgroup_size if resident else None,
                             "ncu": counters.get(WARPS)},
            "warp_instructions": total(counters, INSTRUCTIONS),
            "next_level_sectors": {"model": _sectors(_with_refills(counts, "bytes")),
                                   "ncu": total(counters, FILL_SECTORS)},
            "next_level_requests": {"model": _with_refills(counts, "requests"),
                                    "ncu": total(counters, FILL_REQUESTS)},
        })
    return rows


def _with_refills(counts: dict[str, float], what: str) -> float | None:
    """The groups' fills and refills of the first level (``next_level_fill_*`` and
    ``next_level_refill_*``): what the L2 serves it."""
    fills = counts.get(f"next_level_fill_{what}")
    return fills + counts.get(f"next_level_refill_{what}", 0.0) if fills is not None else None


def _sectors(fill_bytes: float | None) -> float | None:
    return fill_bytes / SECTOR_BYTES if fill_bytes is not None else None


def text(rows: list[dict[str, Any]]) -> str:
    """The rows as a table: times in µs, DRAM traffic in MB and warp instructions in millions,
    a launch each."""
    def fmt(v: float | None, scale: float = 1.0, spec: str = ".3g") -> str:
        return "—" if v is None else format(v * scale, spec)

    out = ["spec  point | CUDA µs  OpenCL µs  predicted µs  bottleneck | DRAM MB (model / ncu) | "
           "warps a CU (model resident / ncu achieved) | warp instructions, millions (ncu) | "
           "L2 sectors, millions (model fills and refills / ncu) | "
           "L2 requests, millions (model / ncu)"]
    for r in rows:
        knobs = ",".join(f"{k}={v}" for k, v in r["point"].items()
                         if k not in ("dtype", "temporal", "sweeps", "temporal_points"))
        times = " ".join(fmt(r[k], 1e6, ".1f") for k in ("cuda_s", "opencl_s", "predicted_s"))
        dram = " / ".join(fmt(r["dram_bytes"][k], 1e-6, ".1f") for k in ("model", "ncu"))
        warps = " / ".join(fmt(r["warps_per_cu"][k], 1, ".1f") for k in ("model", "ncu"))
        fills = " | ".join(" / ".join(fmt(r[key][k], 1e-6, ".1f") for k in ("model", "ncu"))
                           for key in ("next_level_sectors", "next_level_requests"))
        out.append(f"{r['spec']}  {knobs} | {times}  {r['bottleneck']} | {dram} | {warps} | "
                   f"{fmt(r['warp_instructions'], 1e-6, '.2f')} | {fills}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--metrics", action="store_true",
                    help="print the metrics to give ncu --metrics, and stop")
    ap.add_argument("--times", type=Path, help="what opencl_to_cuda.py printed")
    ap.add_argument("--ncu", type=Path, help="ncu --csv's output for the same folders, --reps 1")
    ap.add_argument("--profile", help="the device's committed profile (folder or profile.json)")
    ap.add_argument("--space", action="append", default=[],
                    help="a measured space of that device (OpenCL times, build logs; repeatable)")
    ap.add_argument("--size", action="append", default=[], metavar="NAME=INT",
                    help="the sizes the variants ran at (as given to opencl_to_cuda.py)")
    ap.add_argument("--json", action="store_true", help="the rows as JSON")
    opts = ap.parse_args(argv)
    from gencl.errors import GenclError

    if opts.metrics:
        print(",".join(METRICS))
        return 0
    if not (opts.times and opts.ncu and opts.profile):
        print("ncu_vs_model: --times, --ncu and --profile are needed", file=sys.stderr)
        return 2
    try:
        sizes = {k: int(v) for k, v in (s.split("=", 1) for s in opts.size)}
        rows = compare(read_times(opts.times.read_text()), read_ncu(opts.ncu.read_text()),
                       opts.profile, space_records(opts.space), sizes)
    except (OSError, ValueError, KeyError, GenclError) as exc:
        print(f"ncu_vs_model: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(rows, indent=1) if opts.json else text(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
