"""Device discovery, health and selection (the best usable CPU runtime is the default), and the
clock seen.

Importing this package registers pip-installed runtimes the ICD loader would not find (Intel's
CPU runtime: ``gencl.device._icd``); it must happen before pyopencl first lists platforms.
"""

from gencl.device._icd import register_pip_runtimes

register_pip_runtimes()

from gencl.device._clock import ClockMonitor, clock_paused  # noqa: E402 -- after the ICD setup
from gencl.device._health import DeviceHealth  # noqa: E402
from gencl.device._info import (  # noqa: E402
    DEFAULT_PREFERENCE, DeviceInfo, default_device_index, device_health, device_slug,
    list_devices, select_device, slug_aliases)

__all__ = ["DEFAULT_PREFERENCE", "ClockMonitor", "DeviceHealth", "DeviceInfo",
           "clock_paused", "default_device_index", "device_health", "device_slug", "list_devices",
           "select_device", "slug_aliases"]
