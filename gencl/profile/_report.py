"""report.md and its plots, rendered from a DeviceProfile alone (no device needed).

The first table mirrors seed 000 Table III (computations by instruction type; global memory by
element size; local, constant, private memory). Then the summary, one section per report section
with its plots and characteristics, what is missing and why, and every failure with its reason.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gencl.profile._plots import SECTIONS, plot_file_name, plot_series, plottable, section_of
from gencl.profile._profile import DeviceProfile
from gencl.profile._summary import MEASURED_KEYS
from gencl.profile._views import drawable_series

REPORT_FILE = "report.md"

_SCALES = {"B/s": (1e9, "GB/s"), "FLOP/s": (1e9, "GFLOP/s"), "op/s": (1e9, "Gop/s"),
           "s": (1e-6, "µs"), "Hz": (1e6, "MHz")}


def fmt(value: Any, unit: str = "", *, with_unit: bool = True) -> str:
    """A value for people: rates in G…/s, times in µs, bytes in KiB/MiB, lists joined by '/'."""
    if value is None:
        return "–"
    if isinstance(value, Sequence) and not isinstance(value, str):
        if value and all(isinstance(v, Mapping) for v in value):
            return "; ".join(", ".join(f"{k}={fmt(v, with_unit=False)}" for k, v in d.items())
                             for d in value)
        if unit == "B" and with_unit:  # sizes scale one by one: "2 KiB/64 KiB", not "2/64 B"
            return "/".join(fmt(v, unit) for v in value)
        return "/".join(fmt(v, unit, with_unit=False) for v in value) + \
            (f" {_scaled_unit(unit)}" if with_unit and unit else "")
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={fmt(v, with_unit=False)}" for k, v in value.items())
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if unit == "B":
        for size, name in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
            if abs(value) >= size:
                return f"{value / size:.3g}" + (f" {name}" if with_unit else "")
        return f"{value:.0f}" + (" B" if with_unit else "")
    scale, label = _SCALES.get(unit, (1.0, unit))
    text = f"{value / scale:.4g}"
    return f"{text} {label}".strip() if with_unit else text


def _scaled_unit(unit: str) -> str:
    return _SCALES.get(unit, (1.0, unit))[1]


def _meta(profile: DeviceProfile) -> dict[str, str]:
    clock = profile.clock
    clock_text = (f"{clock['seen_hz'] / 1e6:.0f} MHz seen" if clock.get("seen_hz")
                  else f"{clock['reported_max_hz'] / 1e6:.0f} MHz reported max")
    return {"device": f"{profile.device_json.get('name')} ({profile.device_json.get('platform')})",
            "driver": profile.driver, "clock": clock_text, "date": profile.updated,
            "version": profile.gencl_version}


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return out


def _results_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A table of results, or one line saying nothing in it was measured (a table of dashes
    reads as a result; it is not one)."""
    if all(str(c) in ("–", "") for row in rows for c in row[1:]):
        return ["_Nothing measured for this table._"]
    return _table(header, rows)


# {{{ Table III

def _multi(chars: Mapping[str, Any], base: str) -> str:
    """A value that may come per ILP level: ``base`` itself, or ``base_ilp1``, ``_ilp2``, …"""
    if base in chars:
        return fmt(chars[base].value, chars[base].unit, with_unit=False)
    levels = [chars[f"{base}_ilp{k}"] for k in (1, 2, 4, 8) if f"{base}_ilp{k}" in chars]
    return "/".join(fmt(c.value, c.unit, with_unit=False) for c in levels) or "–"


def _with_unit(chars: Mapping[str, Any], name: str) -> str:
    """A value with its unit (cache sizes: "2 KiB", not a bare "2")."""
    c = chars.get(name)
    return "–" if c is None or c.value in (None, []) else fmt(c.value, c.unit)


def _first(chars: Mapping[str, Any], *names: str) -> str:
    for name in names:
        text = _multi(chars, name)
        if text != "–":
            return text
    return "–"


