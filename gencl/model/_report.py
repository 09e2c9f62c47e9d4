"""Console rendering of an explanation (the only printing in gencl.model)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gencl.model._explain import Accuracy
from gencl.model._params import ModelParams, nominal_inputs
from gencl.model._predict import Prediction
from gencl.model._stats import KernelStats


def print_explanation(name: str, point: Mapping[str, Any], sizes: Mapping[str, int],
                      stats: KernelStats, pred: Prediction, params: ModelParams) -> None:
    from gencl.report_console import make_console, make_table

    console = make_console()
    measured = sorted(k for k, v in params.sources.items() if v == "measured")
    console.print(f"[bold]{name}[/] {dict(point)} at {dict(sizes)} on {params.device}")
    console.print(f"profile: {', '.join(measured) if measured else 'none found — nominal values'}")
    if params.profile_note:
        console.print(f"[yellow]warning:[/] {params.profile_note}")
    console.print(f"{stats.work_items} work items in {stats.groups} groups of {stats.group_size}")
    per_sweep = (f" per launch of {pred.steps} sweeps, [bold]{pred.time_per_sweep_s * 1e6:.1f} "
                 "µs[/] per sweep" if pred.steps > 1 else "")
    console.print(f"predicted time [bold]{pred.time_s * 1e6:.1f} µs[/]{per_sweep}, bottleneck "
                  f"[bold]{pred.bottleneck}[/], potential speedup {pred.potential_speedup:.2f}×")
    guessed = nominal_inputs(pred.bottleneck, params)
    if guessed:
        console.print(f"[yellow]warning:[/] the bottleneck ({pred.bottleneck}) is priced by "
                      f"nominal numbers, not measured: {', '.join(guessed)} — profile this "
                      "device (gencl profile) or pass --profile")
    uncounted = stats.extra.get("gathers_not_counted")
    if uncounted:
        console.print(f"[yellow]warning:[/] the program gathers (an index read from memory), "
                      f"but not counted on the data: {uncounted} — priced as one line a "
                      "sub-group")
    terms = make_table("term", "µs", console=console)
    for k, v in pred.terms.items():
        terms.add_row(k, f"{v * 1e6:.2f}")
    console.print(terms)
    if pred.counts:
        console.print(_counts_line(pred.counts, stats, params))
    crit = make_table("criterion (seed 001)", "value [0,1]", "potential speedup", "hint",
                      console=console)
    for c in pred.criteria:
        crit.add_row(c.name, f"{c.value:.2f}", f"{c.speedup:.2f}×",
                     c.hint if c.value < 0.95 else "")
    console.print(crit)


def _counts_line(counts: Mapping[str, float], stats: KernelStats, params: ModelParams) -> str:
    """What the terms price, as a counter would read it (``Prediction.counts``)."""
    subgroups = stats.work_items / max(1, min(params.subgroup_size, stats.group_size))
    requests = counts.get("first_level_requests", 0.0)
    parts = [f"{requests:.3g} first-level requests ({requests / max(subgroups, 1):,.0f} a "
             "sub-group)"]
    if counts.get("first_level_misses"):
        parts.append(f"{counts['retouch_hit_share'] * 100:.0f} % of the re-touches hit, "
                     f"{counts['first_level_misses']:.3g} go on to the next level")
    if counts.get("next_level_fill_bytes"):
        parts.append(f"the groups' fills {counts['next_level_fill_bytes'] / 1e6:,.1f} MB in "
                     f"{counts['next_level_fill_requests']:.3g} requests to the next level")
    if counts.get("next_level_refill_bytes"):
        parts.append(f"{counts['next_level_refill_bytes'] / 1e6:,.1f} MB of them again in "
                     f"{counts['next_level_refill_requests']:.3g} requests, the first level "
                     "full (not priced)")
    parts.append(f"{counts.get('dram_bytes', 0.0) / 1e6:,.1f} MB to and from DRAM")
    parts.append(f"{counts.get('resident_items_per_cu', 0.0):,.0f} items resident a compute "
                 "unit")
    rounds = counts.get("load_rounds", 0.0)
    if rounds:
        parts.append(f"{rounds:g} load round{'' if rounds == 1 else 's'} an item")
    return "model's counts per launch: " + "; ".join(parts)


def print_accuracy_by_value(acc: Accuracy) -> None:
    """Where the model misses: one row per knob value and predicted bottleneck, the values
    whose median is more than 15 % off marked."""
    from gencl.report_console import make_console, make_table

    console = make_console()
    if acc.set_aside:
        console.print(f"{acc.set_aside} records set aside: their knob values have left the "
                      "space")
    table = make_table("axis", "value", "variants", "median predicted/measured", "within ±15 %",
                       console=console)
    for axis, values in (acc.by_value or {}).items():
        for value, family in values.items():
            off = abs(family["median_ratio"] - 1) > 0.15
            ratio = f"{family['median_ratio']:.2f}"
            table.add_row(axis, value, str(family["n"]), f"[bold]{ratio}[/]" if off else ratio,
                          f"{family['within_15pct']:.0%}")
    console.print(table)


#: ρ this far below the one the model's own scatter leaves at random says its misses fall in
#: a pattern (``print_scatter``)
PATTERN_MARGIN = 0.02


def print_scatter(rho: float, scatter: Mapping[str, Any]) -> None:
    """How demanding ρ is over the measured times, beside the model's ρ (``scatter_reference``):
    what random scatter alone would leave."""
    levels = scatter["rho_at_scatter"]
    print(f"the measured times span {scatter['measured_spread']:.2f}× (interquartile range "
          f"{scatter['measured_iqr_over_median']:.1%} of the median); random scatter of "
          f"{' / '.join(f'{float(sd):.0%}' for sd in levels)} alone would rank them at ρ = "
          f"{' / '.join(f'{r:.3f}' for r in levels.values())}; the model's scatter "
          f"({scatter['model_log_scatter']:.1%}, log predicted/measured about its median) alone "
          f"at ρ = {scatter['rho_at_model_scatter']:.3f}, where the model ranks them at "
          f"{rho:.3f}: " + ("its misses fall in a pattern (a family priced wrong), not at random"
                            if rho < scatter["rho_at_model_scatter"] - PATTERN_MARGIN else
                            "its misses order the variants no worse than random ones would"))


def print_repeat(repeat: Mapping[str, Any]) -> None:
    """The second run against the first beside the model against the second: how far the
    model's figures could go on this device."""
    def share(value: float | None) -> str:
        return "?" if value is None else f"{value:.0%}"

    def rho(value: float | None) -> str:
        return "?" if value is None else f"{value:.3f}"

    print(f"repeat {repeat['file']}: {repeat['n']} variants measured twice; the second run "
          f"against the first: Spearman ρ = {rho(repeat['spearman'])}, within ±15 %: "
          f"{share(repeat['within_15pct'])}, median second/first {repeat['median_ratio']:.2f} "
          "(how far one run foresees another: a model near it is held by the measurement's "
          "noise, one far below it by its own terms); the model against the second run: "
          f"ρ = {rho(repeat['model_spearman'])}, within ±15 %: "
          f"{share(repeat['model_within_15pct'])}")


