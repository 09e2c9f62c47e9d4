"""The measurement engine: build, bind data, verify once against numpy, time with events.

One small interface (``Engine``) with an OpenCL implementation here and a replay implementation
(``gencl.tune``) that answers from recorded results. Only ``OpenCLEngine.time`` touches events:
warm-up → one-launch probe → samples of calibrated back-to-back launches (clpeak's scheme).
"""

from __future__ import annotations

import abc
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gencl.device import ClockMonitor, DeviceInfo, select_device
from gencl.generate import Variant
from gencl.generate.knobs import PAD_ARG
from gencl.measure._build import NV_VERBOSE, Built, BuildFailure, build_program
from gencl.measure._stats import launches_per_sample, summarize


class Timeout(Exception):
    pass


@dataclass
class Bound:
    """Kernel arguments on the device: one argument list per rotation copy."""

    arg_sets: list[list[Any]]
    outputs: dict[str, Any]  # name -> cl.Buffer of the first copy
    output_info: dict[str, tuple[np.dtype, int]]
    global_size: tuple[int, ...]
    local_size: tuple[int, ...]
    dynamic_local_bytes: int
    buffers: list[Any] = field(default_factory=list)

    def release(self) -> None:
        for buf in self.buffers:
            buf.release()
        self.buffers.clear()


def evaluate(expr: str, env: Mapping[str, Any]) -> int:
    """Evaluate a loopy size expression (pymbolic text) with the sizes."""
    import pymbolic

    value = pymbolic.evaluate(pymbolic.parse(expr), dict(env))
    return int(value)


#: OpenCL image channel order by channel count, channel type by the channel's numpy type
IMAGE_ORDERS = {1: "R", 2: "RG", 4: "RGBA"}
IMAGE_TYPES = {"float32": "FLOAT", "float16": "HALF_FLOAT", "int32": "SIGNED_INT32",
               "uint32": "UNSIGNED_INT32", "int16": "SIGNED_INT16", "uint16": "UNSIGNED_INT16",
               "int8": "SIGNED_INT8", "uint8": "UNSIGNED_INT8"}


def device_array(queue: Any, arg: Any, host: np.ndarray, env: Mapping[str, Any]) -> Any:
    """The device memory of a global or image argument (``ArgInfo``), filled with *host*.

    A buffer for ``global``, allocated and then written by *queue* (blocking): NVIDIA's OpenCL
    fills a ``COPY_HOST_PTR`` buffer at 1.1 GiB/s, an ``enqueue_copy`` at 7 GiB/s (H200 host,
    512 MiB–1 GiB; the profile uploads tens of GiB). For ``image`` a read-only image of the
    argument's axes (height, width as loopy orders them; OpenCL's shape is width first) whose
    format follows its channel count and type (a device that lacks the format refuses it here:
    the variant's failure).
    """
    import pyopencl as cl

    mf = cl.mem_flags
    ctx = queue.context
    if arg.kind != "image":
        buf = cl.Buffer(ctx, mf.READ_WRITE, max(host.nbytes, 1))
        if host.nbytes:
            cl.enqueue_copy(queue, buf, host, is_blocking=True)
        return buf
    dims = [evaluate(e, env) for e in arg.shape[:-1]]
    fmt = cl.ImageFormat(getattr(cl.channel_order, IMAGE_ORDERS[int(arg.shape[-1])]),
                         getattr(cl.channel_type, IMAGE_TYPES[arg.dtype]))
    return cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt,
                           shape=tuple(reversed(dims)), hostbuf=host)


def check_assumptions(variant: Variant, sizes: Mapping[str, int]) -> str | None:
    """Why *sizes* are outside the sizes the code was generated for, or None."""
    if not variant.assumptions:
        return None
    import islpy as isl

    aset = isl.BasicSet(variant.assumptions)
    for name, (dim_type, idx) in aset.get_var_dict().items():
        if dim_type != isl.dim_type.param:
            continue
        if name not in sizes:
            return f"size {name} not given"
        aset = aset.fix_val(isl.dim_type.param, idx, int(sizes[name]))
    if aset.is_empty():
        return f"sizes {dict(sizes)} violate the variant's assumptions {variant.assumptions}"
    return None