#: Table III rows: label, summary key of the peak, prefix of λ/Λ/ridge names, occupancy itype.
_ITYPES = (("SP", "sp_peak_flops", "sp", "sp_addmul"),
           ("SP MADD", "sp_madd_peak_flops", "sp_madd", "sp_madd"),
           ("DP", "dp_peak_flops", "dp_madd", "dp_madd"),
           ("INT", "int_peak_ops", "int_madd", "int_madd"),
           ("SF (native)", "native_sf_peak_ops", "native_sf", "native_sf"),
           ("SF", "sf_peak_ops", "sf", "sf"))


def _occupancy_series(profile: DeviceProfile) -> Mapping[str, Any]:
    for b in profile.benchmarks.values():
        if b.analysis == "occupancy" and isinstance(b.series.get("curves"), Mapping):
            return b.series
    return {}


def _per_ilp_perf(profile: DeviceProfile, itype: str, peak_key: str,
                  chars: Mapping[str, Any]) -> str:
    """Best op/s at each ILP level (Table III's a/b/c), else the peak alone."""
    curves = _occupancy_series(profile).get("curves", {})
    best = []
    for _, c in sorted(curves.items(), key=lambda kv: int(kv[1].get("ilp", 0) or 0)):
        if c.get("itype") == itype and c.get("ops_per_s"):
            best.append(max(v for v in c["ops_per_s"] if v is not None))
    if peak_key not in chars:
        return "–"  # the analysis did not report this itype (e.g. above the theoretical peak)
    if len(best) > 1:
        return "/".join(fmt(v, "op/s", with_unit=False) for v in best)
    return fmt(chars[peak_key].value, chars[peak_key].unit, with_unit=False)


def _ridges(profile: DeviceProfile, itype: str, chars: Mapping[str, Any], prefix: str) -> str:
    info = (_occupancy_series(profile).get("itypes", {}) or {}).get(itype) or {}
    ridges = info.get("ridge_work_items")
    if isinstance(ridges, Mapping) and ridges:
        return "/".join(fmt(ridges[k], with_unit=False) for k in sorted(ridges, key=int))
    return _multi(chars, f"{prefix}_ridge_work_items")


def _series_max_by_x(profile: DeviceProfile, name: str) -> dict[float, float]:
    """x → highest y over every line of series *name* (first benchmark that has it)."""
    from gencl.profile._plots import curves

    for b in profile.benchmarks.values():
        s = b.series.get(name)
        if isinstance(s, Mapping):
            best: dict[float, float] = {}
            for _, xs, ys in curves(s):
                for x, y in zip(xs, ys):
                    if y == y and (x not in best or y > best[x]):
                        best[x] = y
            return best
    return {}


def _keyed(chars: Mapping[str, Any], names: Sequence[str], element: int) -> str:
    """A per-element-size value: ``name`` as a dict keyed by size, or ``name`` with ``_{e}B``."""
    for name in names:
        c = chars.get(name)
        if c is not None and isinstance(c.value, Mapping) and str(element) in c.value:
            return fmt(c.value[str(element)], c.unit, with_unit=False)
        base, _, unit = name.rpartition("_")
        text = _multi(chars, f"{base}_{element}B_{unit}")
        if text != "–":
            return text
    return "–"


