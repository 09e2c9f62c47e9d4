"""Device limits a space is cut to, when generating for a device that is not attached here."""

from __future__ import annotations

from dataclasses import dataclass

from gencl.errors import GenclError


@dataclass(frozen=True)
class DeviceLimits:
    """The fields of DeviceInfo a spec's constraints read (a stand-in for a remote device)."""

    name: str
    device_type: str
    max_work_group_size: int
    local_mem_bytes: int
    compute_capability: str | None = None


#: NVIDIA's OpenCL on H100/H200: 1024 work items, 48 KiB of local memory per work-group,
#: compute capability 9.0.
KNOWN = {"nvidia": DeviceLimits("NVIDIA H200 (limits)", "GPU", 1024, 48 * 1024, "9.0")}


def limits_for(name: str) -> DeviceLimits:
    try:
        return KNOWN[name]
    except KeyError:
        raise GenclError(f"--limits {name}: known are {', '.join(KNOWN)}") from None
