"""clpeak as a peer of ``gencl profile``: run it on the profiled device, parse what it prints.

clpeak (https://github.com/krrishnarraj/clpeak; Debian's ``clpeak`` package is 1.1.2, or the
binary ``$CLPEAK`` names; 2.x is driven with its own flags) measures figures gencl's suite also
measures: SP, DP and INT multiply-add peaks (best over float..float16), global read bandwidth,
local-memory and image bandwidth (2.x only), transfers and kernel launch latency. gencl profiles
one device; clpeak is pointed at the same one.

The device. pyopencl and clpeak each list platforms through their own ICD loader (pyopencl's
wheel bundles one that also reads its own ``.libs``), so their platform indexes differ. gencl
finds the ICD library that provides the profiled platform (each candidate library asked in a
subprocess, through the KHR ICD dispatch table, for its platform name, version and devices), gives
clpeak a vendors folder holding that library alone (platform 0 unless the library provides
several; the device's index within its platform, the same order in both), and checks the
platform and device clpeak prints.

Parsing. clpeak prints sections ``Title (UNIT)`` with one ``label : value`` line per vector
width (1.x and 2.x alike); 1.x prints the launch latency on one line (``Kernel launch latency :
13.24 us``, CL_PROFILING_COMMAND_QUEUED → START), 2.x prints ``dispatch`` (the same quantity) and
``roundtrip`` (host enqueue → completion seen by the host). Figures are keyed by the gencl
characteristic they compare with, in SI units.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

#: clpeak section title → the gencl characteristic it compares with
SECTIONS = {"single-precision compute": "sp_madd_peak_flops",
            "double-precision compute": "dp_peak_flops",
            "integer compute": "int_peak_ops",
            "global memory bandwidth": "global_read_bw_Bps",
            "local memory bandwidth": "local_bw_Bps",
            "image memory bandwidth": "image_read_bw_Bps"}
#: clpeak's transfer rows → the gencl characteristic (blocking enqueueWrite/ReadBuffer from
#: pageable host memory, as gencl's ``transfers``); 1.x spells them in camel case
TRANSFERS = {"enqueuewritebuffer": "h2d_bw_Bps", "enqueuereadbuffer": "d2h_bw_Bps"}
#: SI scale of a clpeak rate unit by its first letter (GFLOPS, GIOPS, GBPS, TFLOPS, MBPS …)
_PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
#: clpeak launch-latency metric → gencl characteristic (runtime_overhead; same definitions)
LATENCY = {"dispatch": "launch_queued_to_start_s", "roundtrip": "launch_roundtrip_s"}
UNITS = {"sp_madd_peak_flops": "FLOP/s", "dp_peak_flops": "FLOP/s", "int_peak_ops": "op/s",
         "global_read_bw_Bps": "B/s", "local_bw_Bps": "B/s", "image_read_bw_Bps": "B/s",
         "h2d_bw_Bps": "B/s", "d2h_bw_Bps": "B/s", "launch_queued_to_start_s": "s",
         "launch_roundtrip_s": "s"}

#: gencl suite benchmark → the clpeak tests that measure the same figures, by clpeak major
#: version (1.x: ``--compute-sp``…; 2.x renamed them and selects OpenCL devices with
#: ``--cl-platform``/``--cl-device``; local-memory and image bandwidth are 2.x tests only)
TESTS = {1: {"chain": ("--compute-sp", "--compute-dp", "--compute-integer"),
             "read_bandwidth": ("--global-bandwidth",),
             "transfers": ("--transfer-bandwidth",),
             "runtime_overhead": ("--kernel-latency",)},
         2: {"chain": ("--single-precision-compute", "--double-precision-compute",
                       "--integer-compute"),
             "read_bandwidth": ("--global-memory-bandwidth",),
             "local_memory": ("--local-memory-bandwidth",),
             "image_memory": ("--image-memory-bandwidth",),
             "transfers": ("--transfer-bandwidth",),
             "runtime_overhead": ("--kernel-launch-latency",)}}

TIMEOUT_S = 1800.0

_HEADER = re.compile(r"^\s*(?P<title>[A-Za-z][^:()]*?)\s*\((?P<unit>[A-Za-z/]+)\)\s*$")
_VALUE = re.compile(r"^\s*(?P<label>[^:]+?)\s*:\s*(?P<value>[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)"
                    r"\s*(?P<unit>[A-Za-z/]*)\s*$")
_NAMED = re.compile(r"^\s*(?P<key>Platform|Device)(?:\s+\d+)?\s*:\s*(?P<value>.+?)\s*$")
_DRIVER = re.compile(r"^\s*Driver version\s*:\s*(?P<value>.+?)\s*$")


# {{{ parsing (pure)

def _latency_s(value: float, unit: str) -> float:
    return value * {"us": 1e-6, "ms": 1e-3, "ns": 1e-9, "s": 1.0}.get(unit.lower(), 1e-6)


def parse_output(text: str) -> dict[str, Any]:
    """clpeak's text output → {"platform", "device", "driver", "sections", "figures"}.

    ``sections``: every ``Title (UNIT)`` block as {title: {"unit", "values": {label: number}}}.
    ``figures``: the ones gencl compares, keyed by gencl characteristic name, each
    {"value" (SI), "unit", "best" (the label of the best width, for rates), "clpeak_value",
    "clpeak_unit"}. Only the first device in the output is read.
    """
    out: dict[str, Any] = {"platform": None, "device": None, "driver": None, "sections": {},
                           "figures": {}}
    section: dict[str, Any] | None = None
    for line in text.splitlines():
        named = _NAMED.match(line)
        if named:
            key = named["key"].lower()
            if out[key] is not None and key == "device":
                break  # a second device: not ours
            out[key] = named["value"]
            section = None
            continue
        driver = _DRIVER.match(line)
        if driver:
            out["driver"] = driver["value"]
            continue
        header = _HEADER.match(line)
        if header:
            section = {"unit": header["unit"], "values": {}}
            out["sections"][header["title"].strip()] = section
            continue
        value = _VALUE.match(line)
        if not value:
            if line.strip() and not line.startswith((" " * 6, "\t\t\t")):
                section = None  # a note line ("No half precision support! Skipped") ends it
            continue
        label, number = value["label"].strip(), float(value["value"])
        if label.lower() == "kernel launch latency":  # 1.x: one line, QUEUED → START
            out["sections"]["Kernel launch latency"] = {"unit": value["unit"] or "us",
                                                        "values": {"dispatch": number}}
            section = None
        elif section is not None:
            section["values"][label] = number
    out["figures"] = figures(out["sections"])
    return out


def figures(sections: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The compared figures of parsed *sections*: best over widths for rates, SI units."""
    found: dict[str, dict[str, Any]] = {}
    for title, sec in sections.items():
        values = {k: v for k, v in sec.get("values", {}).items() if v is not None}
        if not values:
            continue
        name = SECTIONS.get(title.lower())
        unit = str(sec.get("unit", "")).upper()
        if name is not None and unit[:1] in _PREFIX:
            scale = _PREFIX[unit[:1]]
            best = max(values, key=lambda k: values[k])
            found[name] = {"value": values[best] * scale, "unit": UNITS[name], "best": best,
                           "clpeak_value": values[best], "clpeak_unit": sec.get("unit", ""),
                           "by_width": dict(values)}
        elif title.lower() == "transfer bandwidth" and unit[:1] in _PREFIX:
            for label, number in values.items():
                name = TRANSFERS.get(label.lower().replace(" ", ""))
                if name:
                    found[name] = {"value": number * _PREFIX[unit[:1]], "unit": "B/s",
                                   "best": label, "clpeak_value": number,
                                   "clpeak_unit": sec.get("unit", "")}
        elif title.lower() == "kernel launch latency":
            for label, number in values.items():
                name = LATENCY.get(label.lower())
                if name:
                    found[name] = {"value": _latency_s(number, sec.get("unit", "us")),
                                   "unit": "s", "clpeak_value": number,
                                   "clpeak_unit": sec.get("unit", "")}
    return found