def table_iii(profile: DeviceProfile) -> list[str]:
    """Seed 000 Table III: performance in G(FL)OP/s, bandwidth in GB/s, latencies in cycles."""
    chars = profile.characteristics
    lines = ["## Performance characteristics (seed 000, Table III)", "",
             "Performance in GFLOP/s or Gop/s, bandwidth in GB/s, latencies λ (issue) and Λ "
             "(completion) in cycles, ridge point in work items. `a/b/c` are ILP 1/2/4 "
             "(computations) or successive memory levels (memory). `–`: not measured.", ""]
    rows = []
    for label, peak_key, prefix, itype in _ITYPES:
        rows.append([label, _per_ilp_perf(profile, itype, peak_key, chars),
                     _multi(chars, f"{prefix}_issue_latency_cycles"),
                     _multi(chars, f"{prefix}_completion_latency_cycles"),
                     _ridges(profile, itype, chars, prefix)])
    lines += ["**Computations**", ""]
    lines += _results_table(["itype", "performance", "λ", "Λ", "ridge point"], rows) + [""]
    rows = []
    bw_by_size = _series_max_by_x(profile, "bandwidth_vs_element_size")
    for e in (1, 2, 4, 8, 16):
        bw = chars.get(f"global_bw_{e}B_Bps")
        rows.append([f"{e}B", fmt(bw.value if bw else bw_by_size.get(e), "B/s", with_unit=False),
                     _keyed(chars, ("global_issue_latency_cycles", "copy_issue_latency_cycles"), e),
                     _keyed(chars, ("global_completion_latency_cycles",
                                    "copy_completion_latency_cycles"), e),
                     _keyed(chars, ("global_cache_bytes",), e)])
    levels = profile.value("cache_levels") or []
    walk_lat = [lv.get("latency_cycles") for lv in levels] + [profile.value(
        "global_latency_cycles")]
    rows.append(["random walk", "–", "–",
                 "/".join(fmt(v, with_unit=False) for v in walk_lat if v is not None) or "–",
                 "/".join(fmt(lv.get("size_bytes"), "B") for lv in levels) or "–"])
    lines += ["**Global memory** (by element size; the last row is the random walk: latency per "
              "level, cache sizes)", ""]
    lines += _results_table(["element", "bandwidth", "λ", "Λ", "cache size"], rows) + [""]
    rows = []
    for label, mem in (("Local", "local"), ("Constant", "constant"), ("Private", "private")):
        rows.append([label, _multi(chars, f"{mem}_bw_Bps"),
                     _multi(chars, f"{mem}_issue_latency_cycles"),
                     _first(chars, f"{mem}_completion_latency_cycles", f"{mem}_latency_cycles"),
                     _with_unit(chars, f"{mem}_cache_bytes")])
    rows.append(["Image (texture path)", _multi(chars, "image_read_bw_Bps"), "–",
                 _first(chars, "image_completion_latency_cycles", "image_latency_cycles"),
                 _with_unit(chars, "image_cache_bytes")])
    lines += ["**Local, constant and private memory** (4-byte elements), **image memory** "
              "(bandwidth: the best texel format; Λ: the texture-path walk's levels)", ""]
    lines += _results_table(["memory", "bandwidth", "λ", "Λ", "cache size"], rows) + [""]
    return lines

# }}}


def _peers(profile: DeviceProfile) -> list[str]:
    """clpeak beside gencl, figure by figure (gencl/profile/_clpeak.py)."""
    from gencl.profile._clpeak import LABELS, LOWER_IS_BETTER, comparison, gencl_figures

    peer = profile.peers.get("clpeak")
    if not peer:
        return []
    lines = ["## clpeak on the same device", ""]
    if peer.get("status") != "ok":
        return lines + [f"clpeak did not give figures: {peer.get('reason')}", ""]
    when = (f"each test right after the gencl benchmark it compares with ({len(peer['runs'])} "
            f"runs from {peer['runs'][0].get('date')})" if peer.get("runs") else
            f"at {peer.get('date')}")
    lines += [f"clpeak {peer.get('version')} (`{' '.join(peer.get('command', []))}`, ICD "
              f"`{peer.get('icd_library')}`), run by `gencl profile` {when}, "
              f"{peer.get('elapsed_s')} s. clpeak's rates are "
              "its best vector width (shown); gencl's are the summary's peaks. Launch latency: "
              "dispatch = profiling QUEUED → START, round trip = host enqueue → completion seen "
              "by the host (clpeak: mean of a small kernel; gencl: median of an empty one, the "
              "quietest of its bursts).", ""]
    rows = []
    for r in comparison(peer, gencl_figures(profile.characteristics)):
        best = f" ({r['clpeak_best']})" if r.get("clpeak_best") else ""
        better = "lower is better" if r["figure"] in LOWER_IS_BETTER else "higher is better"
        verdict = "–" if r["gencl_at_or_ahead"] is None else (
            "gencl at or ahead" if r["gencl_at_or_ahead"] else "clpeak ahead")
        rows.append([LABELS.get(r["figure"], r["figure"]), fmt(r["clpeak"], r["unit"]) + best,
                     fmt(r["gencl"], r["unit"]),
                     f"{r['ratio']:.3g}" if r["ratio"] is not None else "–",
                     f"{verdict} ({better})"])
    return lines + _table(["figure", "clpeak", "gencl", "gencl / clpeak", ""], rows) + [""]


