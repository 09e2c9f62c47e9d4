"""What a peer is given, how its answer is checked, and how every declared peer is run."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gencl.errors import GenclError

#: samples per peer timing (seed 000's 25, as gencl's variants)
REPEATS = 25
#: shortest timed batch of back-to-back calls (CUDA events resolve ~0.5 µs)
MIN_BATCH_S = 2e-4


class PeerUnavailable(GenclError):
    """A peer cannot run here (no CUDA device, torch or cupy not installed): the reason is
    reported in place of its time, and the run goes on."""


class PeerWrong(GenclError):
    """A peer's answer disagrees with the spec's numpy reference: its time does not count."""


@dataclass
class PeerContext:
    """Everything a peer needs to run the spec's computation at the run's size.

    Attributes:
        spec: the kernel's BenchmarkSpec.
        point: the point the peers stand for (its program parameters: dtype, layout).
        sizes: the timing sizes of the run.
        inputs: the spec's random inputs at *sizes* (numpy arrays and scalars), in the layout
            of *point*, as gencl's variants get them.
        engine: the run's OpenCLEngine (``engine.ctx``/``engine.queue`` for OpenCL peers,
            ``engine.info`` for the device).
        repeats: samples of the median.
    """

    spec: Any
    point: dict[str, Any]
    sizes: dict[str, int]
    inputs: Mapping[str, Any]
    engine: Any = None
    repeats: int = REPEATS
    _expected: dict[str, np.ndarray] | None = field(default=None, repr=False)

    def expected(self) -> dict[str, np.ndarray]:
        """The spec's numpy reference of one launch on ``inputs`` (computed once)."""
        if self._expected is None:
            ref = self.spec.reference(self.inputs, self.point, self.sizes)
            self._expected = {k: np.asarray(v) for k, v in ref.items()}
        return self._expected

    def check(self, got: Mapping[str, Any], expected: Mapping[str, Any] | None = None) -> float:
        """Compare *got* (name → array) with the reference; raise PeerWrong when it is off.

        The tolerance is 10× the spec's: a peer may sum in another order (torch.compile fuses).
        """
        from gencl.measure import compare

        expected = self.expected() if expected is None else expected
        worst = 0.0
        for name, exp in expected.items():
            exp = np.asarray(exp)
            if name not in got:
                raise PeerWrong(f"no output {name!r}")
            out = np.asarray(got[name])
            if out.size != exp.size:
                raise PeerWrong(f"output {name!r} has {out.size} elements, the reference "
                                f"{exp.size}")
            rtol = 10 * float(self.spec.tolerance.get(exp.dtype.name, 0.0))
            error = compare(out.reshape(exp.shape), exp, rtol)
            if not error <= 1.0:
                raise PeerWrong(f"output {name!r} disagrees with numpy (max scaled error "
                                f"{error:.3g})")
            worst = max(worst, error)
        return worst


def median_of_batches(run_batch: Callable[[int], float], probe_s: float,
                      repeats: int = REPEATS) -> float:
    """Median per-call seconds over *repeats* samples, each a batch of calls lasting ≥ 0.2 ms;
    ``run_batch(k)`` runs k calls back to back and returns their total seconds."""
    launches = max(1, min(1 << 16, int(np.ceil(MIN_BATCH_S / max(probe_s, 1e-7)))))
    return statistics.median(run_batch(launches) / launches for _ in range(repeats))


def run_peers(context: PeerContext, peers: Mapping[str, Callable[[PeerContext], float]]
              ) -> tuple[dict[str, float], dict[str, str]]:
    """Time every peer on *context*: (name → seconds per launch, name → why it did not run)."""
    times: dict[str, float] = {}
    skipped: dict[str, str] = {}
    for name, peer in peers.items():
        try:
            times[name] = float(peer(context))
        except (PeerUnavailable, PeerWrong) as exc:
            skipped[name] = str(exc)
        except Exception as exc:  # noqa: BLE001 -- a peer that fails is reported, not fatal
            skipped[name] = f"{type(exc).__name__}: {str(exc).strip()[:200]}"
    return times, skipped