def parse_version(text: str) -> str | None:
    m = re.search(r"clpeak version:?\s*v?([0-9][0-9A-Za-z.+-]*)", text)
    return m.group(1) if m else None

# }}}


# {{{ finding the binary and the ICD library of a platform

def find_clpeak() -> str | None:
    """``$CLPEAK`` when set (a binary), else ``clpeak`` on PATH, else None."""
    named = os.environ.get("CLPEAK")
    if named:
        return named if os.access(named, os.X_OK) else None
    return shutil.which("clpeak")


def _icd_files() -> list[Path]:
    """ICD files an ICD loader in this environment would read, pyopencl's own included."""
    files: list[Path] = []
    vendors = os.environ.get("OCL_ICD_VENDORS")
    for entry in ([vendors] if vendors else ["/etc/OpenCL/vendors"]):
        p = Path(entry)
        files += sorted(p.glob("*.icd")) if p.is_dir() else [p] if p.is_file() else []
    try:
        import pyopencl

        pkg = Path(pyopencl.__file__).parent
        for libs in (pkg / ".libs", pkg.parent / "pyopencl.libs"):
            files += sorted(libs.glob("*.icd"))
    except ImportError:
        pass
    return files


def icd_libraries() -> list[str]:
    """Candidate ICD libraries (absolute paths where the ICD file's folder holds them)."""
    libs: list[str] = []
    for name in os.environ.get("OCL_ICD_FILENAMES", "").split(":"):
        if name:
            libs.append(name)
    for file in _icd_files():
        try:
            lib = file.read_text().strip()
        except OSError:
            continue
        if lib and not os.path.isabs(lib) and (file.parent / lib).exists():
            lib = str(file.parent / lib)
        if lib and lib not in libs:
            libs.append(lib)
    return libs


