"""The clock a device actually ran at during a measurement, where the platform tells."""

from __future__ import annotations

import contextlib
import shutil
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path


def _nvidia_sm_clock_mhz() -> float | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm",
                              "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=5).stdout
        return float(out.split()[0])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return None


#: Where Linux's cpufreq driver lives; without it /proc/cpuinfo's "cpu MHz" is not the clock.
CPUFREQ = Path("/sys/devices/system/cpu/cpu0/cpufreq")


def cpu_clock_observable(cpufreq: Path = CPUFREQ) -> bool:
    """Whether /proc/cpuinfo's "cpu MHz" follows the running clock: only with a cpufreq driver.

    Without one (a virtual machine) it is the TSC rate fixed at boot while the cores boost
    above it: PoCL's 8-wide FMA chains on a 2-core AMD EPYC VM that shows 2445 MHz ran at
    1.09× CUs × lanes × 2 × 2445 MHz (2026-11-29).
    """
    return cpufreq.is_dir()


def _cpu_clock_mhz(cpuinfo: Path = Path("/proc/cpuinfo"),
                   cpufreq: Path = CPUFREQ) -> float | None:
    if not cpu_clock_observable(cpufreq):
        return None
    try:
        mhz = [float(line.split(":")[1]) for line in cpuinfo.read_text().splitlines()
               if line.startswith("cpu MHz")]
    except (OSError, ValueError):
        return None
    return statistics.fmean(mhz) if mhz else None


class _Sampler:
    """One background thread per probe that samples the clock every *interval_s*, with times.

    Shared by every ``ClockMonitor`` of the process, so leaving a monitor never waits for a
    probe in flight: a monitor per timed variant used to join its thread, and with it the
    ``nvidia-smi`` call under way, on every variant (9 s of a full H200 profile). The thread
    ends once no monitor has been open for ``IDLE_S``.
    """

    IDLE_S = 2.0

    def __init__(self, probe: Callable[[], float | None], interval_s: float) -> None:
        self._probe, self._interval = probe, interval_s
        self._lock = threading.Lock()
        self._samples: list[tuple[float, float]] = []  # (monotonic time, MHz)
        self._open = 0
        self._last_close = 0.0
        self._thread: threading.Thread | None = None

    def open(self) -> float:
        with self._lock:
            self._open += 1
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="gencl-clock")
                self._thread.start()
        return time.monotonic()

    def close(self) -> float:
        with self._lock:
            self._open -= 1
            self._last_close = time.monotonic()
        return self._last_close

    def _run(self) -> None:
        while True:
            with _PROBING:  # not while the clock is paused (``clock_paused``)
                value = None if _PAUSES else self._probe()
            with self._lock:
                if value:
                    self._samples.append((time.monotonic(), value))
                    del self._samples[:-4096]  # a bounded history: hours of samples
                if not self._open and time.monotonic() - self._last_close > self.IDLE_S:
                    self._thread = None
                    return
            time.sleep(self._interval)

    def between(self, start: float, end: float) -> list[float]:
        """The samples taken from *start* to *end*, and the last one before *start* (the clock
        when the block began: a block shorter than one probe still gets its clock)."""
        with self._lock:
            inside = [mhz for t, mhz in self._samples if start <= t <= end]
            before = [mhz for t, mhz in self._samples if t < start][-1:]
        return before + inside


_SAMPLERS: dict[Callable[[], float | None], _Sampler] = {}
_PROBING = threading.Lock()  # held by a probe in flight
_PAUSES: list[None] = []  # one entry per open ``clock_paused`` block


@contextlib.contextmanager
def clock_paused() -> Iterator[None]:
    """No clock probe runs inside this block (one in flight is waited for first).

    For measurements of the host–driver path: an ``nvidia-smi`` call every 0.25 s took pageable
    device→host copies on the H200 host from 16.4 to 13.0 GB/s and host→device from 8.4 to
    7.4 (2026-11-22, 256 MiB, medians of 12), and would slow a peer tool run beside gencl too.
    """
    with _PROBING:
        _PAUSES.append(None)
    try:
        yield
    finally:
        _PAUSES.pop()


class ClockMonitor:
    """The clock while a block runs: ``nvidia-smi`` on NVIDIA GPUs, /proc/cpuinfo for a CPU
    device with a cpufreq driver, sampled in the background (every *interval_s*) by one thread
    shared by all monitors.

    ``median_hz`` is None where neither applies (then figures in cycles use the device's
    reported maximum clock and say so), or before the first sample of the process arrived.
    """

    def __init__(self, is_gpu: bool, interval_s: float = 0.25) -> None:
        probe = _nvidia_sm_clock_mhz if is_gpu and shutil.which("nvidia-smi") else (
            None if is_gpu else _cpu_clock_mhz)
        self._sampler = None if probe is None else _SAMPLERS.get(probe) or \
            _SAMPLERS.setdefault(probe, _Sampler(probe, interval_s))
        self._span: tuple[float, float | None] | None = None

    def __enter__(self) -> ClockMonitor:
        if self._sampler is not None:
            self._span = (self._sampler.open(), None)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._sampler is not None and self._span is not None:
            self._span = (self._span[0], self._sampler.close())

    @property
    def samples_hz(self) -> list[float]:
        if self._sampler is None or self._span is None:
            return []
        start, end = self._span
        return [mhz * 1e6 for mhz in self._sampler.between(start, end or time.monotonic())]

    @property
    def median_hz(self) -> float | None:
        samples = self.samples_hz
        return statistics.median(samples) if samples else None