def print_ranking(spec: Any, ranking: Any, top: int) -> None:
    """The *top* fastest predictions of ``gencl.api.rank``, the model's pick and its tie."""
    import statistics

    from gencl.model._pick import TIE_SHARE
    from gencl.report_console import make_console, make_table
    from gencl.spec import knob_text

    console = make_console()
    ranked, params = ranking.ranked, ranking.params
    varying = [k for k in spec.axes if len({knob_text(r.point[k]) for r in ranked}) > 1]

    def name(point: Mapping[str, Any]) -> str:
        return ", ".join(f"{k}={knob_text(point[k])}" for k in varying) or "the one point"

    times = [r.predicted_s for r in ranked]
    console.print(f"[bold]{spec.name}[/] on {params.device}: {len(ranked)} points priced "
                  f"at {dict(ranked[0].sizes)}, nothing built or run; fastest "
                  f"{times[0] * 1e6:.1f} µs, median {statistics.median(times) * 1e6:.1f}, "
                  f"slowest {times[-1] * 1e6:.1f} (per sweep)")
    if params.profile_note:
        console.print(f"[yellow]warning:[/] {params.profile_note}")
    table = make_table("#", "predicted µs", "bottleneck", "variant", console=console)
    for i, r in enumerate(ranked[:top], 1):
        table.add_row(str(i), f"{r.predicted_s * 1e6:.1f}", r.prediction.bottleneck,
                      name(r.point))
    console.print(table)
    console.print(f"the model's pick: {name(ranking.pick.point)}, "
                  f"{ranking.pick.predicted_s * 1e6:.1f} µs"
                  + (f" (of {len(ranking.tied)} priced within {TIE_SHARE:.0%} of the fastest, "
                     "the one whose terms sum lowest)" if len(ranking.tied) > 1 else ""))
    guessed = nominal_inputs(ranking.pick.prediction.bottleneck, params)
    if guessed:
        console.print(f"[yellow]warning:[/] the pick's bottleneck is priced by nominal "
                      f"numbers, not measured: {', '.join(guessed)}")
    if ranking.unpriced:
        console.print(f"{len(ranking.unpriced)} points not priced (loopy could not count "
                      f"them), the first: {ranking.unpriced[0][1]}")
