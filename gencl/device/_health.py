"""Whether a device can do the job: build and run a tiny kernel once, check its answer.

A device that is listed is not a device that works: PyPI's PoCL 3.0 (LLVM 14) lists a CPU device
on an AMD Zen 5 machine but cannot compile anything (``unknown target CPU 'generic'``). The probe
is cached on disk per platform, device, driver, ICD library and the environment variables that
change how kernels compile, so it runs once per machine setup, not once per command.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

#: Environment variables that change how a runtime finds devices or compiles kernels; a probe
#: taken under other values says nothing about this process.
_ENV_PREFIXES = ("POCL_", "OCL_ICD_", "CL_CONFIG_", "OCLGRIND_")

_PROBE_ITEMS = 64

_PROBE_SOURCE = """// gencl device probe {key}
__kernel void gencl_probe(__global float *out, __global const float *in)
{{
    const int i = get_global_id(0);
    out[i] = 2.0f * in[i] + (float) i;
}}
"""

#: CPU runtimes to suggest when one cannot be used, by their DEFAULT_PREFERENCE kind.
CPU_RUNTIMES = (
    ("pocl-system", "install Debian's PoCL (apt-get install pocl-opencl-icd, as root)"),
    ("intel-cpu", "install Intel's CPU runtime (pip install 'gencl[intel]', no root)"))


@dataclass(frozen=True)
class DeviceHealth:
    """``usable``, or the one-line ``reason`` it is not and the ``fix`` to try."""

    usable: bool
    reason: str = ""
    fix: str = ""

    @property
    def status(self) -> str:
        return "usable" if self.usable else self.reason

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def compile_env() -> dict[str, str]:
    """The environment variables (set now) that change device discovery or compilation."""
    return {k: v for k, v in sorted(os.environ.items()) if k.startswith(_ENV_PREFIXES)}


def _library_stamp(library: str) -> str:
    try:
        st = Path(library).stat()
        return f"{library}:{st.st_size}:{int(st.st_mtime)}"
    except OSError:
        return library


def probe_key(platform_name: str, platform_version: str, device_name: str, driver: str,
              library: str) -> str:
    """Hash of everything a probe's answer depends on."""
    parts = [platform_name, platform_version, device_name, driver, _library_stamp(library),
             json.dumps(compile_env())]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def build_failure_reason(message: str) -> str:
    """The first line of a build log that says what went wrong (not pyopencl's wrapping)."""
    text = message
    m = re.search(r"Build on <[^>]*>:\s*\n(.*?)(?:\n\(options:|\Z)", message, re.S)
    if m:
        text = m.group(1)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    noise = ("clBuildProgram failed", "Build on <", "(options:")
    lines = [ln for ln in lines if not ln.startswith(noise)] or lines
    for line in lines:
        hit = re.search(r"\berror\b:?\s*(.*)", line, re.I)
        if hit and hit.group(1):
            return hit.group(1).strip()
    return lines[0] if lines else message.strip().splitlines()[0] if message.strip() else "?"


def probe(cl_device: Any, key: str) -> DeviceHealth:
    """Build and run the probe kernel on *cl_device*; never raises."""
    import numpy as np
    import pyopencl as cl

    try:
        ctx = cl.Context([cl_device])
        queue = cl.CommandQueue(ctx)
    except Exception as exc:  # noqa: BLE001 -- any failure is the device's status
        return DeviceHealth(False, f"cannot create a context: {_first_line(exc)}")
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a compiler's chatter is not a failure
            program = cl.Program(ctx, _PROBE_SOURCE.format(key=key)).build(devices=[cl_device])
    except Exception as exc:  # noqa: BLE001
        return DeviceHealth(False, f"cannot compile: {build_failure_reason(str(exc))}")
    try:
        data = np.random.default_rng(0).random(_PROBE_ITEMS, dtype=np.float32)
        mf = cl.mem_flags
        src = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
        out = np.full(_PROBE_ITEMS, np.nan, dtype=np.float32)
        dst = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
        program.gencl_probe(queue, (_PROBE_ITEMS,), None, dst, src)
        cl.enqueue_copy(queue, out, dst)
        queue.finish()
    except Exception as exc:  # noqa: BLE001
        return DeviceHealth(False, f"cannot run a kernel: {_first_line(exc)}")
    expected = 2.0 * data + np.arange(_PROBE_ITEMS, dtype=np.float32)
    if not np.allclose(out, expected, rtol=1e-5, atol=1e-5):
        return DeviceHealth(False, "wrong answer from a test kernel (2·x + i)")
    return DeviceHealth(True)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:300]


# {{{ the cache

_MEMO: dict[str, DeviceHealth] = {}


def _cache_file(key: str) -> Path | None:
    from gencl.generate._cache import cache_dir

    root = cache_dir()
    return root / "devices" / f"{key}.json" if root else None


def cached_probe(cl_device: Any, key: str) -> DeviceHealth:
    """``probe`` once per key: in memory, then on disk, then for real."""
    if key in _MEMO:
        return _MEMO[key]
    path = _cache_file(key)
    health = None
    if path is not None and path.is_file():
        try:
            health = DeviceHealth(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            health = None  # torn or old entry: probe again
    if health is None:
        health = probe(cl_device, key)
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f".{key}.{os.getpid()}.tmp")
                tmp.write_text(json.dumps(health.to_json()))
                tmp.replace(path)
            except OSError:
                pass  # a read-only cache: probe again next time
    _MEMO[key] = health
    return health

# }}}
