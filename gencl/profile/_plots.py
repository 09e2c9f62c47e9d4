"""PNG plots of an analysis's series (matplotlib, Agg): one figure per series.

Analyses return plain data; this module is the only place that knows how it looks. A series is
drawn when it has one of the shapes described in docs/profile.md ("Series for plots"); anything
else is skipped and the report says so, so a new or changed analysis never breaks the report.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: Sections of the report: key → (title, words that put a series or analysis there).
SECTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "occupancy_roofline": ("Occupancy roofline", ("roofline", "occupancy")),
    "cpi": ("CPI vs concurrency", ("cpi", "concurrency", "pipeline")),
    "vectorization": ("Vectorization", ("vector",)),
    "divergence": ("Divergence", ("divergence", "branch")),
    "bandwidth": ("Bandwidth vs element size and occupancy", ("bandwidth", "element", "copy")),
    "latency": ("Latency staircase (random walk)", ("latency", "staircase", "random_walk",
                                                     "cache", "tlb", "fine_chase")),
    "bank_conflicts": ("Local memory bank conflicts", ("bank", "local")),
    "constant": ("Constant memory", ("constant",)),
    "image": ("Image memory (texture path)", ("image", "texture")),
    "transfers": ("Host-device transfers vs size", ("transfer", "h2d", "d2h")),
    "overheads": ("Launch and compile overheads", ("launch", "compile", "overhead")),
    "alu_fetch": ("ALU:fetch ratio", ("alu_fetch", "alu", "fetch")),
}


def section_of(series_name: str, analysis: str | None) -> str:
    """The report section a series belongs to (by its name first, then its analysis's).

    A series named after a section (``constant_…``, ``alu_fetch_…``) goes there even when a word
    of an earlier section (``bandwidth``, ``latency``) appears later in its name."""
    for key in SECTIONS:
        if series_name.lower().startswith(f"{key}_"):
            return key
    for text in (series_name.lower(), (analysis or "").lower()):
        for key, (_, words) in SECTIONS.items():
            if any(w in text for w in words):
                return key
    return "other"


def _num(values: Any) -> list[float] | None:
    if not isinstance(values, Sequence) or isinstance(values, str) or not values:
        return None
    out = []
    for v in values:
        if v is None:
            out.append(math.nan)
        elif isinstance(v, int | float):
            out.append(float(v))
        else:
            return None
    return out


def curves(series: Mapping[str, Any]) -> list[tuple[str, list[float], list[float]]]:
    """The (label, x, y) lines of a series in any of the documented line shapes, or []."""
    out = []
    x = _num(series.get("x"))
    y = series.get("y")
    if x is not None and _num(y) is not None and len(_num(y)) == len(x):  # type: ignore[arg-type]
        out.append((str(series.get("label", "")), x, _num(y)))
    elif x is not None and isinstance(y, Mapping):
        for label, ys in y.items():
            if _num(ys) is not None and len(_num(ys)) == len(x):  # type: ignore[arg-type]
                out.append((str(label), x, _num(ys)))
    lines = series.get("lines", series.get("curves"))
    if isinstance(lines, Mapping):
        lines = [{"label": k, **v} for k, v in lines.items() if isinstance(v, Mapping)]
    if isinstance(lines, Sequence) and not isinstance(lines, str):
        for line in lines:
            if not isinstance(line, Mapping):
                continue
            lx, ly = _num(line.get("x")), _num(line.get("y"))
            if lx is not None and ly is not None and len(lx) == len(ly):
                out.append((str(line.get("label", "")), lx, ly))
    return out  # type: ignore[return-value]


def _is_heatmap(series: Mapping[str, Any]) -> bool:
    z = series.get("z")
    return (isinstance(z, Sequence) and bool(z) and all(_num(row) is not None for row in z)
            and len({len(row) for row in z}) == 1)


def _is_bar(series: Mapping[str, Any]) -> bool:
    labels = series.get("labels", series.get("x"))
    values = series.get("values", series.get("y"))
    return (series.get("kind") == "bar" or (isinstance(labels, Sequence) and bool(labels)
                                           and all(isinstance(v, str) for v in labels))) \
        and _num(values) is not None and isinstance(labels, Sequence) \
        and len(labels) == len(_num(values))  # type: ignore[arg-type]


def plottable(series: Any) -> bool:
    return isinstance(series, Mapping) and (bool(curves(series)) or _is_heatmap(series)
                                            or _is_bar(series))


def _footer(meta: Mapping[str, str]) -> str:
    return (f"{meta['device']} | driver {meta['driver']} | clock {meta['clock']} | "
            f"{meta['date']} | gencl {meta['version']}")


def plot_series(name: str, series: Mapping[str, Any], path: Path, meta: Mapping[str, str],
                *, title: str) -> bool:
    """Draw *series* into *path* (PNG); False when its shape is not one we draw."""
    if not plottable(series):
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=110)
    try:
        if _is_heatmap(series):
            z = np.array(series["z"], dtype=float)
            im = ax.imshow(z, aspect="auto", origin="lower", cmap="viridis")
            cb = fig.colorbar(im, ax=ax)
            cb.set_label(series.get("zlabel", ""))
            for axis, key in ((ax.set_xticks, "x"), (ax.set_yticks, "y")):
                ticks = series.get(key)
                if isinstance(ticks, Sequence) and len(ticks) == z.shape[1 if key == "x" else 0]:
                    step = max(1, len(ticks) // 12)
                    axis(range(0, len(ticks), step), [str(t) for t in ticks[::step]])
        elif _is_bar(series):
            labels = [str(v) for v in series.get("labels", series.get("x"))]
            values = _num(series.get("values", series.get("y")))
            ax.bar(labels, values, color="tab:blue")
            ax.tick_params(axis="x", rotation=30 if len(labels) > 6 else 0)
        else:
            for label, x, y in curves(series):
                ax.plot(x, y, marker="o", markersize=3, label=label or None)
            if any(label for label, _, _ in curves(series)):
                ax.legend(fontsize=8)
        for label, value in (series.get("hlines") or {}).items():
            if isinstance(value, int | float):
                ax.axhline(value, linestyle="--", color="grey", linewidth=1)
                ax.annotate(str(label), (0.01, value), xycoords=("axes fraction", "data"),
                            fontsize=8, color="grey", va="bottom")
        for axis in ("x", "y"):
            scale = series.get(f"{axis}scale")
            if scale in ("log", "symlog") and not _is_heatmap(series):
                getattr(ax, f"set_{axis}scale")(scale)
        ax.set_xlabel(series.get("xlabel", ""))
        ax.set_ylabel(series.get("ylabel", ""))
        ax.set_title(f"{series.get('title', title)}\n{meta['device']}", fontsize=11)
        ax.grid(True, alpha=0.3)
        fig.text(0.01, 0.005, _footer(meta), fontsize=6.5, color="dimgray")
        fig.tight_layout(rect=(0, 0.03, 1, 1))
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, metadata={"Title": f"{title} — {meta['device']}",
                                    "Description": _footer(meta), "Software": "gencl"})
    finally:
        plt.close(fig)
    return True


def plot_file_name(benchmark: str, series_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{benchmark}__{series_name}") + ".png"
