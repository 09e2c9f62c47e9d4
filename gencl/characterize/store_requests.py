"""Wide stores (spec ``store_requests``): what a GPU's store line requests beyond one a line cost
beside the DRAM stream they belong to.

A sub-group's store instruction moves at most a 16-byte chunk a lane (``CHUNK_BYTES``). Up to
``float4`` its lanes fill whole 128-byte lines, one request a line; at ``float8`` they lie 32
bytes apart and each of the item's two chunk instructions writes half of eight lines, twice the
requests for the same bytes; at ``float16`` four times. Each stream (I inputs, O outputs, every
byte moved once) is timed at 4, 8 and 16 floats an item, and all of them are fitted at once to

    t = (T_s^p + (E / R)^p)^(1/p)

with E the launch's store requests beyond one a line (``excess_store_requests``), one T_s per
stream (its time with whole-line stores), and one rate R and exponent p for all: p = 1 a sum
(the requests queue behind the stream), p → ∞ a max (they hide in it). The H200
(2026-12-03): R = 54.5·10⁹ requests/s, p = 1.25, 3.7 % rms over four streams at three widths
(1 in 2 out: 202, 277 and 392 µs at 4, 8 and 16 floats).
``store_requests_per_s`` = R and ``store_request_overlap_exponent`` = p, where the fit's log-time
residual is within ``OVERLAP_MAX_RMS`` and the widest stores are measurably slower; none on a
CPU (its runtime vectorizes across work items: no sub-group store of a vector).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize._cycles import ok_records
from gencl.characterize._hardware import is_gpu, warp_width
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis
from gencl.characterize.alu_fetch import OVERLAP_MAX_RMS

#: the line one request serves and the widest chunk a lane moves in one instruction, on a GPU
#: (the model's ``request_line_bytes`` and ``lane_access_bytes``)
LINE_BYTES = 128
CHUNK_BYTES = 16
#: the widest stores must be this much slower than whole-line ones for a figure
RISE = 1.1


def bytes_moved(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Bytes one launch reads and writes."""
    return 4.0 * sizes["m"] * (int(point["inputs"]) + int(point["outputs"]))


def excess_store_requests(point: Mapping[str, Any], sizes: Mapping[str, int],
                          lanes: int = 32) -> float:
    """Store line requests of one launch beyond one a line: each output's chunk instructions
    (``lanes`` items, one chunk of each) × the lines their lanes span, less its bytes / line."""
    width = 4 * int(point["vector_width"])
    chunk = min(width, CHUNK_BYTES)
    instructions = sizes["m"] * 4 / width / lanes * math.ceil(width / CHUNK_BYTES)
    lines = math.ceil(((lanes - 1) * width + chunk) / LINE_BYTES)
    per_output = instructions * lines - sizes["m"] * 4 / LINE_BYTES
    return int(point["outputs"]) * max(0.0, per_output)


def fit_store_requests(streams: Mapping[Any, Sequence[tuple[float, float]]]
                       ) -> tuple[float, float, dict[Any, float], float]:
    """(R, p, T_s by stream, rms of log time) of t = (T_s^p + (E/R)^p)^(1/p) over every
    stream's (E, t) points, least squares in log time; p within [1, 64]."""
    from scipy.optimize import least_squares

    keys = list(streams)
    points = [(k, e, t) for k, pts in streams.items() for e, t in pts]
    index = np.array([keys.index(k) for k, _, _ in points])
    excess = np.array([e for _, e, _ in points])
    log_t = np.log([t for _, _, t in points])
    start_t = [np.log(min(t for _, t in streams[k])) for k in keys]
    # the rate at which the widest point's excess alone would take its whole time
    widest = max(points, key=lambda q: q[1])
    start_r = np.log(widest[1] / widest[2])

    def residual(q: np.ndarray) -> np.ndarray:
        log_r, log_p, own = q[0], q[1], q[2:]
        p = np.exp(log_p)
        with np.errstate(divide="ignore"):
            log_e = np.log(excess)
        return np.logaddexp(p * own[index], p * (log_e - log_r)) / p - log_t

    fit = least_squares(residual, [start_r, np.log(2.0), *start_t],
                        bounds=([-np.inf, 0.0] + [-np.inf] * len(keys),
                                [np.inf, np.log(64.0)] + [np.inf] * len(keys)))
    rate, p = float(np.exp(fit.x[0])), float(np.exp(fit.x[1]))
    own = {k: float(np.exp(v)) for k, v in zip(keys, fit.x[2:])}
    return rate, p, own, float(np.sqrt(np.mean(fit.fun ** 2)))