#: Lists one ICD library's platforms and devices through the KHR ICD dispatch table (slots 1-3:
#: clGetPlatformInfo, clGetDeviceIDs, clGetDeviceInfo), in a subprocess of its own.
_PROBE = r"""
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
GET = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint, ctypes.c_void_p,
                       ctypes.POINTER(ctypes.c_uint))
try:  # exported by some ICDs; the loader asks the others through their extension lookup
    get = GET(("clIcdGetPlatformIDsKHR", lib))
except AttributeError:
    lookup = lib.clGetExtensionFunctionAddress
    lookup.restype, lookup.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
    get = GET(lookup(b"clIcdGetPlatformIDsKHR"))
n = ctypes.c_uint(0)
get(0, None, ctypes.byref(n))
ids = (ctypes.c_void_p * n.value)()
get(n.value, ids, None)
INFO = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint, ctypes.c_size_t,
                        ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t))
IDS = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint,
                       ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint))
def text(fn, obj, what):
    size = ctypes.c_size_t(0)
    fn(obj, what, 0, None, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    fn(obj, what, size.value, buf, None)
    return buf.value.decode(errors="replace").strip()
out = []
for p in ids:
    table = ctypes.cast(p, ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p)))[0]
    pinfo, dids, dinfo = INFO(table[1]), IDS(table[2]), INFO(table[3])
    m = ctypes.c_uint(0)
    dids(p, 0xFFFFFFFF, 0, None, ctypes.byref(m))
    devs = (ctypes.c_void_p * m.value)()
    dids(p, 0xFFFFFFFF, m.value, devs, None)
    out.append({"name": text(pinfo, p, 0x0902), "version": text(pinfo, p, 0x0901),
                "devices": [text(dinfo, d, 0x102B) for d in devs]})
print(json.dumps(out))
"""


def _library_env(lib: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(base if base is not None else os.environ)
    folder = os.path.dirname(lib)
    if folder:  # the library's own dependencies (Intel's runtime keeps them beside it)
        env["LD_LIBRARY_PATH"] = folder + (f":{env['LD_LIBRARY_PATH']}"
                                           if env.get("LD_LIBRARY_PATH") else "")
    return env


def probe_library(lib: str, timeout_s: float = 60.0) -> list[dict[str, Any]]:
    """The platforms (name, version, device names) one ICD library provides; [] on failure."""
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE, lib], capture_output=True,
                              text=True, timeout=timeout_s, env=_library_env(lib))
        return json.loads(done.stdout) if done.returncode == 0 else []
    except (subprocess.TimeoutExpired, ValueError, OSError):
        return []