def _summary_table(profile: DeviceProfile) -> list[str]:
    chars = profile.characteristics
    rows = []
    for key in MEASURED_KEYS:
        c = chars.get(key)
        if c is None:
            rows.append([f"`{key}`", "–", "", "", "not measured"])
        else:
            ci = fmt(c.ci95, c.unit) if c.ci95 is not None else ""
            rows.append([f"`{key}`", fmt(c.value, c.unit), f"± {ci}" if ci else "", c.benchmark,
                         c.method[:120]])
    return ["## Summary (summary.json)", ""] + _table(
        ["key", "value", "95 % CI", "benchmark", "method"], rows) + [""]


def _plots(profile: DeviceProfile, folder: Path, meta: Mapping[str, str]
           ) -> tuple[dict[str, list[tuple[str, str, str]]], list[str]]:
    """Draw every plottable series: section → [(benchmark, series, file)], and the skipped."""
    by_section: dict[str, list[tuple[str, str, str]]] = {}
    skipped = []
    jobs = []  # (section, benchmark, series name, file; plot_series' arguments)
    for bench in profile.benchmarks.values():
        for name, series in drawable_series(bench.analysis, bench.series).items():
            title = series.get("title", name.replace("_", " ")) if isinstance(series, Mapping) \
                else name
            file = plot_file_name(bench.name, name)
            if plottable(series):
                jobs.append(((section_of(name, bench.analysis), bench.name, name, file),
                             (name, series, folder / file, meta, str(title))))
            else:
                skipped.append(f"{bench.name}.{name}")
    for (section, bench_name, name, file), drawn in zip((j[0] for j in jobs),
                                                        _draw_all([j[1] for j in jobs])):
        if drawn:
            by_section.setdefault(section, []).append((bench_name, name, file))
        else:
            skipped.append(f"{bench_name}.{name}")
    return by_section, skipped


def _draw(args: tuple[str, Any, Path, Mapping[str, str], str]) -> bool:
    name, series, path, meta, title = args
    return plot_series(name, series, path, meta, title=title)


