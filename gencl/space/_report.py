"""The space cache → seed 003 Table 2 (markdown), the variants-vs-roofline plot, summary.json."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: flops per interior point of the sweep: 4 adds of neighbours, h²·f (mul, add), ω/4·(…) (mul),
#: (1−ω)·u (sub, mul), final add — the arithmetic intensity of the roofline plot
FLOPS_PER_POINT = 9


def per_sweep(r: Mapping[str, Any]) -> float:
    """Time per sweep: a temporal-blocking launch runs k = ``sweeps`` sweeps."""
    return r["median_s"] / r["point"].get("sweeps", 1)


def _best(results: Sequence[Mapping[str, Any]], **fixed: Any) -> Mapping[str, Any] | None:
    ok = [r for r in results if r["status"] == "ok" and
          all(r["point"].get(k, 1 if k == "sweeps" else None) == v for k, v in fixed.items())]
    return min(ok, key=per_sweep) if ok else None


def _best_temporal(results: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The fastest variant per sweep among those running k > 1 sweeps per launch."""
    ok = [r for r in results if r["status"] == "ok" and r["point"].get("sweeps", 1) > 1]
    return min(ok, key=per_sweep) if ok else None


def _components(spec: Any, point: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each single optimization in *point*, as the point set that has it alone (over baseline).

    Local caching exists only in the padded form, so its version 'alone' is BE_mc*.
    """
    variants = spec.extra["variants"]
    out: dict[str, dict[str, Any]] = {}
    base = {**variants["baseline"], "block_x": 1, "block_y": 1}
    if point["vector_width"] > 1:
        out[f"vec{point['vector_width']}"] = {**base, "vector_width": point["vector_width"]}
    if point["boundary"] == "padded":
        out["BE"] = {**base, "boundary": "padded"}
    if point["local"] != "none":
        name = "BE_" + {"static": "mcStat", "dynamic": "mcDyn"}[point["local"]]
        out[name] = {**base, **variants[name]}
    if (point["block_x"], point["block_y"]) != (1, 1):
        out[f"block{point['block_x']}x{point['block_y']}"] = {
            **base, "block_x": point["block_x"], "block_y": point["block_y"]}
    return out


def summarize_space(spec: Any, results: Sequence[Mapping[str, Any]], *, device: str, n: int,
                    dtype: str, space_size: int, copy_bw: float | None,
                    peers: Mapping[str, float]) -> dict[str, Any]:
    """summary.json: exactly the keys issue 6 asks for."""
    mine = [r for r in results if r["point"].get("dtype") == dtype and r["sizes"].get("n") == n]
    best = _best(mine, sweeps=1)
    base = _best(mine, **spec.extra["variants"]["baseline"], block_x=1, block_y=1)
    temporal = _best_temporal(mine)
    return {
        "device": device, "n": n, "dtype": dtype, "space_size": space_size,
        "measured": len(mine),
        "best_time_s": best["median_s"] if best else None,
        "best_knobs": best["point"] if best else None,
        "baseline_time_s": base["median_s"] if base else None,
        "copy_bw_Bps": copy_bw,
        "peers": dict(peers),
        # best launch time / k among k > 1 sweeps per launch; best_time_s is one sweep per launch
        "temporal_best_time_per_sweep_s": per_sweep(temporal) if temporal else None,
    }


def _gbs(r: Mapping[str, Any] | None) -> str:
    return f"{r['metrics']['bytes'] / 1e9:.1f}" if r else "–"


def _us(r: Mapping[str, Any] | None) -> str:
    if not r:
        return "–"
    k = r["point"].get("sweeps", 1)
    return f"{r['median_s'] / k * 1e6:.1f} ± {r['ci95_s'] / k * 1e6:.1f}"


def _pct(t_base: float | None, r: Mapping[str, Any] | None) -> str:
    return f"{(t_base / per_sweep(r) - 1) * 100:+.0f} %" if r and t_base else "–"


def report_markdown(spec: Any, results: Sequence[Mapping[str, Any]], summary: Mapping[str, Any],
                    header: Mapping[str, Any], *, sampled: bool, skipped_peers: Mapping[str, str],
                    copy: Mapping[str, Any]) -> str:
    n, dtype = summary["n"], summary["dtype"]
    mine = [r for r in results if r["point"].get("dtype") == dtype and r["sizes"].get("n") == n]
    variants = spec.extra["variants"]
    base = _best(mine, **variants["baseline"], block_x=1, block_y=1)
    t_base = base["median_s"] if base else None
    best = _best(mine, sweeps=1)
    temporal = _best_temporal(mine)
    copy_bw = summary["copy_bw_Bps"]
    dev = header.get("device", {})
    statuses: dict[str, int] = {}
    for r in mine:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    lines = [
        f"# ω-Jacobi space on {dev.get('name', summary['device'])}",
        "",
        f"Written by `gencl space jacobi` (gencl {header.get('gencl_version')}, "
        f"{header.get('date')}); driver {dev.get('driver')}, reported clock "
        f"{(dev.get('max_clock_hz') or 0) / 1e6:.0f} MHz. Grid {n}² interior points, {dtype}. "
        "Time per sweep = median of OpenCL-event samples, ± 95 % CI (1.96 σ). Effective "
        "bandwidth counts 3 elements per interior point (read u, read f, write u_new: 12 B in "
        "float32, 24 B in float64) per sweep; a temporal-blocking launch of k sweeps counts k × "
        "that, and its time per sweep is the launch time / k. Every variant passed 3 ping-pong "
        "launches against numpy before its time counted.",
        "",
        f"Space: {summary['space_size']} points on this device"
        f"{_slice_words(header)}; "
        f"{'**sampled**: ' if sampled else ''}{summary['measured']} measured "
        f"({', '.join(f'{k} {v}' for k, v in sorted(statuses.items()))}).",
        "",
        "## Table 2 (seed 003): most effective optimization",
        "",
        "| Device | Best version | Improvement | Primary | Contrib. | vs copy BW |",
        "|---|---|---|---|---|---|",
    ]
    if best and t_base:
        comps = {name: _best(mine, **pt) for name, pt in _components(spec, best["point"]).items()}
        contrib = {k: (t_base / r["median_s"] - 1) * 100 for k, r in comps.items() if r}
        primary = max(contrib, key=contrib.get) if len(contrib) > 1 else "–"
        name = spec.extra["variant_name"](best["point"])
        blk = (best["point"]["block_x"], best["point"]["block_y"])
        if blk != (1, 1):
            name += f"_block{blk[0]}x{blk[1]}"
        frac = f"{best['metrics']['bytes'] / copy_bw * 100:.0f} %" if copy_bw else "–"
        lines.append(f"| {dev.get('name', '')} | {name} | {(t_base / best['median_s'] - 1) * 100:.0f} % "
                     f"| {primary} | {f'{contrib[primary]:.0f} %' if primary != '–' else '–'} "
                     f"| {frac} |")
    if temporal and t_base:
        name = spec.extra["variant_name"](temporal["point"])
        frac = f"{temporal['metrics']['bytes'] / copy_bw * 100:.0f} %" if copy_bw else "–"
        lines.append(f"| {dev.get('name', '')} | {name} {tuple(temporal['point']['workgroup'])} "
                     f"(temporal) | {(t_base / per_sweep(temporal) - 1) * 100:.0f} % "
                     f"| temporal blocking | – | {frac} |")
    if best:
        lines += ["", f"Best knobs: `{json.dumps(best['point'])}`, {_us(best)} µs per sweep, "
                  f"{_gbs(best)} GB/s effective."]
    lines += ["", "## Versions (work-group shape tuned exhaustively for each, as in seed 003)", "",
              "| Version | blocking 1×1: µs/sweep | GB/s | improvement | any blocking: µs/sweep "
              "| GB/s | improvement | best work-group |", "|---|---|---|---|---|---|---|---|"]
    for vname, fixed in variants.items():
        r1 = _best(mine, **fixed, block_x=1, block_y=1)
        rb = _best(mine, **fixed)
        wg = f"{tuple(rb['point']['workgroup'])} blk {rb['point']['block_x']}×" \
             f"{rb['point']['block_y']}" if rb else "–"
        lines.append(f"| {vname} | {_us(r1)} | {_gbs(r1)} | {_pct(t_base, r1)} | {_us(rb)} | "
                     f"{_gbs(rb)} | {_pct(t_base, rb)} | {wg} |")
    lines += ["", "## Reference points (same run, same size)", ""]
    if copy_bw:
        lines.append(f"- Copy bandwidth (specs/copy.py float4, point {copy.get('point')}): "
                     f"{copy_bw / 1e9:.1f} GB/s — the roof of the plot.")
    for name, t in sorted(summary["peers"].items()):
        eff = 3 * (4 if dtype == "float32" else 8) * n * n / t
        lines.append(f"- {name}: {t * 1e6:.1f} µs per sweep ({eff / 1e9:.1f} GB/s effective)")
    for name, why in sorted(skipped_peers.items()):
        lines.append(f"- {name}: not measured ({why})")
    lines += ["", "## Temporal blocking (k sweeps per launch, time per sweep = launch / k)", ""]
    if temporal:
        floor = 3 * (4 if dtype == "float32" else 8) * n * n / copy_bw if copy_bw else None
        verdict = (f"; the single-sweep copy-bandwidth floor is {floor * 1e6:.1f} µs "
                   f"({'below' if per_sweep(temporal) < floor else 'not below'} it)"
                   if floor else "")
        lines.append(f"Best: {spec.extra['variant_name'](temporal['point'])}, knobs "
                     f"`{json.dumps(temporal['point'])}`, {_us(temporal)} µs per sweep, "
                     f"{_gbs(temporal)} GB/s effective{verdict}.")
    else:
        lines.append("No temporal-blocking variant was measured in this run.")
    lines += ["", "![variants against the bandwidth roofline](roofline.png)", ""]
    return "\n".join(lines)


def plot_roofline(spec: Any, results: Sequence[Mapping[str, Any]], summary: Mapping[str, Any],
                  path: Path) -> None:
    """Effective bandwidth of every measured variant by version, under the copy-bandwidth roof."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    n, dtype = summary["n"], summary["dtype"]
    ok = [r for r in results if r["status"] == "ok" and r["point"].get("dtype") == dtype
          and r["sizes"].get("n") == n]
    names = list(spec.extra["variants"])
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [3, 2]})
    rng = np.random.default_rng(0)
    for k, vname in enumerate(names):
        fixed = spec.extra["variants"][vname]
        ys = [r["metrics"]["bytes"] / 1e9 for r in ok
              if all(r["point"].get(a) == b for a, b in fixed.items())]
        if ys:
            ax.scatter(k + rng.uniform(-0.3, 0.3, len(ys)), ys, s=8, alpha=0.6, label=vname)
    copy_bw = summary.get("copy_bw_Bps")
    if copy_bw:
        ax.axhline(copy_bw / 1e9, color="k", ls="--", label="copy bandwidth (roof)")
    for name, t in summary.get("peers", {}).items():
        ax.axhline(3 * np.dtype(dtype).itemsize * n * n / t / 1e9, ls=":", lw=1, color="gray")
        ax.annotate(name, (len(names) - 0.5, 3 * np.dtype(dtype).itemsize * n * n / t / 1e9),
                    fontsize=7, color="gray", ha="right")
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_ylabel("effective GB/s (12 B per interior point, float32)")
    ax.set_title(f"ω-Jacobi {n}² {dtype}: every variant (work-group shape, blocking)")
    # classic roofline: all variants share one arithmetic intensity
    itemsize = np.dtype(dtype).itemsize
    ai = FLOPS_PER_POINT / (3 * itemsize)
    if copy_bw:
        xs = np.logspace(-2, 2, 50)
        ax2.loglog(xs, xs * copy_bw / 1e9, "k--", label="copy bandwidth × intensity")
    flops = [FLOPS_PER_POINT * n * n / per_sweep(r) / 1e9 for r in ok]
    ax2.scatter([ai] * len(flops), flops, s=8, alpha=0.5)
    ax2.set_xlabel("flops per effective byte")
    ax2.set_ylabel("GFLOP/s")
    ax2.set_title("bandwidth roofline")
    ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(summary["device"], fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _slice_words(header: Mapping[str, Any]) -> str:
    """' in the slice k=v, …' when the run fixed axes besides the dtype (not the whole space)."""
    fixed = header.get("slice") or {}
    return f" in the slice {', '.join(f'{k}={v}' for k, v in fixed.items())}" if fixed else ""


def write_report(out: Path, spec: Any, results: Sequence[Mapping[str, Any]],
                 header: Mapping[str, Any], summary: Mapping[str, Any], *, sampled: bool,
                 skipped_peers: Mapping[str, str], copy: Mapping[str, Any]) -> list[Path]:
    """Write report.md, roofline.png and summary.json into *out*; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "summary.json", out / "report.md", out / "roofline.png"]
    paths[0].write_text(json.dumps(summary, indent=1, default=str) + "\n")
    paths[1].write_text(report_markdown(spec, results, summary, header, sampled=sampled,
                                        skipped_peers=skipped_peers, copy=copy))
    plot_roofline(spec, results, summary, paths[2])
    return paths
