"""OpenCL platforms and devices: what seed 000 Table I needs, as far as OpenCL exposes it."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from gencl.errors import DeviceError

# cl_nv_device_attribute_query
_NV_CC_MAJOR, _NV_CC_MINOR, _NV_REGS_PER_BLOCK, _NV_WARP_SIZE = 0x4000, 0x4001, 0x4002, 0x4003


@dataclass(frozen=True)
class DeviceInfo:
    """Hardware parameters of one device (those OpenCL reports; None where it does not)."""

    index: int
    name: str
    platform: str
    vendor: str
    driver: str
    opencl_version: str
    device_type: str
    compute_units: int
    max_clock_hz: float
    local_mem_bytes: int
    max_work_group_size: int
    global_mem_bytes: int
    global_cache_bytes: int
    global_cacheline_bytes: int
    constant_mem_bytes: int
    max_alloc_bytes: int
    timer_resolution_s: float
    warp_size: int | None
    compute_capability: str | None
    registers_per_block: int | None
    fp64: bool
    extensions: tuple[str, ...]
    #: the platform's version string (PoCL: its version, LLVM, build flags)
    platform_version: str = ""
    #: the runtime library the ICD loader opened for this platform ("" where unknown: older
    #: records)
    library: str = ""
    #: CL_DEVICE_IMAGE_SUPPORT (None where unknown: older records) and the largest 2-D image
    image_support: bool | None = None
    image2d_max_width: int = 0
    image2d_max_height: int = 0

    @property
    def slug(self) -> str:
        """Folder name under bench_results/: ``pocl-debian-cpu``, ``intel-cpu``, …"""
        return device_slug(self.platform, self.name, self.device_type, self.library)

    @property
    def runtime(self) -> str:
        """Which runtime this is, in words (PoCL from PyPI, Intel's CPU runtime, …)."""
        return runtime_name(self.platform, self.platform_version, self.library)

    @property
    def is_nvidia(self) -> bool:
        return "NVIDIA" in self.platform.upper()

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["slug"] = self.slug
        return d

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DeviceInfo:
        """The description a results file recorded (``to_json``), e.g. for a replayed device."""
        import dataclasses
        from dataclasses import fields

        d = {f.name: data[f.name] for f in fields(cls) if f.name in data or
             f.default is dataclasses.MISSING}
        d["extensions"] = tuple(d["extensions"])
        return cls(**d)


#: Slugs of results written before runtimes were told apart, and what they were: the committed
#: ``pocl-cpu`` results came from PyPI's PoCL 3.0.
LEGACY_SLUGS = {"pocl-cpu": "pocl-pypi-cpu"}


def slug_aliases(slug: str) -> list[str]:
    """*slug* and the other names its results may sit under (old folders, or their new name)."""
    names = [slug, LEGACY_SLUGS.get(slug, "")]
    names += [old for old, new in LEGACY_SLUGS.items() if new == slug]
    return [n for n in dict.fromkeys(names) if n]


def _is_pocl(platform: str) -> bool:
    return "portable computing language" in platform.lower() or platform.lower().startswith("pocl")


def _distro() -> str:
    from pathlib import Path

    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("ID="):
                return re.sub(r"[^a-z0-9]+", "", line[3:].strip().strip('"').lower()) or "system"
    except OSError:
        pass
    return "system"


def library_source(library: str) -> str:
    """Where a runtime library came from: ``pypi`` (a wheel), ``conda``, the distribution
    (``debian``, ``ubuntu``, … for /usr and /lib), ``local`` elsewhere; "" when unknown."""
    if not library:
        return ""
    path = library.replace("\\", "/")
    if "/site-packages/" in path or "/dist-packages/" in path:
        return "pypi"
    if "/conda" in path or "/miniforge" in path or "/mambaforge" in path:
        return "conda"
    if path.startswith(("/usr/", "/lib/", "/lib64/")):
        return _distro()
    return "local"


def runtime_name(platform: str, platform_version: str, library: str) -> str:
    if _is_pocl(platform):
        version = re.search(r"PoCL\s+(\S+)", platform_version or "")
        where = {"pypi": "PyPI (pocl-binary-distribution)", "": "unknown origin"}.get(
            library_source(library), library_source(library).capitalize())
        return f"PoCL {version.group(1) if version else ''} from {where}".replace("  ", " ")
    if "oclgrind" in platform.lower():
        return "Oclgrind simulator"
    if platform.lower().startswith("intel") and library.endswith("libintelocl.so"):
        from gencl.device._icd import find_intel_cpu_library

        pip = find_intel_cpu_library()
        return "Intel CPU runtime from " + (
            "PyPI (intel-opencl-rt)" if pip and os.path.realpath(pip) == library else library)
    return platform


def device_slug(platform: str, name: str, device_type: str, library: str = "") -> str:
    """Folder name of a device's results: runtimes on one CPU get different slugs.

    PoCL: ``pocl-<origin>-<type>`` (``pocl-pypi-cpu``, ``pocl-debian-cpu``; ``pocl-cpu`` when
    the library is unknown, as in records written before the origin was kept); Intel's CPU
    runtime: ``intel-cpu``; Oclgrind: ``oclgrind``; others: the device name.
    """
    if _is_pocl(platform):
        origin = library_source(library)
        return f"pocl-{origin}-{device_type.lower()}" if origin else f"pocl-{device_type.lower()}"
    if "oclgrind" in platform.lower():
        return "oclgrind"
    if platform.lower().startswith("intel") and device_type.upper() == "CPU":
        return "intel-cpu"
    words = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    # "NVIDIA H200" -> nvidia-h200; drop marketing suffixes that differ between drivers
    words = re.sub(r"-(nvl|sxm\d*|pcie|\d+gb.*)$", "", words)
    return words


def _nv(dev: Any, attr: int) -> int | None:
    try:
        return int(dev.get_info(attr))
    except Exception:  # noqa: BLE001 -- the attribute query is an NVIDIA extension
        return None


def _type_name(bits: int) -> str:
    import pyopencl as cl

    # test bits: to_string() of a combined bitfield can start with "ALL"
    for name in ("GPU", "CPU", "ACCELERATOR"):
        if bits & getattr(cl.device_type, name):
            return name
    return "OTHER"


def _describe(index: int, platform: Any, dev: Any) -> DeviceInfo:

    exts = tuple(sorted(dev.extensions.split()))
    nv = "cl_nv_device_attribute_query" in exts
    cc = None
    if nv:
        major, minor = _nv(dev, _NV_CC_MAJOR), _nv(dev, _NV_CC_MINOR)
        cc = f"{major}.{minor}" if major is not None else None
    try:
        resolution = dev.profiling_timer_resolution * 1e-9
    except Exception:  # noqa: BLE001
        resolution = 1e-9
    return DeviceInfo(
        index=index, name=dev.name.strip(), platform=platform.name.strip(),
        vendor=dev.vendor.strip(), driver=dev.driver_version.strip(),
        opencl_version=dev.version.strip(),
        device_type=_type_name(dev.type),
        compute_units=dev.max_compute_units, max_clock_hz=dev.max_clock_frequency * 1e6,
        local_mem_bytes=dev.local_mem_size, max_work_group_size=dev.max_work_group_size,
        global_mem_bytes=dev.global_mem_size, global_cache_bytes=dev.global_mem_cache_size,
        global_cacheline_bytes=dev.global_mem_cacheline_size,
        constant_mem_bytes=dev.max_constant_buffer_size, max_alloc_bytes=dev.max_mem_alloc_size,
        timer_resolution_s=resolution,
        warp_size=_nv(dev, _NV_WARP_SIZE) if nv else None, compute_capability=cc,
        registers_per_block=_nv(dev, _NV_REGS_PER_BLOCK) if nv else None,
        fp64=bool(dev.double_fp_config) if hasattr(dev, "double_fp_config") else False,
        extensions=exts,
        platform_version=platform.version.strip(),
        library=platform_library(platform),
        image_support=bool(dev.image_support),
        image2d_max_width=int(dev.image2d_max_width) if dev.image_support else 0,
        image2d_max_height=int(dev.image2d_max_height) if dev.image_support else 0,
    )


def platform_library(platform: Any) -> str:
    """Path of the runtime library behind *platform* ("" when it cannot be told).

    An ICD platform handle points to its dispatch table, whose entries are the runtime's own
    functions; ``dladdr`` on ``clGetPlatformInfo`` names the library that holds it.
    """
    import ctypes

    class _DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]

    try:
        libc = ctypes.CDLL(None)
        dladdr = libc.dladdr
        dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
        dladdr.restype = ctypes.c_int
        table = ctypes.c_void_p.from_address(platform.int_ptr).value
        if not table:
            return ""
        get_platform_info = ctypes.c_void_p.from_address(table + ctypes.sizeof(ctypes.c_void_p))
        info = _DlInfo()
        if not get_platform_info.value or not dladdr(get_platform_info.value, ctypes.byref(info)):
            return ""
        return os.path.realpath(info.dli_fname.decode()) if info.dli_fname else ""
    except (AttributeError, OSError, ValueError):
        return ""


