"""One ``gencl space`` run: the slice's points measured (resumable), then peers and the report."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gencl.errors import GenclError
from gencl.spec import matches
from gencl.spec._hooks import axis_value

PEER_MODES = ("auto", "yes", "no", "only")


@dataclass
class SpaceRun:
    """What a space run left: summary.json's content, its folder, every record of the cache."""

    summary: dict[str, Any]
    out: Path
    results: list[dict[str, Any]] = field(default_factory=list)
    measured_now: int = 0
    complete: bool = False
    device: dict[str, Any] = field(default_factory=dict)  # DeviceInfo JSON of the device measured


def check_fixed(spec: Any, fixed: Mapping[str, Any]) -> dict[str, Any]:
    """*fixed* axes checked against the space (names, values); one line naming the knob."""
    where = spec.path or spec.name
    for name, value in fixed.items():
        if name not in spec.axes:
            raise GenclError(f"{where}: knob {name}: unknown (known: {', '.join(spec.axes)})")
        if not any(matches({name: v}, {name: value}) for v in spec.axes[name]):
            raise GenclError(f"{where}: knob {name}: {value!r} is outside the space "
                             f"{spec.axes[name]}")
    # the fixed axes together, not one by one at the defaults: a slice no point of the space
    # is in is what the caller asked for
    return {name: axis_value(spec.axes[name], value) for name, value in fixed.items()}


def space_slice(spec: Any, fixed: Mapping[str, Any] | None = None,
                variant: str | None = None) -> dict[str, Any]:
    """The axes a run fixes: *fixed*, a named variant's axes, and float32 where the spec has a
    ``dtype`` axis with it and nothing else chose (one element type per run)."""
    slice_ = dict(fixed or {})
    if variant is not None:
        variants = spec.hooks.variants
        if variant not in variants:
            raise GenclError(f"variant {variant}: known are {', '.join(variants) or 'none'} "
                             f"(ApplicationHooks.variants of {spec.name})")
        slice_ = {**variants[variant], **slice_}
    if "dtype" not in slice_ and "float32" in spec.axes.get("dtype", ()):
        slice_["dtype"] = "float32"
    return check_fixed(spec, slice_)


def _shard_ok(shard: tuple[int, int]) -> tuple[int, int]:
    i, n = shard
    if not 0 <= i < n:
        raise GenclError(f"shard {i}/{n}: need 0 <= I < N")
    return i, n


def generate_space(spec: Any, *, device: Any = None, fixed: Mapping[str, Any] | None = None,
                   variant: str | None = None, shard: tuple[int, int] = (0, 1),
                   sample: int | None = None) -> tuple[int, int]:
    """Generate the slice's variants into the cache (no device): (generated, excluded)."""
    from gencl.generate import GenerationFailure, generate_many
    from gencl.space._measure import space_points

    points = space_points(spec, device, fixed=space_slice(spec, fixed, variant),
                          shard=_shard_ok(shard), sample=sample,
                          always=list(spec.hooks.variants.values()))
    variants = generate_many(spec, points)
    failed = sum(isinstance(v, GenerationFailure) for v in variants)
    return len(variants) - failed, failed


