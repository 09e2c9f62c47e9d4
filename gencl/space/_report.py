"""The space cache → summary.json, report.md (seed 003's Table 2, for any kernel) and a plot.

Everything kernel-specific comes from the spec's hooks (``gencl.spec.ApplicationHooks``): the
named variants and baseline, the time steps per launch, flops and compulsory bytes; without them
the report ranks the best points and states what it cannot say.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gencl.measure._sweeps import compulsory_per_sweep, sweep_figures
from gencl.spec import (
    TEMPORAL_AXIS, baseline_variant, compulsory_bytes, flops_per_launch, knob_text, matches,
    steps_per_launch, variant_name)

Record = Mapping[str, Any]
#: rows of the table of fastest points when the spec names no variants
TOP = 10


class _View:
    """The records of one run (its slice and sizes) and the figures every section reads."""

    def __init__(self, spec: Any, results: Sequence[Record], fixed: Mapping[str, Any],
                 sizes_of: Callable[[dict[str, Any]], Mapping[str, int]]) -> None:
        self.spec, self.fixed = spec, dict(fixed)
        self.mine = [r for r in results if matches(r["point"], fixed)
                     and dict(r["sizes"]) == dict(sizes_of(dict(r["point"])))]
        self.ok = [r for r in self.mine if r["status"] == "ok" and r.get("median_s")]
        self.baseline_name, self.baseline_partial = baseline_variant(spec, fixed)
        self.best = self.best_of()
        self.baseline = self.best_of(self.baseline_partial)

    def per_step(self, r: Record) -> float:
        return float(r["median_s"]) / steps_per_launch(self.spec, r["point"])

    def best_of(self, partial: Mapping[str, Any] | None = None) -> Record | None:
        chosen = [r for r in self.ok if partial is None or matches(r["point"], partial)]
        return min(chosen, key=self.per_step) if chosen else None

    def compulsory(self, r: Record) -> float:
        """Compulsory bytes of one time step done alone (a launch of k steps moves them once
        for all k: its effective bandwidth may pass the copy bandwidth)."""
        return compulsory_per_sweep(self.spec, r["point"], r["sizes"])

    def temporal(self) -> bool:
        """Whether the run holds points of several steps per launch (temporal blocking)."""
        return any(steps_per_launch(self.spec, r["point"]) > 1 for r in self.mine)

    def best_by_steps(self, multi: bool) -> Record | None:
        chosen = [r for r in self.ok if (steps_per_launch(self.spec, r["point"]) > 1) == multi]
        return min(chosen, key=self.per_step) if chosen else None

    def gbs(self, r: Record | None) -> str:
        return f"{self.compulsory(r) / self.per_step(r) / 1e9:.1f}" if r else "–"

    def us(self, r: Record | None) -> str:
        if not r:
            return "–"
        k = steps_per_launch(self.spec, r["point"])
        return f"{r['median_s'] / k * 1e6:.1f} ± {(r.get('ci95_s') or 0) / k * 1e6:.1f}"

    def gain(self, r: Record | None) -> str:
        if not (r and self.baseline):
            return "–"
        return f"{(self.per_step(self.baseline) / self.per_step(r) - 1) * 100:+.0f} %"

    def contributions(self) -> dict[str, float]:
        """Each axis where the best point differs from the baseline, alone on the baseline:
        improvement in % of the best point set that has it (seed 003's 'contrib.')."""
        if not (self.best and self.baseline):
            return {}
        t_base = self.per_step(self.baseline)
        base = self.baseline["point"]
        out = {}
        for axis, value in self.best["point"].items():
            if matches({axis: base.get(axis)}, {axis: value}):
                continue
            r = self.best_of({**self.baseline_partial, axis: value})
            if r:
                out[f"{axis}={knob_text(value)}"] = (t_base / self.per_step(r) - 1) * 100
        return out


def _speedup(peer_s: float, ours_s: float) -> str:
    """'1.35× faster' or '0.80× (slower)': the peer's time over ours."""
    ratio = peer_s / ours_s
    return f"{ratio:.2f}× faster" if ratio >= 1 else f"{ratio:.2f}× (slower)"


def _size(nbytes: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:.0f} B"


def summarize_space(spec: Any, results: Sequence[Record], *, device: str,
                    fixed: Mapping[str, Any], sizes_of: Callable[[dict[str, Any]], Any],
                    space_size: int, copy_bw: float | None, peers: Mapping[str, float],
                    peers_skipped: Mapping[str, str] | None = None) -> dict[str, Any]:
    """summary.json: the best variant, the baseline, the roofline and the peers of one run.

    Times are per time step (launch time / ``steps``; per launch for one-step kernels).
    ``roofline_s`` is the best variant's compulsory bytes per step at the copy bandwidth measured
    in the same run: the time no implementation of that computation can beat.
    """
    view = _View(spec, results, fixed, sizes_of)
    best, base = view.best, view.baseline
    bytes_ = view.compulsory(best) if best else None
    return {
        "spec": spec.name, "device": device, "fixed": dict(fixed),
        "sizes": dict(best["sizes"]) if best else None,
        "space_size": space_size, "measured": len(view.mine),
        "best_time_s": view.per_step(best) if best else None,
        "best_knobs": dict(best["point"]) if best else None,
        "best_variant": variant_name(spec, best["point"]) if best else None,
        "baseline": view.baseline_name,
        "baseline_time_s": view.per_step(base) if base else None,
        "compulsory_bytes": bytes_,
        "copy_bw_Bps": copy_bw,
        "roofline_s": bytes_ / copy_bw if bytes_ and copy_bw else None,
        "peers": dict(peers),
        "peers_skipped": dict(peers_skipped or {}),
        **(_temporal_summary(view, copy_bw) if view.temporal() else {}),
    }


def _temporal_summary(view: _View, copy_bw: float | None) -> dict[str, Any]:
    """summary.json's temporal-blocking keys (a run with points of several steps per launch):
    the best single-step and the best multi-step point, per step, their effective bandwidths
    (compulsory bytes per step / time per step) against the copy bandwidth, and what the best
    multi-step point costs on chip where the transform reports its traffic."""
    spec = view.spec
    single, multi = view.best_by_steps(False), view.best_by_steps(True)
    fs = sweep_figures(spec, single, copy_bw=copy_bw) if single else {}
    fm = sweep_figures(spec, multi, copy_bw=copy_bw) if multi else {}
    onchip = {k: fm[k] for k in ("global_bytes_per_sweep", "local_bytes_per_sweep",
                                 "local_bw_Bps", "barriers_per_group_per_sweep",
                                 "redundant_updates_pct") if k in fm}
    return {
        "best_single_sweep_s": fs.get("time_per_sweep_s"),
        "best_single_sweep_knobs": dict(single["point"]) if single else None,
        "best_single_sweep_variant": variant_name(spec, single["point"]) if single else None,
        "best_single_sweep_effective_bw_Bps": fs.get("effective_bw_Bps"),
        "temporal_best_time_per_sweep_s": fm.get("time_per_sweep_s"),
        "temporal_best_knobs": dict(multi["point"]) if multi else None,
        "temporal_best_variant": variant_name(spec, multi["point"]) if multi else None,
        "temporal_best_sweeps_per_launch": fm.get("steps"),
        "temporal_speedup": (fs["time_per_sweep_s"] / fm["time_per_sweep_s"]
                             if fs and fm else None),
        "temporal_effective_bw_Bps": fm.get("effective_bw_Bps"),
        "temporal_effective_over_copy": fm.get("effective_over_copy"),
        "temporal_onchip": onchip or None,
    }


def report_markdown(spec: Any, results: Sequence[Record], summary: Mapping[str, Any],
                    header: Mapping[str, Any], *, fixed: Mapping[str, Any],
                    sizes_of: Callable[[dict[str, Any]], Any], sampled: bool,
                    copy: Mapping[str, Any]) -> str:
    view = _View(spec, results, fixed, sizes_of)
    best, hooks = view.best, spec.hooks
    dev = header.get("device", {})
    dev_name = dev.get("name", summary["device"])
    statuses: dict[str, int] = {}
    for r in view.mine:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    multi = any(steps_per_launch(spec, r["point"]) > 1 for r in view.ok)
    sizes = summary.get("sizes") or {}
    launches = {r.get("extra", {}).get("verify_launches") for r in view.ok} - {None}
    lines = [
        f"# {hooks.title or spec.name + ' space'} on {dev_name}",
        "",
        f"Written by `gencl space {spec.name}` (gencl {header.get('gencl_version')}, "
        f"{header.get('date')}); driver {dev.get('driver')}, reported clock "
        f"{(dev.get('max_clock_hz') or 0) / 1e6:.0f} MHz. Sizes "
        f"{', '.join(f'{k}={v}' for k, v in sizes.items()) or '–'}"
        f"{_slice_words(fixed)}. Times are medians of OpenCL-event samples ± 95 % CI (1.96 σ)"
        + (", per time step (a launch of k steps: launch time / k)" if multi else ", per launch")
        + ". GB/s is the compulsory traffic of one step (each input read once, each output "
        "written once) over that time. "
        + (f"The bytes metric: {hooks.bytes_note}. " if hooks.bytes_note else "")
        + (f"Every variant passed {max(launches)} launch{'es' if max(launches) > 1 else ''} "
           "against numpy before its time counted." if launches else ""),
        "",
        f"Space: {summary['space_size']} points on this device; "
        f"{'**sampled**: ' if sampled else ''}{summary['measured']} measured "
        f"({', '.join(f'{k} {v}' for k, v in sorted(statuses.items()))}).",
        "",
        "## Most effective optimization (seed 003's Table 2)",
        "",
        f"| Device | Best version | µs | vs {view.baseline_name} | Primary | Contrib. "
        "| of roofline | vs best peer |",
        "|---|---|---|---|---|---|---|---|",
    ]
    if best:
        contrib = view.contributions()
        primary = max(contrib, key=lambda k: contrib[k]) if contrib else "–"
        roof = summary.get("roofline_s")
        peers = summary.get("peers") or {}
        peer = min(peers, key=lambda k: peers[k]) if peers else None
        lines.append(
            f"| {dev_name} | {variant_name(spec, best['point'])} | {view.us(best)} | "
            f"{view.gain(best)} | {primary} | "
            f"{f'{contrib[primary]:+.0f} %' if primary != '–' else '–'} | "
            f"{f'{roof / view.per_step(best) * 100:.0f} %' if roof else '–'} | "
            f"{_speedup(peers[peer], view.per_step(best)) + ' ' + peer if peer else '–'} |")
        flops = flops_per_launch(spec, best["point"], best["sizes"])
        rate = f", {flops / float(best['median_s']) / 1e9:.1f} GFLOP/s" if flops else ""
        lines += ["", f"Best knobs: `{json.dumps(best['point'], default=str)}`, {view.us(best)} "
                  f"µs, {view.gbs(best)} GB/s compulsory{rate}."]
        rates = dict(best.get("metrics") or {})
        if rates:
            lines.append("Its metrics: " + ", ".join(
                f"{k} {v / 1e9:.2f} G/s" for k, v in sorted(rates.items())) + ".")
    else:
        lines.append(f"| {dev_name} | no variant measured ok | – | – | – | – | – | – |")
    lines += ["", *_variants_table(view)]
    if view.temporal():
        lines += ["", *_temporal_table(view, summary)]
    lines += ["", "## Reference points (same run, same size)", ""]
    copy_bw = summary.get("copy_bw_Bps")
    if copy_bw:
        lines.append(f"- Copy bandwidth (specs/copy.py float4, point {copy.get('point')}): "
                     f"{copy_bw / 1e9:.1f} GB/s; compulsory traffic "
                     f"{_size(summary.get('compulsory_bytes') or 0)} per step → "
                     f"roofline {(summary.get('roofline_s') or 0) * 1e6:.1f} µs.")
    else:
        lines.append("- Copy bandwidth: not measured in this run (no roofline).")
    for name, t in sorted((summary.get("peers") or {}).items()):
        lines.append(f"- {name}: {t * 1e6:.1f} µs"
                     + (f" (best variant {_speedup(t, view.per_step(best))})" if best else ""))
    for name, why in sorted((summary.get("peers_skipped") or {}).items()):
        lines.append(f"- {name}: not measured ({why})")
    if not hooks.peers:
        lines.append("- The spec declares no peers (ApplicationHooks.peers).")
    lines += ["", "![variants against the roofline](roofline.png)", ""]
    return "\n".join(lines)


def _variants_table(view: _View) -> list[str]:
    """The named variants (each tuned over the axes it leaves free), or the fastest points."""
    spec = view.spec
    if spec.hooks.variants:
        lines = ["## Versions (the axes each leaves free tuned over the measured points)", "",
                 "| Version | µs | GB/s | vs baseline | best of the free axes |",
                 "|---|---|---|---|---|"]
        for name, partial in spec.hooks.variants.items():
            r = view.best_of({**partial, **view.fixed})
            free = {k: v for k, v in r["point"].items() if k not in partial
                    and k not in view.fixed} if r else {}
            lines.append(f"| {name} | {view.us(r)} | {view.gbs(r)} | {view.gain(r)} | "
                         f"{', '.join(f'{k}={knob_text(v)}' for k, v in free.items()) or '–'} |")
        return lines
    ranked = sorted(view.ok, key=view.per_step)[:TOP]
    lines = [f"## Fastest points (the spec names no variants: the best {len(ranked)})", "",
             "| # | Variant | µs | GB/s | vs default |", "|---|---|---|---|---|"]
    for k, r in enumerate(ranked, 1):
        lines.append(f"| {k} | {variant_name(spec, r['point'])} | {view.us(r)} | {view.gbs(r)} "
                     f"| {view.gain(r)} |")
    return lines


def _temporal_table(view: _View, summary: Mapping[str, Any]) -> list[str]:
    """Temporal blocking: the best point of each (steps per launch, scheme), per step, against
    the best single step and the copy bandwidth, with its on-chip cost where known."""
    spec, copy_bw = view.spec, summary.get("copy_bw_Bps")
    groups: dict[tuple[int, str], Record] = {}
    for r in sorted(view.ok, key=view.per_step):
        key = (steps_per_launch(spec, r["point"]), str(r["point"].get(TEMPORAL_AXIS, "")))
        groups.setdefault(key, r)
    single = summary.get("best_single_sweep_s")
    lines = ["## Temporal blocking (k steps per launch, times per step)", "",
             "Effective bandwidth = compulsory bytes of one step / time per step: above the copy "
             "bandwidth only when a launch of k steps saves traffic. On-chip figures are the "
             "transform's counts (local-memory bytes, redundant halo updates in % of the grid's "
             "points) over the measured time.", "",
             "| k | Variant | µs per step | effective GB/s | × copy BW | vs best single step "
             "| local GB/s | redundant updates |", "|---|---|---|---|---|---|---|---|"]
    for (k, _), r in sorted(groups.items()):
        f = sweep_figures(spec, r, copy_bw=copy_bw)
        t, over, local = f["time_per_sweep_s"], f["effective_over_copy"], f.get("local_bw_Bps")
        extra = f.get("redundant_updates_pct")
        cells = [f"{over:.2f}" if over else "–", f"{single / t:.2f}×" if single and t else "–",
                 f"{local / 1e9:.1f}" if local else "–",
                 f"{extra:.1f} %" if extra is not None else "–"]
        lines.append(f"| {k} | {variant_name(spec, r['point'])} | {view.us(r)} | "
                     f"{f['effective_bw_Bps'] / 1e9:.1f} | {' | '.join(cells)} |")
    speedup, over = summary.get("temporal_speedup"), summary.get("temporal_effective_over_copy")
    if summary.get("temporal_best_time_per_sweep_s") is None:
        lines += ["", "No point of several steps per launch was measured ok in this run."]
        return lines
    lines += ["", f"Best of several steps per launch: {summary['temporal_best_variant']}, "
              f"{summary['temporal_best_time_per_sweep_s'] * 1e6:.1f} µs per step"
              + (f", {speedup:.2f}× the best single step "
                 f"({summary['best_single_sweep_variant']}, {single * 1e6:.1f} µs)"
                 if speedup and single else "") + "."]
    if over is not None:
        lines.append(
            f"Its effective bandwidth is {over:.2f}× the copy bandwidth: "
            + ("above it, so temporal blocking beats the single-step roofline." if over > 1 else
               "below it, so it does not beat the single-step roofline."))
    return lines


def plot_roofline(spec: Any, results: Sequence[Record], summary: Mapping[str, Any], path: Path,
                  *, fixed: Mapping[str, Any], sizes_of: Callable[[dict[str, Any]], Any]) -> None:
    """Time per step of every measured variant (by named variant, or all together) against the
    roofline and the peers; with flops, the classic roofline beside it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    view = _View(spec, results, fixed, sizes_of)
    groups = {name: [r for r in view.ok if matches(r["point"], partial)]
              for name, partial in spec.hooks.variants.items()} or {"all points": view.ok}
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [3, 2]})
    rng = np.random.default_rng(0)
    for k, (name, rs) in enumerate(groups.items()):
        ys = [view.per_step(r) * 1e6 for r in rs]
        if ys:
            ax.scatter(k + rng.uniform(-0.3, 0.3, len(ys)), ys, s=8, alpha=0.6, label=name)
    roof = summary.get("roofline_s")
    if roof:
        ax.axhline(roof * 1e6, color="k", ls="--", label="roofline (compulsory / copy BW)")
    for name, t in (summary.get("peers") or {}).items():
        ax.axhline(t * 1e6, ls=":", lw=1, color="gray")
        ax.annotate(name, (len(groups) - 0.5, t * 1e6), fontsize=7, color="gray", ha="right")
    ax.set_yscale("log")
    ax.set_xticks(range(len(groups)), list(groups), rotation=45, ha="right")
    ax.set_ylabel("µs per step")
    ax.set_title(f"{spec.name} {summary.get('sizes')}: every measured variant", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    copy_bw = summary.get("copy_bw_Bps")
    counted = [(flops_per_launch(spec, r["point"], r["sizes"]), r) for r in view.ok]
    points = [(f, r) for f, r in counted if f]
    if points:
        ai = [f / compulsory_bytes(spec, r["point"], r["sizes"]) for f, r in points]
        rate = [f / float(r["median_s"]) / 1e9 for f, r in points]
        if copy_bw:
            xs = np.logspace(np.log10(min(ai)) - 1, np.log10(max(ai)) + 1, 50)
            ax2.loglog(xs, xs * copy_bw / 1e9, "k--", label="copy bandwidth × intensity")
            ax2.legend(fontsize=7)
        ax2.scatter(ai, rate, s=8, alpha=0.5)
        ax2.set_xscale("log")
        ax2.set_yscale("log")
        ax2.set_xlabel("flops per compulsory byte")
        ax2.set_ylabel("GFLOP/s")
        ax2.set_title("bandwidth roofline")
    else:
        ax2.hist([view.per_step(r) * 1e6 for r in view.ok] or [0], bins=30)
        ax2.set_xlabel("µs per step")
        ax2.set_ylabel("variants")
        ax2.set_title("distribution (the spec counts no flops)")
    fig.suptitle(summary["device"], fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _slice_words(fixed: Mapping[str, Any]) -> str:
    """'; slice k=v, …' when the run fixed axes (not the whole space)."""
    return f"; slice {', '.join(f'{k}={knob_text(v)}' for k, v in fixed.items())}" if fixed else ""


def write_report(out: Path, spec: Any, results: Sequence[Record], header: Mapping[str, Any],
                 summary: Mapping[str, Any], *, fixed: Mapping[str, Any],
                 sizes_of: Callable[[dict[str, Any]], Any], sampled: bool,
                 copy: Mapping[str, Any]) -> list[Path]:
    """Write summary.json, report.md and roofline.png into *out*; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "summary.json", out / "report.md", out / "roofline.png"]
    paths[0].write_text(json.dumps(summary, indent=1, default=str) + "\n")
    paths[1].write_text(report_markdown(spec, results, summary, header, fixed=fixed,
                                        sizes_of=sizes_of, sampled=sampled, copy=copy))
    plot_roofline(spec, results, summary, paths[2], fixed=fixed, sizes_of=sizes_of)
    return paths
