"""OpenCL platforms and devices: what seed 000 Table I needs, as far as OpenCL exposes it."""

from __future__ import annotations

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

    @property
    def slug(self) -> str:
        """Folder name under bench_results/: ``pocl-cpu``, ``nvidia-h200``, …"""
        return device_slug(self.platform, self.name, self.device_type)

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
        from dataclasses import fields

        d = {f.name: data[f.name] for f in fields(cls)}
        d["extensions"] = tuple(d["extensions"])
        return cls(**d)


def device_slug(platform: str, name: str, device_type: str) -> str:
    if "portable computing language" in platform.lower() or platform.lower().startswith("pocl"):
        return f"pocl-{device_type.lower()}"
    if "oclgrind" in platform.lower():
        return "oclgrind"
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
    )


def _all() -> list[tuple[Any, Any]]:
    import pyopencl as cl

    try:
        platforms = cl.get_platforms()
    except cl.Error:
        return []
    return [(p, d) for p in platforms for d in p.get_devices()]


def list_devices() -> list[DeviceInfo]:
    """Every OpenCL device, indexed in platform order."""
    return [_describe(i, p, d) for i, (p, d) in enumerate(_all())]


def _is_default(info: DeviceInfo) -> bool:
    return info.slug == "pocl-cpu"


def default_device_index(devices: list[DeviceInfo]) -> int:
    """PoCL's CPU device when present (the embedded default), else the first non-simulator."""
    for d in devices:
        if _is_default(d):
            return d.index
    for d in devices:
        if d.slug != "oclgrind":
            return d.index
    if devices:
        return devices[0].index
    raise DeviceError("no OpenCL device found (is pocl-binary-distribution installed?)")


def select_device(selector: str | int | None = None) -> tuple[Any, DeviceInfo]:
    """Pick a device by index, or by a case-insensitive substring of name, platform or slug.

    ``None`` (or ``$GENCL_DEVICE``) picks the default. Returns (pyopencl device, DeviceInfo).
    """
    import os

    if selector is None:
        selector = os.environ.get("GENCL_DEVICE")
    pairs = _all()
    infos = [_describe(i, p, d) for i, (p, d) in enumerate(pairs)]
    if not infos:
        raise DeviceError("no OpenCL device found (is pocl-binary-distribution installed?)")
    if selector is None or selector == "":
        idx = default_device_index(infos)
    elif isinstance(selector, int) or str(selector).isdigit():
        idx = int(selector)
        if not 0 <= idx < len(infos):
            raise DeviceError(f"--device {idx}: there are {len(infos)} devices (gencl devices)")
    else:
        needle = str(selector).lower()
        hits = [i for i in infos if needle in i.name.lower() or needle in i.platform.lower()
                or needle in i.slug]
        if not hits:
            raise DeviceError(f"--device {selector!r}: no device matches (gencl devices)")
        idx = hits[0].index
    return pairs[idx][1], infos[idx]