def _all() -> list[tuple[Any, Any]]:
    # NVIDIA's driver serves a source it compiled before from its own cache without running
    # ptxas, and then the build log states no registers or spills (which the model reads): off
    # before the driver loads. gencl keeps its own binaries and their logs (measure._build).
    os.environ.setdefault("CUDA_CACHE_DISABLE", "1")
    import pyopencl as cl

    try:
        platforms = cl.get_platforms()
    except cl.Error:
        return []
    return [(p, d) for p in platforms for d in p.get_devices()]


def list_devices() -> list[DeviceInfo]:
    """Every OpenCL device, indexed in platform order."""
    return [_describe(i, p, d) for i, (p, d) in enumerate(_all())]


# {{{ health and the default

#: The default among usable devices, best first: Debian's PoCL compiles for any x86-64 CPU
#: (distro LLVM with CPU variants), Intel's CPU runtime from PyPI runs on Intel and AMD CPUs
#: without root, PyPI's PoCL 3.0 (LLVM 14) cannot compile for CPUs newer than LLVM 14 knows;
#: then any other device (GPUs), and the Oclgrind simulator only when nothing else works.
DEFAULT_PREFERENCE = ("pocl-system", "intel-cpu", "pocl-pypi", "pocl-other", "other", "oclgrind")