def run_space(spec: Any, *, device: str | int | None = None,
              fixed: Mapping[str, Any] | None = None, variant: str | None = None,
              sizes: Mapping[str, int] | None = None, quick: bool = False,
              shard: tuple[int, int] = (0, 1), sample: int | None = None, repeats: int = 25,
              rounds: int = 0, peers: str = "auto", out: str | Path | None = None,
              log: Callable[[str], None] | None = None) -> SpaceRun:
    """Measure a tuning kernel's space on a device, then its peers and report.

    Args:
        fixed: axes held fixed (the slice); a ``dtype`` axis defaults to float32.
        variant: one named variant only (``ApplicationHooks.variants``).
        sizes: problem sizes over the spec's (``{"n": 8192}``).
        quick: the spec's quick sizes; results go to ``out/`` unless *out* says otherwise.
        shard: (I, N): every N-th point from the I-th (machines splitting one space).
        sample: the named variants plus this many random points, not the whole slice.
        rounds: then time every ok variant again in this many interleaved rounds (a machine
            whose speed drifts: ``gencl.measure._rounds``); each variant's first measurement,
            then only a correctness check and a launch count, takes one attempt.
        peers: ``auto`` (copy bandwidth and peers once the slice is complete), ``yes``,
            ``no``, ``only`` (no variants measured, peers and report again).
        out: folder (default ``bench_results/<device>/<spec>``, with *quick* ``out/…``).
        log: progress lines.
    """
    from gencl.generate import variant_id
    from gencl.measure import OpenCLEngine, results_header
    from gencl.space._measure import (
        measure_space, open_results, previously_sampled, shared_slice, space_points)
    from gencl.space._peers import measure_copy_bandwidth, measure_peers
    from gencl.space._report import summarize_space, write_report

    if peers not in PEER_MODES:
        raise GenclError(f"peers {peers}: expected one of {', '.join(PEER_MODES)}")
    say = log or (lambda _: None)
    fixed = space_slice(spec, fixed, variant)
    shard = _shard_ok(shard)
    # with rounds the first measurement only verifies and sizes a sample: one attempt
    engine = OpenCLEngine(device, repeats=repeats, max_attempts=1 if rounds else 3)
    overrides = dict(sizes or {})

    def sizes_of(point: dict[str, Any]) -> dict[str, int]:
        return {**spec.sizes(point, engine.info, quick), **overrides}

    every = list(spec.points(engine.info, fixed))  # walked once: the slice and its shard
    full = space_points(spec, engine.info, fixed=fixed, every=every)
    points = space_points(spec, engine.info, fixed=fixed, shard=shard, sample=sample,
                          always=list(spec.hooks.variants.values()), every=every)
    default = spec.complete(fixed)
    run_sizes = sizes_of(full[0] if full else default)
    # a quick run never lands next to (or resumes into) committed full results
    folder = Path(out or f"{'out' if quick else 'bench_results'}/{engine.info.slug}/{spec.name}")
    sampled = sample is not None or previously_sampled(folder / "space.json")
    header = results_header(engine, spec=spec.name, sizes=run_sizes, quick=quick,
                            sampled=sampled, slice=fixed, space_size=len(full),
                            spec_path=spec.path)
    sink = open_results(folder / "space.json", header)
    measured = 0
    if peers != "only":
        start, total = time.perf_counter(), len(points)
        done = [0]

        def progress(_: Any) -> None:
            done[0] += 1
            if done[0] % 50 == 0 or done[0] == total:
                say(f"  {done[0]}/{total} measured ({time.perf_counter() - start:.0f} s)")

        say(f"{spec.name}: {len(points)} points in this call (space on {engine.info.name}: "
            f"{len(full)}), sizes {run_sizes}, slice {fixed}")
        measured = measure_space(spec, engine, points, sizes_of, sink, on_result=progress,
                                 rounds=rounds, log=say)
    # a folder may hold another slice's records too (a run adding boundary=padded to a folder
    # of boundary=branch): the file's header, summary and report name what all of them share
    held = shared_slice(fixed, sink.results)
    if held != fixed:
        header.update(slice=held, space_size=len(space_points(spec, engine.info, fixed=held)))
    sink.close()
    ids = sink.done_ids
    complete = all(variant_id(spec, p) in ids
                   for p in (points if sample is not None else full))
    peers_path = folder / "peers.json"
    if peers in ("yes", "only") or (peers == "auto" and complete):
        copy = measure_copy_bandwidth(engine, quick=quick)
        peer_point = {**default, **fixed}
        times, skipped = measure_peers(spec, engine, peer_point, sizes_of(peer_point),
                                       repeats=repeats)
        peers_path.write_text(json.dumps({**header, "copy": copy, "peers": times,
                                          "skipped": skipped}, indent=1, default=str) + "\n")
    saved = json.loads(peers_path.read_text()) if peers_path.is_file() else {}
    copy = saved.get("copy", {})
    summary = summarize_space(spec, sink.results, device=engine.info.name, fixed=held,
                              sizes_of=sizes_of, space_size=header["space_size"],
                              copy_bw=copy.get("copy_bw_Bps"), peers=saved.get("peers", {}),
                              peers_skipped=saved.get("skipped", {}))
    write_report(folder, spec, sink.results, header, summary, fixed=held, sizes_of=sizes_of,
                 sampled=sampled, copy=copy)
    return SpaceRun(summary, folder, list(sink.results), measured, complete,
                    device=engine.info.to_json())


def report_space(folder: str | Path, spec: Any = None) -> SpaceRun:
    """Re-render a space's summary.json, report.md and plot from its cache (no device).

    *spec* defaults to the one named in the cache's header (loaded by name).
    """
    from gencl.model import load_results
    from gencl.space._report import summarize_space, write_report

    folder = Path(folder)
    data = load_results(folder / "space.json")
    if spec is None:
        from gencl.api import load

        name = data.get("spec_path") or data.get("spec") or folder.name
        if not name:
            raise GenclError(f"{folder}: the cache names no spec file (an in-memory spec): "
                             "give the spec")
        spec = load(name)
    results = data["results"]
    # caches written before the header named its sizes: the sizes most records ran at
    fixed = {**({"dtype": data["dtype"]} if "dtype" in data else {}), **(data.get("slice") or {})}
    sizes = dict(data.get("sizes") or (max(
        (r["sizes"] for r in results), key=lambda s: sum(r["sizes"] == s for r in results))
        if results else {}))

    def sizes_of(point: dict[str, Any]) -> dict[str, int]:
        return sizes

    peers_path = folder / "peers.json"
    saved = json.loads(peers_path.read_text()) if peers_path.is_file() else {}
    copy = saved.get("copy", {})
    header = {k: v for k, v in data.items() if k != "results"}
    device = (header.get("device") or {}).get("name", "unknown device")
    summary = summarize_space(spec, results, device=device, fixed=fixed, sizes_of=sizes_of,
                              space_size=int(header.get("space_size") or len(results)),
                              copy_bw=copy.get("copy_bw_Bps"), peers=saved.get("peers", {}),
                              peers_skipped=saved.get("skipped", {}))
    write_report(folder, spec, results, header, summary, fixed=fixed, sizes_of=sizes_of,
                 sampled=bool(header.get("sampled")), copy=copy)
    return SpaceRun(summary, folder, list(results))