def find_library(platform: str, version: str, devices: Sequence[str],
                 libraries: Iterable[str] | None = None) -> tuple[str | None, int]:
    """(ICD library providing the platform named *platform* at *version* with *devices*, the
    platform's index within the library), or (None, -1)."""
    for lib in (icd_libraries() if libraries is None else libraries):
        for k, plat in enumerate(probe_library(lib)):
            if (plat["name"].strip() == platform.strip()
                    and plat["version"].strip() == version.strip()
                    and [d.strip() for d in plat["devices"]] == [d.strip() for d in devices]):
                return lib, k
    return None, -1

# }}}


# {{{ running it

def major(version: str | None) -> int:
    """clpeak's major version (1 when unknown: Debian's 1.1.2)."""
    m = re.match(r"(\d+)", version or "")
    return int(m.group(1)) if m else 1


def clpeak_tests(benchmarks: Iterable[str], version: str | None = None) -> list[str]:
    """clpeak's test flags for the suite benchmarks being profiled (nothing shared: [])."""
    tests = TESTS[min(max(major(version), 1), 2)]
    out: list[str] = []
    for name in benchmarks:
        out += [t for t in tests.get(name, ()) if t not in out]
    return out


def device_flags(version: str | None, platform: int, device: int) -> list[str]:
    """clpeak's device selection: ``-p/-d`` (1.x), ``--opencl --cl-platform/--cl-device`` (2.x)."""
    if major(version) >= 2:
        return ["--opencl", "--cl-platform", str(platform), "--cl-device", str(device)]
    return ["-p", str(platform), "-d", str(device)]


def run_clpeak(cl_device: Any, benchmarks: Iterable[str], *, binary: str | None = None,
               timeout_s: float = TIMEOUT_S) -> dict[str, Any]:
    """Run clpeak on the pyopencl device *cl_device* for the figures *benchmarks* measure.

    Returns the peer record stored under ``peers.clpeak``: status ``ok`` (figures parsed, on the
    right device) or ``error`` with the reason, never an exception.
    """
    binary = binary or find_clpeak()
    record: dict[str, Any] = {"tool": "clpeak", "binary": binary, "status": "error",
                              "reason": "", "figures": {}}
    if not binary:
        record["reason"] = "clpeak not found (install Debian's clpeak, or set CLPEAK)"
        return record
    try:
        record["version"] = parse_version(subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=60).stdout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        record["reason"] = f"{binary} --version: {exc}"
        return record
    benchmarks = list(benchmarks)
    tests = clpeak_tests(benchmarks, record["version"])
    if not tests:
        other = "; ".join(f"clpeak {v}.x: {' '.join(t)}" for v in TESTS
                          if (t := clpeak_tests(benchmarks, str(v))))
        record["reason"] = (f"clpeak {record['version']} has no test of the figures of "
                            f"{', '.join(benchmarks)}" + (f" ({other})" if other else ""))
        record["untested"] = True  # nothing ran: a merge of several runs leaves it out
        return record
    platform = cl_device.platform
    devices = platform.get_devices()
    names = [d.name for d in devices]
    lib, index = find_library(platform.name, platform.version, names)
    record.update(platform=platform.name.strip(), device=cl_device.name.strip(),
                  icd_library=lib)
    if lib is None:
        record["reason"] = (f"no ICD library found that provides platform {platform.name!r} "
                            f"({platform.version}); looked at: {', '.join(icd_libraries())}")
        return record
    device_index = [d.int_ptr for d in devices].index(cl_device.int_ptr)
    command = [binary, *device_flags(record["version"], index, device_index), *tests]
    record.update(command=command, platform_index=index, device_index=device_index)
    with tempfile.TemporaryDirectory(prefix="gencl-clpeak-") as vendors:
        Path(vendors, "gencl-peer.icd").write_text(lib + "\n")
        env = _library_env(lib)
        env["OCL_ICD_VENDORS"] = vendors
        env.pop("OCL_ICD_FILENAMES", None)
        start = time.perf_counter()
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s,
                                  env=env)
        except (OSError, subprocess.TimeoutExpired) as exc:
            record["reason"] = f"{' '.join(command)}: {type(exc).__name__}: {exc}"[:400]
            return record
        record["elapsed_s"] = round(time.perf_counter() - start, 1)
    record["output"] = done.stdout[-20000:]
    parsed = parse_output(done.stdout)
    record.update(driver=parsed["driver"], sections=parsed["sections"],
                  figures=parsed["figures"])
    if done.returncode != 0 and not parsed["figures"]:
        record["reason"] = (f"clpeak exited {done.returncode}: "
                            f"{(done.stderr or done.stdout).strip()[-300:]}")
    elif (parsed["platform"] or "").strip() != platform.name.strip() or \
            (parsed["device"] or "").strip() != cl_device.name.strip():
        record["reason"] = (f"clpeak ran on {parsed['device']!r} ({parsed['platform']!r}), not "
                            f"{cl_device.name.strip()!r} ({platform.name.strip()!r})")
    elif not parsed["figures"]:
        record["reason"] = "clpeak printed none of the figures gencl compares"
    else:
        record["status"] = "ok"
    return record