def _kind(platform: str, name: str, device_type: str, library: str) -> str:
    """The ``DEFAULT_PREFERENCE`` entry a device falls under."""
    if _is_pocl(platform):
        origin = library_source(library)
        return "pocl-pypi" if origin == "pypi" else "pocl-other" if not origin else "pocl-system"
    slug = device_slug(platform, name, device_type, library)
    return slug if slug in ("intel-cpu", "oclgrind") else "other"


def preference(info: DeviceInfo) -> int:
    """Rank of *info* in ``DEFAULT_PREFERENCE`` (lower is preferred)."""
    return DEFAULT_PREFERENCE.index(_kind(info.platform, info.name, info.device_type,
                                          info.library))


def fix_for(device: DeviceInfo | Mapping[str, Any]) -> str:
    """What to try when *device* (DeviceInfo or its JSON) cannot build or run kernels: any
    compile setting in the environment, and the CPU runtimes other than this one."""
    from gencl.device._health import CPU_RUNTIMES, compile_env

    get = device.get if isinstance(device, Mapping) else \
        lambda key, default="": getattr(device, key, default)
    env = [f"{k}={v}" for k, v in compile_env().items() if k != "OCL_ICD_VENDORS"]
    fixes = [f"check the environment ({', '.join(env)})"] if env else []
    if str(get("device_type", "")).upper() == "CPU":
        kind = _kind(*(str(get(k, "")) for k in ("platform", "name", "device_type", "library")))
        fixes.append(" or ".join(how for other, how in CPU_RUNTIMES if other != kind))
    else:
        fixes.append("choose another device (gencl devices)")
    return "; ".join(fixes)


