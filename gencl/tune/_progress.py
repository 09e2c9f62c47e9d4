"""What a tuning run shows while it runs: one line per trial, as people expect from a tuner."""

from __future__ import annotations

import sys
import time
from typing import Any

from optuna.trial import TrialState


class TrialProgress:
    """Optuna callback: ``trial k/N: <result>; best so far <t> (trial j); ETA m:ss`` on stderr.

    *k* counts the study's complete trials, what the budget *N* counts (a resumed study or other
    workers' trials included): a point the space excludes, pruned before any work, or a trial
    pruned because the budget was met leaves *k* where it was. The ETA comes from the pace of the
    trials this process completed (pruned ones take no time worth counting).
    """

    def __init__(self, total: int, file: Any = None) -> None:
        self.total = total
        self.file = file or sys.stderr
        self.start = time.monotonic()
        self.here = 0

    def __call__(self, study: Any, trial: Any) -> None:
        from gencl.report_console import _duration

        complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        done = len(complete)
        if trial.state == TrialState.COMPLETE:
            self.here += 1
            result = f"{trial.value * 1e6:,.1f} µs {trial.params}"
        else:
            why = trial.user_attrs.get("status") or trial.state.name.lower()
            reason = str(trial.user_attrs.get("reason") or "").splitlines()
            result = f"{why} {trial.params}" + (f" ({reason[0][:120]})" if reason else "")
        best = min(complete, key=lambda t: t.value) if complete else None
        best_text = (f"best so far {best.value * 1e6:,.1f} µs (#{best.number})" if best
                     else "no variant measured yet")
        left = max(0, self.total - done)
        if not left:
            eta = "done"
        elif self.here:
            eta = f"ETA {_duration((time.monotonic() - self.start) / self.here * left)}"
        else:
            eta = "ETA after the first complete trial"
        print(f"trial {min(done, self.total)}/{self.total} (#{trial.number}): {result}; "
              f"{best_text}; {eta}",
              file=self.file, flush=True)
