"""Device discovery and selection (PoCL's CPU device is the default), and the clock seen."""

from gencl.device._clock import ClockMonitor
from gencl.device._info import (
    DeviceInfo, default_device_index, device_slug, list_devices, select_device)

__all__ = ["ClockMonitor", "DeviceInfo", "default_device_index", "device_slug", "list_devices",
           "select_device"]