@analysis("store_requests")
def analyze_store_requests(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                           clock_hz: float | None) -> AnalysisResult:
    """store_requests_per_s and store_request_overlap_exponent from the streams' widths."""
    del clock_hz
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful wide-store measurement",))
    best: dict[tuple[int, int, int], Mapping[str, Any]] = {}
    for r in ok:
        p = r["point"]
        key = (int(p["inputs"]), int(p["outputs"]), int(p["vector_width"]))
        if key not in best or float(r["median_s"]) < float(best[key]["median_s"]):
            best[key] = r
    lanes = warp_width(device)[0] or 32
    streams: dict[tuple[int, int], list[tuple[float, float]]] = {}
    notes = []
    for (i, o, w), r in sorted(best.items()):
        t = float(r["median_s"])
        e = excess_store_requests(r["point"], r["sizes"], lanes)
        streams.setdefault((i, o), []).append((e, t))
        notes.append(f"{i} in, {o} out, {w} floats an item: {t * 1e6:.1f} µs, "
                     f"{bytes_moved(r['point'], r['sizes']) / t / 1e9:.0f} GB/s, "
                     f"{e / 1e6:.2f}·10⁶ store requests beyond one a line")
    widths = sorted({w for _, _, w in best})
    series = {"store_requests_time_vs_width": {
        "title": "Streams by the floats an item stores (every byte moved once)",
        "x": widths,
        "y": {f"{i} in, {o} out": [float(best[(i, o, w)]["median_s"]) if (i, o, w) in best
                                   else None for w in widths] for i, o in streams},
        "xlabel": "floats a work item", "ylabel": "time (s)", "xscale": "log", "yscale": "log"}}
    if not is_gpu(device):
        return AnalysisResult((), series, notes=(
            *notes, "no figure on a CPU: its runtime vectorizes across work items, so no "
                    "sub-group stores a vector an item"))
    usable = {k: pts for k, pts in streams.items()
              if any(e == 0 for e, _ in pts) and any(e > 0 for e, _ in pts)}
    rise = max((max(t for _, t in pts) / min(t for e, t in pts if e == 0)
                for pts in usable.values()), default=0.0)
    if rise < RISE:
        return AnalysisResult((), series, notes=(
            *notes, f"no figure: the widest stores are at most {rise:.2f}× the whole-line ones "
                    f"(a stream with and without requests beyond one a line is needed)"))
    rate, p, own, rms = fit_store_requests(usable)
    notes.append(f"fit: {rate / 1e9:.1f}·10⁹ requests/s beyond one a line, exponent {p:.2f}, "
                 f"{rms:.3f} rms of log time; whole-line times "
                 + ", ".join(f"{i} in {o} out {t * 1e6:.0f} µs" for (i, o), t in own.items()))
    if rms > OVERLAP_MAX_RMS:
        return AnalysisResult((), series, notes=(
            *notes, f"no figure: the fit's rms {rms:.3f} exceeds {OVERLAP_MAX_RMS}"))
    variants = tuple(str(r["variant_id"]) for (i, o, _), r in best.items() if (i, o) in usable)
    method = ("t = (T_s^p + (E/R)^p)^(1/p) over streams of 1–2 inputs and 1–2 outputs at 4–16 "
              "floats an item, E the store line requests beyond one a line, one T_s a stream, "
              "fitted in log time")
    chars = (Characteristic("store_requests_per_s", rate, "requests/s", method=method,
                            variants=variants),
             Characteristic("store_request_overlap_exponent", p, "", method=method,
                            variants=variants))
    return AnalysisResult(chars, series, notes=tuple(notes))