# }}}


def shared(benchmark: str) -> bool:
    """Whether clpeak measures a figure of the suite benchmark *benchmark*."""
    return any(benchmark in tests for tests in TESTS.values())


#: what a merged record keeps of each run
RUN_KEYS = ("date", "command", "elapsed_s", "status", "reason", "output")


def merge_runs(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One peer record of several clpeak runs (each run's tests right after the gencl benchmark
    they compare with): the figures and sections of every run, status ok when every run is,
    the first reason otherwise, and each run's command, time and output under ``runs``. A run
    that ran nothing because this clpeak has no test of its benchmark (``untested``: clpeak 1.x
    beside local or image memory) is left out, unless no run ran anything."""
    runs = [run for run in runs if not run.get("untested")] or list(runs)
    if len(runs) == 1:
        return dict(runs[0])
    first = runs[0]
    out: dict[str, Any] = {key: first.get(key) for key in (
        "tool", "binary", "version", "platform", "device", "icd_library", "driver",
        "platform_index", "device_index")}
    out["figures"], out["sections"] = {}, {}
    for run in runs:
        out["figures"].update(run.get("figures") or {})
        out["sections"].update(run.get("sections") or {})
    return {**out, **_over_runs([{key: run.get(key) for key in RUN_KEYS} for run in runs])}


def _over_runs(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What a record of several runs says of them all: status ok when every run is, the first
    reason otherwise, their commands joined by "·", their time, and the runs themselves."""
    bad = [run for run in runs if run.get("status") != "ok"]
    return {"status": "error" if bad else "ok",
            "reason": bad[0].get("reason", "") if bad else "",
            "command": [arg for k, run in enumerate(runs)
                        for arg in (["·"] if k else []) + list(run.get("command") or [])],
            "elapsed_s": round(sum(float(run.get("elapsed_s") or 0.0) for run in runs), 1),
            "runs": list(runs)}


def _runs_of(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    runs = record.get("runs")
    return [dict(r) for r in runs] if runs else [{key: record.get(key) for key in RUN_KEYS}]


def update_record(stored: Mapping[str, Any] | None, new: Mapping[str, Any]) -> dict[str, Any]:
    """A profile's stored clpeak record with this run's (*new*, ``merge_runs``) laid over it:
    ``--only NAME --clpeak`` into a profile folder adds or replaces the figures of NAME's tests
    and keeps the others'. Stored runs whose figures were all measured again are dropped. *new*
    alone when nothing usable is stored (none, a run that ran nothing, another clpeak version or
    device); the stored record when *new* ran nothing (``untested``)."""
    if stored and new.get("untested"):
        return dict(stored)
    if not stored or stored.get("untested") or stored.get("version") != new.get("version") \
            or stored.get("device") != new.get("device"):
        return dict(new)
    figures = {**(stored.get("figures") or {}), **(new.get("figures") or {})}
    again = set(new.get("figures") or {})
    kept = [run for run in _runs_of(stored)
            if not set(parse_output(run.get("output") or "")["figures"]) <= again]
    runs = kept + _runs_of(new)
    if not kept:
        return dict(new)
    out = {**stored, **{k: v for k, v in new.items() if k in (
        "binary", "icd_library", "driver", "platform_index", "device_index") and v is not None}}
    out["figures"] = figures
    out["sections"] = {**(stored.get("sections") or {}), **(new.get("sections") or {})}
    return {**out, **_over_runs(runs)}


# {{{ comparison rows (report, summary)

#: Figures where lower is better (times); for the others higher is better.
LOWER_IS_BETTER = ("launch_queued_to_start_s", "launch_roundtrip_s")


def comparison(peer: Mapping[str, Any], gencl: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per figure clpeak measured (both launch latencies when it measured one): clpeak's
    value (None where it has none), gencl's, gencl/clpeak, and whether gencl is at or ahead of
    clpeak (rates: ratio ≥ 1; times: ratio ≤ 1)."""
    figs = peer.get("figures") or {}
    latency = any(n in figs for n in LOWER_IS_BETTER)  # 1.x reports dispatch only: show both
    rows = []
    for name in [n for n in UNITS if n in figs or (latency and n in LOWER_IS_BETTER)]:
        fig = figs.get(name) or {"value": None, "unit": UNITS[name]}
        ours = gencl.get(name)
        ratio = ours / fig["value"] if isinstance(ours, int | float) and fig["value"] else None
        ahead = None if ratio is None else (ratio <= 1.0 if name in LOWER_IS_BETTER
                                            else ratio >= 1.0)
        rows.append({"figure": name, "unit": fig["unit"], "clpeak": fig["value"],
                     "clpeak_best": fig.get("best"), "gencl": ours, "ratio": ratio,
                     "gencl_at_or_ahead": ahead})
    return rows

# }}}


def peer_summary(peer: Mapping[str, Any], gencl: Mapping[str, float]) -> dict[str, Any]:
    """What summary.json keeps of a peer: version, status, and per figure clpeak's value,
    gencl's (*gencl*: ``gencl_figures`` of the profile) and their ratio."""
    return {"version": peer.get("version"), "status": peer.get("status"),
            "reason": peer.get("reason", ""),
            "figures": {r["figure"]: {"clpeak": r["clpeak"], "gencl": r["gencl"],
                                      "gencl_over_clpeak": r["ratio"], "unit": r["unit"]}
                        for r in comparison(peer, gencl)}}


def gencl_figures(characteristics: Mapping[str, Any]) -> dict[str, float]:
    """gencl's value of every figure clpeak can report, from a profile's characteristics."""
    out = {}
    for name in UNITS:
        c = characteristics.get(name)
        if c is not None and isinstance(c.value, int | float):
            out[name] = float(c.value)
    return out


def wanted(enabled: bool | None, quick: bool) -> bool:
    """Run clpeak? ``--clpeak``/``--no-clpeak`` decide; by default yes when the binary exists,
    except in a quick profile (clpeak's own sizes take minutes on a 2-core CPU)."""
    if enabled is not None:
        return enabled
    return not quick and find_clpeak() is not None


#: Row labels of the report's table.
LABELS = {"sp_madd_peak_flops": "SP multiply-add", "dp_peak_flops": "DP multiply-add",
          "int_peak_ops": "INT multiply-add", "global_read_bw_Bps": "global read bandwidth",
          "local_bw_Bps": "local memory bandwidth",
          "image_read_bw_Bps": "image (texture path) read bandwidth",
          "h2d_bw_Bps": "host → device (enqueueWriteBuffer, pageable)",
          "d2h_bw_Bps": "device → host (enqueueReadBuffer, pageable)",
          "launch_queued_to_start_s": "kernel launch: dispatch (queued → start)",
          "launch_roundtrip_s": "kernel launch: round trip (enqueue → completion seen by host)"}
