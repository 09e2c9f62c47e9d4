"""Build OpenCL programs with a cache keyed by source, options, device and driver."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
import warnings
from dataclasses import dataclass
from typing import Any

from gencl.generate import Variant
from gencl.generate._cache import cache_dir
from gencl.measure._sass import sass_counts

#: NVIDIA's build option that prints ptxas's summary (registers, spills) into the build log
NV_VERBOSE = "-cl-nv-verbose"


@dataclass
class Built:
    """A variant built for one device: the kernel, its build log and binary (PTX on NVIDIA), and
    the load rounds of its SASS where the CUDA toolkit is here (``gencl.measure._sass``)."""

    variant: Variant
    program: Any
    kernel: Any
    build_log: str
    binary: bytes
    build_s: float
    from_cache: bool
    sass: dict[str, Any] | None = None

    @property
    def binary_hash(self) -> str:
        return hashlib.sha256(self.binary).hexdigest()[:16] if self.binary else ""


class BuildFailure(Exception):
    def __init__(self, status: str, reason: str, log: str = "") -> None:
        super().__init__(reason)
        self.status, self.reason, self.log = status, reason, log


def build_key(source: str, options: str, device_name: str, driver: str) -> str:
    return hashlib.sha256("\0".join((source, options, device_name, driver)).encode()).hexdigest()


def build_program(ctx: Any, device: Any, variant: Variant, options: str,
                  memo: dict[str, Built]) -> Built:
    """Build *variant* on *device*: in-process memo, then the binary cache on disk, then source."""
    import pyopencl as cl

    key = build_key(variant.source, options, device.name, device.driver_version)
    if key in memo:
        # same binary, but this variant's launch geometry and arguments
        return dataclasses.replace(memo[key], variant=variant)
    root = cache_dir()
    path = root / "binaries" / f"{key}.bin" if root else None
    start = time.perf_counter()
    program, from_cache = None, False
    log_path = path.with_suffix(".log") if path is not None else None
    if path is not None and path.is_file():
        try:
            program = cl.Program(ctx, [device], [path.read_bytes()]).build(options=options)
            from_cache = True
        except cl.Error:
            program = None  # stale binary (driver changed under the same version string)
    if program is None:
        try:
            with warnings.catch_warnings():  # the build log is kept in the Measurement instead
                warnings.simplefilter("ignore", cl.CompilerWarning)
                program = cl.Program(ctx, variant.source).build(options=options,
                                                                devices=[device])
        except cl.RuntimeError as exc:
            raise BuildFailure("build_error", _first_error(str(exc)), str(exc)) from None
    build_s = time.perf_counter() - start
    log = program.get_build_info(device, cl.program_build_info.LOG) or ""
    if from_cache and log_path is not None and log_path.is_file():
        # a binary reload prints no compiler summary (registers, spills): the source build's log
        log = log_path.read_text()
    binary = program.get_info(cl.program_info.BINARIES)[0] or b""
    # counted once a binary (ptxas and cuobjdump take 0.1-0.3 s), kept beside it like its log
    sass_path = path.with_suffix(".sass.json") if path is not None else None
    if from_cache and sass_path is not None and sass_path.is_file():
        sass = json.loads(sass_path.read_text())
    else:
        sass = sass_counts(binary)
    if path is not None and binary and not from_cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        files = [(path.with_suffix(".log"), log.encode()), (path, binary)]
        if sass is not None and sass_path is not None:
            files.insert(0, (sass_path, json.dumps(sass).encode()))
        for target, data in files:
            tmp = target.with_suffix(f".{time.time_ns()}.tmp")
            tmp.write_bytes(data)
            tmp.replace(target)
    try:
        kernel = getattr(program, variant.kernel_name)
    except (AttributeError, cl.Error) as exc:
        raise BuildFailure("build_error", f"no kernel {variant.kernel_name}: {exc}") from None
    built = Built(variant, program, kernel, log.strip(), binary, build_s, from_cache, sass)
    memo[key] = built
    return built


def _first_error(log: str) -> str:
    """The build log's line that says what went wrong (``error: unknown target CPU 'generic'``),
    not pyopencl's wrapping (``clBuildProgram failed: BUILD_PROGRAM_FAILURE - …``)."""
    from gencl.device._health import build_failure_reason

    return build_failure_reason(log)[:300] if log.strip() else "build failed"
