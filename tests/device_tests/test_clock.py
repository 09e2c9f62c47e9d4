"""The clock seen while a block runs: sampled in the background, never waited for."""

from __future__ import annotations

import time

from gencl.device import ClockMonitor
from gencl.device._clock import _cpu_clock_mhz, _Sampler, cpu_clock_observable


def _wait_until(condition, timeout_s: float = 10.0) -> bool:
    """Poll *condition*: a loaded CI worker may start the sampler's thread late."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_leaving_a_block_does_not_wait_for_a_probe_in_flight():
    calls = []

    def slow_probe() -> float:  # nvidia-smi took 20 ms to 0.1 s a call on the H200 host
        calls.append(time.monotonic())
        time.sleep(0.3)
        return 1980.0

    sampler = _Sampler(slow_probe, 0.01)
    start = sampler.open()
    time.sleep(0.05)
    t0 = time.perf_counter()
    end = sampler.close()
    assert time.perf_counter() - t0 < 0.05
    assert sampler.between(start, end) == []  # the first probe had not answered yet
    assert _wait_until(lambda: sampler.between(0.0, time.monotonic()))  # the first answered
    later = sampler.open()
    assert _wait_until(lambda: len(calls) >= 2)
    # the block sees the clock of the sample before it began and those taken inside it
    assert sampler.between(later, sampler.close()) and set(sampler.between(later, later)) == \
        {1980.0}
    assert len(calls) >= 2


def test_cpu_blocks_see_the_clock_of_proc_cpuinfo_where_cpufreq_drives_it():
    with ClockMonitor(is_gpu=False) as first:
        time.sleep(0.3)
    with ClockMonitor(is_gpu=False) as short:  # shorter than one probe: the last sample before
        pass
    if cpu_clock_observable():
        assert first.median_hz is not None and first.median_hz > 1e8
        assert short.median_hz is not None
    else:  # a VM's /proc/cpuinfo shows the boot-time TSC rate: no clock seen, none made up
        assert first.median_hz is None and short.median_hz is None


def test_cpu_clock_is_read_only_with_a_cpufreq_driver(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\ncpu MHz\t\t: 2400.000\n\n"
                       "processor\t: 1\ncpu MHz\t\t: 3600.000\n")
    cpufreq = tmp_path / "cpufreq"
    assert _cpu_clock_mhz(cpuinfo, cpufreq) is None
    cpufreq.mkdir()
    assert _cpu_clock_mhz(cpuinfo, cpufreq) == 3000.0


def test_no_probe_runs_while_the_clock_is_paused():
    from gencl.device import clock_paused

    calls = []

    def probe() -> float:
        calls.append(time.monotonic())
        return 1000.0

    sampler = _Sampler(probe, 0.01)
    start = sampler.open()
    assert _wait_until(lambda: len(calls) >= 2)
    with clock_paused():
        paused_at = time.monotonic()
        time.sleep(0.2)
        resumed_at = time.monotonic()
    assert _wait_until(lambda: any(t > resumed_at for t in calls))
    sampler.close()
    assert not [t for t in calls if paused_at <= t <= resumed_at]
    assert any(t < paused_at for t in calls) and start < paused_at