def poison(dtype: np.dtype, count: int) -> np.ndarray:
    """Output fill that no correct kernel leaves behind: NaN for floats, a pattern for ints."""
    if np.issubdtype(dtype, np.floating):
        return np.full(count, np.nan, dtype=dtype)
    return np.full(count, np.iinfo(dtype).max // 3 + 7, dtype=dtype)


def compare(got: np.ndarray, expected: np.ndarray, rtol: float) -> float:
    """Largest error of *got*, scaled so that ``<= 1`` passes at tolerance *rtol*.

    Scaled per element by ``rtol * max(|expected|, 1)`` (a relative error that does not blow up near
    zero); integers must match exactly; any NaN or poison that survives fails.
    """
    got = got.astype(np.float64) if np.issubdtype(got.dtype, np.floating) else got
    if np.issubdtype(expected.dtype, np.integer) or np.issubdtype(expected.dtype, np.bool_):
        return 0.0 if np.array_equal(got, expected) else math.inf
    exp = expected.astype(np.float64)
    if rtol <= 0:
        return 0.0 if np.array_equal(got, exp) else math.inf
    if not np.array_equal(np.isnan(got), np.isnan(exp)):  # poison left, or written where not
        return math.inf
    # NaN where the reference expects "left untouched" (poison kept) matches by the check above
    keep = ~np.isnan(exp)
    exp, got = exp[keep], got[keep]
    scale = rtol * np.maximum(np.abs(exp), 1.0)
    diff = np.abs(got - exp) / scale
    return float(diff.max()) if diff.size else 0.0


class Engine(abc.ABC):
    """Builds and times variants on one device. Implementations must not lose a failure."""

    info: DeviceInfo

    @abc.abstractmethod
    def build(self, variant: Variant) -> Built:
        """Build *variant*; raise ``BuildFailure`` (status, reason) when it cannot be built."""

    @abc.abstractmethod
    def time(self, built: Built, bound: Bound, *, min_time_s: float) -> dict[str, Any]:
        """Time launches; return samples_s, launches_per_sample, attempts, wide_spread, clock."""


class OpenCLEngine(Engine):
    """The real engine on an OpenCL device (PoCL's CPU device by default).

    Args:
        device: index or name substring (see ``gencl devices``); None → default.
        repeats: samples per measurement (seed 000 uses 25).
        min_sample_s: shortest sample; launches are batched so a sample is well above the timer
            resolution (NVIDIA OpenCL reports 1 µs).
        max_rel_spread: re-measure when 1.96 σ exceeds this fraction of the median.
        max_attempts: measurements taken before giving up on a tight spread (flagged, not hidden).
        stop_rel_ci: stop sampling early once the 95 % interval of the median is within this
            fraction of it (after ``min_repeats`` samples); None takes all *repeats*. A 40 ms
            walk whose samples agree to 0.1 % spends 1 s learning nothing more after the fifth;
            the interval is the median's (σ/√n), not one sample's (1.96 σ, ``ci95``): one
            early sample 1.5 % off kept σ above the bound for all 25 samples of every long
            walk on the H200.
        min_repeats: the fewest samples an early stop keeps.
        timeout_s: a launch (or batch) not finished by then is recorded as ``timeout``.
        build_options: passed to every build (on NVIDIA always with ``-cl-nv-verbose``).
    """

    def __init__(self, device: str | int | None = None, *, repeats: int = 25,
                 min_sample_s: float | None = None, max_rel_spread: float = 0.05,
                 max_attempts: int = 3, timeout_s: float = 60.0, build_options: str = "",
                 stop_rel_ci: float | None = None, min_repeats: int = 5) -> None:
        import pyopencl as cl

        self.cl_device, self.info = select_device(device)
        self.ctx = cl.Context([self.cl_device])
        self.queue = cl.CommandQueue(
            self.ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
        self.repeats = repeats
        self.min_sample_s = min_sample_s or max(50 * self.info.timer_resolution_s, 2e-4)
        self.max_rel_spread = max_rel_spread
        self.max_attempts = max_attempts
        self.timeout_s = timeout_s
        # NVIDIA's compiler states each kernel's registers and spills only when asked; the model
        # reads them from the build log kept in every Measurement (gencl.model._registers)
        if self.info.is_nvidia and NV_VERBOSE not in build_options:
            build_options = f"{build_options} {NV_VERBOSE}".strip()
        self.build_options = build_options
        self.stop_rel_ci = stop_rel_ci
        self.min_repeats = min_repeats
        self._built: dict[str, Built] = {}

    def reset(self) -> None:
        """A fresh queue after a timeout or device error (the old one may hold a stuck launch)."""
        import pyopencl as cl

        self.queue = cl.CommandQueue(
            self.ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)

    # {{{ build and bind

    def build(self, variant: Variant) -> Built:
        built = build_program(self.ctx, self.cl_device, variant, self.build_options, self._built)
        wg = int(np.prod([int(s) if str(s).isdigit() else 1 for s in variant.local_size]))
        # the device limit, not CL_KERNEL_WORK_GROUP_SIZE: NVIDIA's OpenCL reports 256 for
        # kernels that launch fine with 1024 (32 registers, .reqntid 1024); the launch decides
        if wg > self.info.max_work_group_size:
            raise BuildFailure("out_of_resources", f"work-group of {wg} items > device limit "
                               f"{self.info.max_work_group_size}")
        return built

    def prebuild(self, variants: Sequence[Variant], *, workers: int | None = None) -> int:
        """Build many variants at once in threads (the OpenCL compiler runs without the GIL).

        Results land in the build memo, so the ``build`` that measures each variant finds them;
        failures are left for that ``build`` to record. Returns the number built here.
        """
        import os
        from concurrent.futures import ThreadPoolExecutor

        def one(variant: Variant) -> bool:
            try:
                build_program(self.ctx, self.cl_device, variant, self.build_options, self._built)
                return True
            except Exception:  # noqa: BLE001 -- recorded by the measuring build
                return False

        workers = workers or min(16, os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return sum(pool.map(one, variants))

    def bind(self, built: Built, sizes: Mapping[str, int], values: Mapping[str, Any], *,
             copies: int = 1, kept: dict[tuple, Any] | None = None) -> Bound:
        """Create device buffers: inputs copied, outputs poisoned, scalars and local sizes set;
        image arguments become read-only images of their input.

        *kept* (timing only): buffers of earlier binds of the same *values*, by (argument, bytes,
        copy, role); read-only inputs and write-only outputs found there are bound again instead
        of made, and new ones are added to it (its owner releases them, not ``Bound.release``).
        Arguments both read and written are always made fresh: an earlier launch changed them.
        """
        import pyopencl as cl

        variant = built.variant
        env = {**{k: v for k, v in values.items() if np.isscalar(v)}, **sizes}
        arg_sets: list[list[Any]] = [[] for _ in range(copies)]
        outputs, output_info, buffers, local_bytes = {}, {}, [], 0
        for arg in variant.args:
            dtype = np.dtype(arg.dtype)
            if arg.kind == "scalar":
                value = values.get(arg.name, sizes.get(arg.name))
                if value is None:
                    raise KeyError(f"no value for kernel argument {arg.name}")
                for s in arg_sets:
                    s.append(dtype.type(value))
                continue
            count = int(np.prod([evaluate(e, env) for e in arg.shape])) if arg.shape else 1
            if arg.kind == "local":
                nbytes = int(sizes.get(f"{arg.name}_nbytes",
                                       sizes.get("local_pad_bytes", 1) if arg.name == PAD_ARG
                                       else count * dtype.itemsize))
                local_bytes += nbytes
                for s in arg_sets:
                    s.append(cl.LocalMemory(max(nbytes, 1)))
                continue
            nbytes = count * dtype.itemsize
            host = values.get(arg.name)
            if host is not None:
                host = np.ascontiguousarray(host)
                if host.nbytes != nbytes:
                    raise ValueError(f"input {arg.name}: {host.nbytes} bytes given, kernel "
                                     f"expects {nbytes}")
            elif not arg.is_output:
                raise KeyError(f"no input data for kernel argument {arg.name}")
            shared = kept if kept is not None and arg.is_input != arg.is_output else None
            for k, s in enumerate(arg_sets):
                # rotation copies of outputs share one buffer: only inputs can sit in a cache
                if k > 0 and arg.is_output and not arg.is_input:
                    s.append(arg_sets[0][len(s)])
                    continue
                key = (arg.name, nbytes, k, arg.is_output)
                if shared is not None and key in shared:
                    s.append(shared[key])
                    continue
                if host is None:  # made only when a buffer is: 1 GiB of poison costs 0.3 s
                    host = poison(dtype, count)
                buf = device_array(self.queue, arg, host, env)
                if shared is not None:
                    shared[key] = buf
                else:
                    buffers.append(buf)
                s.append(buf)
            if arg.is_output:
                outputs[arg.name] = arg_sets[0][len(arg_sets[0]) - 1]
                output_info[arg.name] = (dtype, count)
        gsize = tuple(evaluate(e, env) for e in variant.global_size)
        lsize = tuple(evaluate(e, env) for e in variant.local_size)
        return Bound(arg_sets, outputs, output_info, gsize, lsize, local_bytes, buffers)

    def check_resources(self, built: Built, bound: Bound) -> str | None:
        """Refuse launches that cannot fit the device's local memory (static + dynamic)."""
        import pyopencl as cl

        static = built.kernel.get_work_group_info(cl.kernel_work_group_info.LOCAL_MEM_SIZE,
                                                  self.cl_device)
        # NVIDIA reports 1 byte for a kernel with no __local memory at all
        static = static if static > 1 else 0
        total = static + bound.dynamic_local_bytes
        if total > self.info.local_mem_bytes:
            return f"local memory {total} B > device limit {self.info.local_mem_bytes} B"
        return None

    # }}}

    # {{{ launch and time

    def _launch(self, built: Built, bound: Bound, copy: int = 0):
        import pyopencl as cl

        kernel = built.kernel
        kernel.set_args(*bound.arg_sets[copy % len(bound.arg_sets)])
        return cl.enqueue_nd_range_kernel(self.queue, kernel, bound.global_size, bound.local_size)

    def _wait(self, event: Any, timeout_s: float | None = None) -> None:
        """Block until *event* completes; Timeout after *timeout_s*.

        The wait is clWaitForEvents in a helper thread, not a polling loop: Intel's CPU runtime
        runs a kernel on the host thread that waits as well as on its workers, and a host thread
        that polls (waking every 0.5 ms) left it one core of two — every kernel on it took twice
        as long (measured: an INT chain at 54 Gop/s polled, 102 blocked). A runaway kernel
        still times out: the helper stays blocked, the engine reports Timeout.
        """
        import threading

        import pyopencl as cl

        self.queue.flush()
        failure: list[BaseException] = []

        def wait() -> None:
            try:
                event.wait()
            except BaseException as exc:  # noqa: BLE001 -- re-raised on the caller's thread
                failure.append(exc)

        waiter = threading.Thread(target=wait, name="gencl-event-wait", daemon=True)
        waiter.start()
        waiter.join(timeout_s or self.timeout_s)
        if waiter.is_alive():
            raise Timeout(f"no result after {timeout_s or self.timeout_s:.3g} s")
        status = event.command_execution_status
        if failure or status < 0:
            raise RuntimeError(f"launch failed with status {status}"
                               + (f" ({failure[0]})" if failure else ""))
        if status != cl.command_execution_status.COMPLETE:
            raise RuntimeError(f"launch ended in status {status}")

    def run_once(self, built: Built, bound: Bound) -> float:
        """One launch; returns its device time in seconds (profiling events)."""
        event = self._launch(built, bound)
        self._wait(event)
        return (event.profile.end - event.profile.start) * 1e-9

    def read_outputs(self, bound: Bound) -> dict[str, np.ndarray]:
        import pyopencl as cl

        out = {}
        for name, buf in bound.outputs.items():
            dtype, count = bound.output_info[name]
            host = np.empty(count, dtype=dtype)
            cl.enqueue_copy(self.queue, host, buf)
            out[name] = host
        self.queue.finish()
        return out

    def sample(self, built: Built, bound: Bound, launches: int) -> float:
        """One sample: *launches* back-to-back launches, first START to last END, per launch."""
        events = [self._launch(built, bound, k) for k in range(launches)]
        self._wait(events[-1], self.timeout_s * max(1, launches))
        return (events[-1].profile.end - events[0].profile.start) * 1e-9 / launches

    def _samples(self, built: Built, bound: Bound, launches: int, repeats: int) -> list[float]:
        """Up to *repeats* samples; fewer (not under ``min_repeats``) once the median's 95 %
        interval is within ``stop_rel_ci`` of it, when the engine was given one."""
        samples: list[float] = []
        for _ in range(repeats):
            samples.append(self.sample(built, bound, launches))
            if self.stop_rel_ci is not None and len(samples) >= self.min_repeats and \
                    summarize(samples).median_relative_ci95 <= self.stop_rel_ci:
                break
        return samples

    def time(self, built: Built, bound: Bound, *, min_time_s: float | None = None,
             repeats: int | None = None) -> dict[str, Any]:
        min_sample = max(min_time_s or 0.0, self.min_sample_s)
        repeats = repeats or self.repeats
        with ClockMonitor(self.info.device_type.upper() != "CPU") as clock:
            for _ in range(2):  # warm-up: caches, clocks, lazy driver work
                self.run_once(built, bound)
            probe = max(self.run_once(built, bound), self.info.timer_resolution_s)
            launches = launches_per_sample(probe, min_sample_s=min_sample)
            best: list[float] | None = None
            attempt = 0
            for attempt in range(1, self.max_attempts + 1):  # noqa: B007 -- read after the loop
                samples = self._samples(built, bound, launches, repeats)
                if best is None or summarize(samples).relative_spread < \
                        summarize(best).relative_spread:
                    best = samples
                if summarize(best).relative_spread <= self.max_rel_spread:
                    break
                repeats *= 2  # re-measure with more samples when the spread is too wide
        assert best is not None
        return {"samples_s": tuple(best), "launches_per_sample": launches, "attempts": attempt,
                "wide_spread": summarize(best).relative_spread > self.max_rel_spread,
                "clock_hz": clock.median_hz}

    # }}}

    def rotation_copies(self, input_bytes: int) -> int:
        """Copies of the inputs needed so consecutive launches do not find them in the cache."""
        cache = max(self.info.global_cache_bytes, 1)
        if self.info.device_type.upper() != "GPU":  # the runtime's figure may be an L2 only
            from gencl.characterize._hardware import cpu_last_level_cache_bytes

            cache = max(cache, cpu_last_level_cache_bytes())
        if input_bytes <= 0 or input_bytes >= 4 * cache:
            return 1
        budget = self.info.global_mem_bytes // 4
        return max(1, min(16, math.ceil(4 * cache / input_bytes), budget // input_bytes))
