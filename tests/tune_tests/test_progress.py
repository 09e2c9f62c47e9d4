"""The progress line counts what the trial budget counts: complete trials, not pruned ones."""

import io

import optuna

from gencl.tune._progress import TrialProgress


def test_progress_counts_complete_trials_only():
    out = io.StringIO()
    progress = TrialProgress(3, file=out)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))

    def objective(trial):
        x = trial.suggest_int("x", 0, 9)
        if trial.number in (1, 2):  # as a point the space excludes is pruned
            trial.set_user_attr("status", "excluded")
            raise optuna.TrialPruned("excluded")
        return 1e-3 * (x + 1)

    study.optimize(objective, n_trials=5, callbacks=[progress])
    lines = out.getvalue().splitlines()
    assert [line.split(" (#")[0] for line in lines] == [
        "trial 1/3", "trial 1/3", "trial 1/3", "trial 2/3", "trial 3/3"]
    assert "excluded {'x'" in lines[1] and "ETA" in lines[1]
    assert lines[-1].endswith("done") and not any(line.endswith("done") for line in lines[:-1])
    best = min(t.value for t in study.trials if t.value is not None)
    assert f"best so far {best * 1e6:,.1f} µs" in lines[-1]
