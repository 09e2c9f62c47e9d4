"""What a tuning run shows while it runs: one line per trial, as people expect from a tuner."""

from __future__ import annotations

import sys
import time
from typing import Any

from optuna.trial import TrialState

_FINISHED = (TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED)


class TrialProgress:
    """Optuna callback: ``trial k/N: <result>; best so far <t> (trial j); ETA m:ss`` on stderr.

    *k* counts the study's finished trials (a resumed study or other workers' trials included);
    the ETA comes from the pace of the trials finished by this process.
    """

    def __init__(self, total: int, file: Any = None) -> None:
        self.total = total
        self.file = file or sys.stderr
        self.start = time.monotonic()
        self.here = 0
        self.first_done: int | None = None

    def __call__(self, study: Any, trial: Any) -> None:
        from gencl.report_console import _duration

        trials = study.get_trials(deepcopy=False, states=_FINISHED)
        done = len(trials)
        self.here += 1
        if trial.state == TrialState.COMPLETE:
            result = f"{trial.value * 1e6:,.1f} µs {trial.params}"
        else:
            why = trial.user_attrs.get("status") or trial.state.name.lower()
            result = f"{why} {trial.params}"
        complete = [t for t in trials if t.state == TrialState.COMPLETE]
        best = min(complete, key=lambda t: t.value) if complete else None
        best_text = (f"best so far {best.value * 1e6:,.1f} µs (#{best.number})" if best
                     else "no variant measured yet")
        per_trial = (time.monotonic() - self.start) / self.here
        left = max(0, self.total - done)
        eta = f"ETA {_duration(per_trial * left)}" if left else "done"
        print(f"trial {min(done, self.total)}/{self.total} (#{trial.number}): {result}; "
              f"{best_text}; {eta}",
              file=self.file, flush=True)