def device_health(info: DeviceInfo, cl_device: Any = None) -> Any:
    """DeviceHealth of *info* (probed once per device, driver and compile environment)."""
    import dataclasses

    from gencl.device._health import cached_probe, probe_key

    if cl_device is None:
        pairs = _all()
        cl_device = pairs[info.index][1]
    key = probe_key(info.platform, info.platform_version, info.name, info.driver, info.library)
    health = cached_probe(cl_device, key)
    return health if health.usable else dataclasses.replace(
        health, fix=fix_for(info))


def _unusable_error(info: DeviceInfo, health: Any, selector: Any) -> DeviceError:
    return DeviceError(f"--device {selector}: {info.name} ({info.slug}) is not usable: "
                       f"{health.reason}; fix: {health.fix}")


def default_device_index(devices: list[DeviceInfo], health: Any = None) -> int:
    """The usable device ranked best by ``DEFAULT_PREFERENCE`` (ties: platform order).

    *health* maps a device index to its DeviceHealth; devices missing from it are probed here,
    best-ranked first, and probing stops at the first usable one.
    """
    if not devices:
        raise DeviceError("no OpenCL device found: " + _NO_DEVICE_FIX)
    known = dict(health or {})
    pairs = None
    for info in sorted(devices, key=lambda d: (preference(d), d.index)):
        if info.index not in known:
            pairs = pairs or _all()
            known[info.index] = device_health(info, pairs[info.index][1])
        if known[info.index].usable:
            return info.index
    reasons = "; ".join(f"{d.slug}: {known[d.index].reason}" for d in devices)
    raise DeviceError(f"no usable OpenCL device ({reasons}); fix: {_NO_DEVICE_FIX}")


_NO_DEVICE_FIX = ("install Debian's PoCL (apt-get install pocl-opencl-icd) or Intel's CPU "
                  "runtime (pip install 'gencl[intel]')")


def _matches(infos: list[DeviceInfo], selector: str) -> list[DeviceInfo]:
    """Devices a name selector picks: slug matches first (``intel`` is Intel's runtime, not a
    PoCL device on an Intel CPU), else name or platform substrings."""
    needle = selector.lower()
    for test in (lambda i: i.slug == needle, lambda i: needle in i.slug,
                 lambda i: needle in i.name.lower() or needle in i.platform.lower()):
        hits = [i for i in infos if test(i)]
        if hits:
            return hits
    return []


def select_device(selector: str | int | None = None) -> tuple[Any, DeviceInfo]:
    """Pick a device by index, or by a case-insensitive substring of slug, name or platform.

    ``None`` (or ``$GENCL_DEVICE``) picks the default: the best usable device. A selector that
    names only unusable devices is a DeviceError with the reason and the fix. Among several
    matches the usable one ranked best is taken. Returns (pyopencl device, DeviceInfo).
    """
    if selector is None:
        selector = os.environ.get("GENCL_DEVICE")
    pairs = _all()
    infos = [_describe(i, p, d) for i, (p, d) in enumerate(pairs)]
    if not infos:
        raise DeviceError("no OpenCL device found: " + _NO_DEVICE_FIX)
    if selector is None or selector == "":
        idx = default_device_index(infos)
        return pairs[idx][1], infos[idx]
    if isinstance(selector, int) or str(selector).isdigit():
        idx = int(selector)
        if not 0 <= idx < len(infos):
            raise DeviceError(f"--device {idx}: there are {len(infos)} devices (gencl devices)")
        hits = [infos[idx]]
    else:
        hits = _matches(infos, str(selector))
        if not hits:
            raise DeviceError(f"--device {selector!r}: no device matches (gencl devices)")
    first_bad: tuple[DeviceInfo, Any] | None = None
    for info in sorted(hits, key=lambda d: (preference(d), d.index)):
        health = device_health(info, pairs[info.index][1])
        if health.usable:
            return pairs[info.index][1], info
        first_bad = first_bad or (info, health)
    assert first_bad is not None  # hits is not empty
    raise _unusable_error(first_bad[0], first_bad[1], selector)

# }}}
