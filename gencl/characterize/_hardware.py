"""What a device is built from, where OpenCL does not say: warp width, lanes, concurrency limits.

Documented vendor numbers (NVIDIA by compute capability) and derivations for CPU devices (PoCL),
each with the method written next to it, so that an analysis can say where a number came from.
Functions accept a DeviceInfo or its ``to_json()`` dict.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: NVIDIA per-SM figures by compute capability (CUDA C Programming Guide, "Compute Capabilities"
#: and "Arithmetic Instructions" tables): lanes per SM for fp32 / fp64 / int32 (mad), max
#: resident threads, max resident blocks.
_NVIDIA_SM = {
    "7.0": {"float32": 64, "float64": 32, "uint32": 64, "threads": 2048, "blocks": 32},
    "7.5": {"float32": 64, "float64": 2, "uint32": 64, "threads": 1024, "blocks": 16},
    "8.0": {"float32": 64, "float64": 32, "uint32": 64, "threads": 2048, "blocks": 32},
    "8.6": {"float32": 128, "float64": 2, "uint32": 64, "threads": 1536, "blocks": 16},
    "8.9": {"float32": 128, "float64": 2, "uint32": 64, "threads": 1536, "blocks": 24},
    "9.0": {"float32": 128, "float64": 64, "uint32": 64, "threads": 2048, "blocks": 32},
}

#: Parallel vector pipes per CPU core assumed for the theoretical ceiling (two FMA ports on
#: Intel Skylake-SP and later, AMD Zen): an upper bound, so a throughput above it is an error.
CPU_VECTOR_PIPES = 2


def _get(device: Any, key: str) -> Any:
    return device.get(key) if isinstance(device, Mapping) else getattr(device, key, None)


def is_gpu(device: Any) -> bool:
    return str(_get(device, "device_type") or "").upper() == "GPU"


def is_nvidia(device: Any) -> bool:
    return "NVIDIA" in str(_get(device, "platform") or "").upper()


def cpu_simd_bits(cpuinfo: str | None = None) -> int:
    """Widest SIMD register of this host's CPU from /proc/cpuinfo flags (avx512f 512, avx 256,
    sse2 128); 128 when unknown."""
    if cpuinfo is None:
        return _host_simd_bits()
    flags = set(re.findall(r"\b(avx512f|avx2|avx|sse2)\b", cpuinfo))
    return 512 if "avx512f" in flags else 256 if flags & {"avx2", "avx"} else 128


@functools.lru_cache(maxsize=1)
def _host_simd_bits() -> int:
    """This host's figure, read once per process: the host's CPU flags do not change while it
    runs, and a space's constraints ask at every point (chain's 92,400 points re-read and
    re-searched /proc/cpuinfo 554,582 times: 60 s of a 76 s ``gencl verify --sample 2``)."""
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
    except OSError:
        cpuinfo = ""
    return cpu_simd_bits(cpuinfo)


def cpu_last_level_cache_bytes(sysfs: str = "/sys/devices/system/cpu/cpu0/cache") -> int:
    """This host's largest CPU cache in bytes (sysfs), 0 when unknown.

    CPU OpenCL runtimes report what they like as CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (Intel's CPU
    runtime: 256 KiB, an L2, on a Xeon with a 48 MiB L3), so buffers meant to miss every cache
    are sized against the host's own figure as well.
    """
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    best = 0
    for index in Path(sysfs).glob("index*"):
        try:
            text = (index / "size").read_text().strip()
        except OSError:
            continue
        m = re.fullmatch(r"(\d+)([KMG]?)", text)
        if m:
            best = max(best, int(m.group(1)) * units.get(m.group(2), 1))
    return best


def warp_width(device: Any) -> tuple[int | None, str]:
    """Work items executed in lockstep, and how it was obtained.

    NVIDIA: the attribute query (CL_DEVICE_WARP_SIZE_NV). CPU (PoCL): the work-group loop is
    vectorized by LLVM over work items, so the "warp" is the SIMD register width in 32-bit lanes
    (AVX-512 → 16). LLVM may prefer narrower vectors on some CPUs; the divergence benchmark
    measures the width that is actually used.
    """
    ws = _get(device, "warp_size")
    if ws:
        return int(ws), "device attribute query (CL_DEVICE_WARP_SIZE_NV)"
    if not is_gpu(device):
        bits = cpu_simd_bits()
        return bits // 32, f"CPU SIMD width {bits} bit / 32-bit lanes (/proc/cpuinfo flags)"
    return None, "unknown (no vendor query)"


def _nvidia_sm(device: Any) -> Mapping[str, int] | None:
    cc = _get(device, "compute_capability")
    return _NVIDIA_SM.get(str(cc)) if cc and is_nvidia(device) else None


def lanes_per_cu(device: Any, dtype: str) -> tuple[int | None, str]:
    """Processing elements per compute unit for *dtype* arithmetic (NbrPE of seed 000 eq. 1)."""
    sm = _nvidia_sm(device)
    if sm is not None:
        return sm.get(dtype), f"NVIDIA CC {_get(device, 'compute_capability')} table"
    if not is_gpu(device):
        bits = cpu_simd_bits()
        width = bits // (64 if dtype == "float64" else 32)
        return CPU_VECTOR_PIPES * width, (f"{CPU_VECTOR_PIPES} vector pipes × {bits}-bit SIMD "
                                          f"per core (upper bound)")
    return None, "unknown for this device"


def max_concurrent_items(device: Any) -> tuple[int | None, str]:
    """Work items resident on one compute unit at full occupancy."""
    sm = _nvidia_sm(device)
    if sm is not None:
        return sm["threads"], "NVIDIA max resident threads per SM"
    if not is_gpu(device):
        return int(_get(device, "max_work_group_size") or 1), \
            "CPU: one work-group per core at a time (MaxConcWG = 1) × max work-group size"
    return None, "unknown"


def max_conc_wg(device: Any) -> tuple[int | None, str]:
    """MaxConcWG: work-groups resident on one compute unit.

    NVIDIA: max resident blocks per SM (vendor table). PoCL's CPU device runs each work-group on
    one worker thread per core to completion, so 1.
    """
    sm = _nvidia_sm(device)
    if sm is not None:
        return sm["blocks"], "NVIDIA max resident blocks per SM"
    if not is_gpu(device):
        return 1, "PoCL CPU: one work-group per core at a time"
    return None, "unknown"