def _draw_all(jobs: Sequence[tuple[str, Any, Path, Mapping[str, str], str]]) -> list[bool]:
    """Every plot, in parallel processes where there are cores to spare: a full profile draws
    ~60 plots, 10 s one after another on the H200 host (matplotlib holds the GIL)."""
    workers = min(len(jobs) // 4, (os.cpu_count() or 1) - 1, 8)
    if workers < 2:
        return [_draw(job) for job in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers,
                             mp_context=multiprocessing.get_context("forkserver")) as pool:
        return list(pool.map(_draw, jobs))


def render_report(profile: DeviceProfile, folder: str | os.PathLike | None = None) -> Path:
    """Write report.md and the PNGs into *folder* (default: the profile's own folder)."""
    folder = Path(folder) if folder else Path(profile.path or ".").parent
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*__*.png"):  # plots of a previous rendering
        old.unlink()
    meta = _meta(profile)
    dev = profile.device_json
    lines = [f"# Device profile: {dev.get('name')}", "",
             f"- device: {dev.get('name')} — {dev.get('vendor')}, {dev.get('device_type')}, "
             f"{dev.get('compute_units')} compute units, local memory "
             f"{fmt(dev.get('local_mem_bytes'), 'B')}, max work-group "
             f"{dev.get('max_work_group_size')}, warp {dev.get('warp_size') or '?'}",
             f"- platform: {dev.get('platform')}; OpenCL {dev.get('opencl_version')}",
             f"- driver: {profile.driver}",
             f"- clock: {meta['clock']} ({profile.clock.get('source')}); reported max "
             f"{profile.clock['reported_max_hz'] / 1e6:.0f} MHz",
             f"- date: started {profile.date}, last benchmark {profile.updated}",
             f"- gencl {profile.gencl_version}; {'quick' if profile.quick else 'full'} suite; "
             "rendered by `gencl report` from profile.json", ""]
    if profile.characteristics:
        lines += table_iii(profile)
        lines += _peers(profile)
        lines += _summary_table(profile)
    else:
        lines += _nothing_measured(profile)
    sections, skipped = _plots(profile, folder, meta)
    lines += ["## Sections", ""] if sections else []
    for key, (title, _) in (list(SECTIONS.items()) + [("other", ("Other series", ()))]
                            if sections else []):
        plots = sections.get(key, [])
        if not plots and key == "other":
            continue
        lines += [f"### {title}", ""]
        if not plots:
            lines += ["_Not in this profile: no benchmark produced this plot._", ""]
        for bench, name, file in plots:
            lines += [f"![{bench}: {name}]({file})", "", f"_{bench} · {name}_", ""]
    lines += _benchmarks(profile)
    lines += _missing(profile, skipped)
    (folder / REPORT_FILE).write_text("\n".join(lines) + "\n")
    return folder / REPORT_FILE


def _nothing_measured(profile: DeviceProfile) -> list[str]:
    """In place of Table III and the summary when no benchmark measured anything: why."""
    lines = ["## Nothing measured", "",
             "No benchmark produced a characteristic, so there is no Table III and every key of "
             "summary.json is null. Why, by benchmark:", ""]
    rows = [[b.name, b.status, (b.reason or "–").replace("\n", " ")[:300]]
            for b in profile.benchmarks.values()]
    return lines + _table(["benchmark", "status", "reason"], rows) + [""]


def _benchmarks(profile: DeviceProfile) -> list[str]:
    lines = ["## Benchmarks", ""]
    rows = []
    for b in profile.benchmarks.values():
        ok = sum(1 for m in b.measurements if m.get("status") == "ok")
        rows.append([b.name, b.group, b.analysis or "–", b.status, f"{ok}/{len(b.measurements)}",
                     f"{b.elapsed_s:.1f} s" if b.elapsed_s is not None else "",
                     f"{b.clock_hz / 1e6:.0f} MHz" if b.clock_hz else "–",
                     b.spec_source_hash[:12]])
    lines += _table(["benchmark", "group", "analysis", "status", "variants ok", "time", "clock",
                     "spec hash"], rows) + [""]
    for b in profile.benchmarks.values():
        if not b.characteristics and not b.notes:
            continue
        lines += [f"### {b.name}", ""]
        rows = [[f"`{c['name']}`", fmt(c["value"], c["unit"]),
                 fmt(c.get("ci95"), c["unit"]) if c.get("ci95") is not None else "",
                 str(len(c.get("variants", ()))), str(c.get("method", ""))[:160]]
                for c in b.characteristics]
        if rows:
            lines += _table(["characteristic", "value", "± 95 % CI", "variants", "method"],
                            rows) + [""]
        lines += [f"- {n}" for n in b.notes] + ([""] if b.notes else [])
    return lines


def _missing(profile: DeviceProfile, skipped: Sequence[str]) -> list[str]:
    lines = ["## Missing and failed", ""]
    missing = profile.missing
    if missing:
        lines += ["Not measured (null in summary.json): " +
                  ", ".join(f"`{k}`" for k in missing) + ".", ""]
    not_run = [n for n in profile.suite if n not in profile.benchmarks]
    if not_run:
        lines += [f"Not run yet: {', '.join(not_run)}.", ""]
    if skipped:
        lines += ["Series without a plot (shape not drawn): " + ", ".join(skipped) + ".", ""]
    failures = profile.failures
    if failures:
        rows = [[f["benchmark"], f["variant"] or "(benchmark)", f["status"],
                 f["reason"][:200].replace("\n", " ")] for f in failures]
        lines += _table(["benchmark", "variant", "status", "reason"], rows) + [""]
    if not (missing or not_run or skipped or failures):
        lines += ["Nothing: every benchmark ran and every summary key has a value.", ""]
    return lines
