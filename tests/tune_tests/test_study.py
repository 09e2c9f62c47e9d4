"""Studies on real Optuna storages (SQLite, journal) over replayed measurements."""

from __future__ import annotations

import itertools
import json
import warnings

import jsonschema
import numpy as np
import optuna
import pytest
from optuna.trial import TrialState

from gencl.model import params_from
from gencl.spec import load_spec
from gencl.tune import (
    ModelGuidedSampler,
    ReplayEngine,
    SearchSpace,
    export_t4,
    fixed_from_records,
    make_sampler,
    open_storage,
    params_key,
    predictions,
    run_study,
)


def _space(replay):
    spec = load_spec("copy")
    return spec, SearchSpace(spec, fixed_from_records(spec, replay.records))


@pytest.mark.parametrize("kind", ["sqlite", "journal"])
def test_study_survives_failures_and_resumes(kind, tmp_path, cache_with_failures):
    replay = ReplayEngine(cache_with_failures)
    spec = load_spec("copy")
    space = SearchSpace(spec, {**fixed_from_records(spec, replay.records), "workgroup": 256})
    url = f"sqlite:///{tmp_path}/s.db" if kind == "sqlite" else f"journal:{tmp_path}/s.journal"
    study = run_study(spec, space, replay, study_name="t", storage=open_storage(url),
                      sampler=make_sampler("grid", space, seed=0), trials=8)
    done = {t.number: t.value for t in study.trials if t.state == TrialState.COMPLETE}
    assert len(done) == 8                                   # --trials counts complete trials
    # a rerun of a finished study adds none
    n_trials = len(study.trials)
    again = run_study(spec, space, replay, study_name="t", storage=open_storage(url),
                      sampler=make_sampler("grid", space, seed=0), trials=8)
    assert len(again.trials) == n_trials
    # a second run with a larger budget continues the same study over the whole grid and stops
    # there: the 15 points of the space, never the 5 combinations of its axes the spec
    # excludes; nothing finished is lost
    assert space.size == 20 and len(space.points()) == 15
    study2 = run_study(spec, space, replay, study_name="t", storage=open_storage(url),
                       sampler=make_sampler("grid", space, seed=0), trials=20)
    again = {t.number: t.value for t in study2.trials if t.state == TrialState.COMPLETE}
    assert all(again[n] == v for n, v in done.items())
    states = [t.state for t in study2.trials]
    assert len(states) == 15 and states.count(TrialState.PRUNED) == 0
    assert {params_key(t.params) for t in study2.trials} == \
        {params_key(space.encode(p)) for p in space.points()}
    failed = [t for t in study2.trials if t.state == TrialState.FAIL]
    # each failure is a failed trial with its reason; the study went on past it
    assert sorted(t.user_attrs["status"] for t in failed) == ["build_error", "wrong_answer"]
    assert all(t.user_attrs["reason"].startswith("recorded") for t in failed)
    assert states.count(TrialState.COMPLETE) == 13


def test_guided_sampler_starts_from_the_best_prediction_and_learns_residuals(cache):
    replay = ReplayEngine(cache)
    spec, space = _space(replay)
    params = params_from({}, replay.device)
    sizes = {json.dumps(r["point"], sort_keys=True): r["sizes"] for r in replay.records}
    predicted = predictions(spec, space, lambda p: sizes[json.dumps(p, sort_keys=True)], params,
                            workers=1)
    assert len(predicted) == len(replay.records)
    with pytest.warns(UserWarning, match="experimental"):
        sampler = ModelGuidedSampler(space.distributions(), predicted, seed=1)
    study = run_study(spec, space, replay, study_name="g", storage=None, sampler=sampler,
                      trials=8)
    assert predicted[params_key(study.trials[0].params)] == min(predicted.values())
    assert len({params_key(t.params) for t in study.trials}) == 8  # no point proposed twice
    # a point measured 10x slower than predicted drags its neighbours down the ranking, and
    # the neighbours (one knob apart) more than points far away
    prior = sampler.scores({})
    top = min(predicted, key=predicted.get)
    after = sampler.scores({top: predicted[top] * 10})
    moved = after - prior
    keys = sampler._keys
    distance = [sum(a != b for a, b in zip(json.loads(k).values(), json.loads(top).values()))
                for k in keys]
    near = [m for m, d in zip(moved, distance) if d == 1]
    far = [m for m, d in zip(moved, distance) if d >= 3]
    assert near and far and min(near) > max(far)
    # (every unmeasured point's bonus grows with the model's error where measured, so scores
    # may all fall; the ranking is what the search follows: the neighbours lose places, but
    # for one ranked last already, which may trade places with another of them at the bottom)
    rank_before, rank_after = np.argsort(np.argsort(prior)), np.argsort(np.argsort(after))
    bottom = len(keys) - len(near)
    assert all(rank_after[i] > rank_before[i] or rank_after[i] >= bottom
               for i, d in enumerate(distance) if d == 1)


def test_export_t4_validates_against_kernel_tuner_schema(tmp_path, cache_with_failures):
    from importlib.resources import files

    replay = ReplayEngine(cache_with_failures)
    spec, space = _space(replay)
    # the grid proposes only the space's points: the spec's exclusions enter as another
    # sampler's proposals do, queued on the same storage
    storage = open_storage(f"sqlite:///{tmp_path}/x.db")
    valid = {params_key(space.encode(p)) for p in space.points()}
    excluded = [dict(zip(space.axes, values)) for values in itertools.product(
        *(space.distributions()[k].choices for k in space.axes))]
    excluded = [p for p in excluded if params_key(p) not in valid]
    assert len(excluded) == 25
    queued = optuna.create_study(study_name="x", storage=storage)
    for params in excluded:
        queued.enqueue_trial(params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = run_study(spec, space, replay, study_name="x", storage=storage,
                          sampler=make_sampler("grid", space, seed=0), trials=100)
    path = export_t4(study, space, tmp_path / "t4.json", {"device": replay.device})
    data = json.loads(path.read_text())
    schema = json.loads(files("kernel_tuner").joinpath(
        "schema/T4/1.0.0/results-schema.json").read_text())
    jsonschema.validate(data, schema)
    kinds = [r["invalidity"] for r in data["results"]]
    # the whole grid (73 measured, the two recorded failures) and the 25 queued exclusions
    assert len(kinds) == 100 and kinds.count("correct") == 73
    assert kinds.count("compile") == kinds.count("correctness") == 1
    assert kinds.count("constraints") == 25


def test_bad_storage_url_is_one_line(tmp_path):
    from gencl.errors import GenclError

    with pytest.raises(GenclError, match="--storage"):
        open_storage("nosuchdb://x")


def test_guided_sampler_counts_a_bounded_batch_before_trial_1(cache):
    """The cold start: trial 1 waits for one batch of counted programs, not for the whole space;
    the batch covers every knob value, and later trials each count one more batch."""
    from gencl.tune._study import lazy_predictor

    replay = ReplayEngine(cache)
    spec, space = _space(replay)
    params = params_from({}, replay.device)
    sizes = {json.dumps(r["point"], sort_keys=True): r["sizes"] for r in replay.records}
    keys, predict = lazy_predictor(spec, space, lambda p: sizes[json.dumps(p, sort_keys=True)],
                                   params, workers=1)
    asked: list[int] = []

    def counting(batch):
        asked.append(len(batch))
        return predict(batch)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sampler = ModelGuidedSampler(space.distributions(), seed=1, candidates=keys,
                                     predictor=counting, first_batch=10, batch=4)
    storage = optuna.storages.InMemoryStorage()
    study = run_study(spec, space, replay, study_name="cold", storage=storage, sampler=sampler,
                      trials=1)
    assert len(keys) == len(replay.records) > 30
    assert sampler.counted_before_first_trial == sum(asked) == 10
    first = [json.loads(k) for k, done in zip(sampler.lazy.keys, sampler.lazy.counted) if done]
    for axis, dist in space.distributions().items():
        assert {p[axis] for p in first} == set(dist.choices)
    study = run_study(spec, space, replay, study_name="cold", storage=storage, sampler=sampler,
                      trials=4)
    assert asked == [10] + [4] * (len(study.trials) - 1)  # one batch per trial
    assert len({params_key(t.params) for t in study.trials}) == len(study.trials) >= 4


def test_a_trial_whose_worker_died_unrecorded_holds_back_no_budget(tmp_path, cache):
    """A worker killed between Optuna creating a trial and recording itself leaves a RUNNING
    trial nobody owns. Past its grace it neither holds the budget back in the run's loop nor in
    each trial's claim: a study one short of its budget finishes (it used to prune every new
    trial, without end), and the trial is failed, not left RUNNING."""
    import datetime as dt
    import threading

    replay = ReplayEngine(cache)
    spec, space = _space(replay)
    url = f"sqlite:///{tmp_path}/o.db"
    run_study(spec, space, replay, study_name="o", storage=open_storage(url),
              sampler=make_sampler("random", space, seed=0), trials=3)
    storage = open_storage(url)
    study = optuna.load_study(study_name="o", storage=storage)
    storage.create_new_trial(study._study_id, template_trial=optuna.trial.FrozenTrial(
        number=-1, state=TrialState.RUNNING, value=None,
        datetime_start=dt.datetime.now() - dt.timedelta(hours=1), datetime_complete=None,
        params={}, distributions={}, user_attrs={}, system_attrs={}, intermediate_values={},
        trial_id=-1))
    done: list[optuna.Study] = []
    worker = threading.Thread(target=lambda: done.append(run_study(
        spec, space, replay, study_name="o", storage=open_storage(url),
        sampler=make_sampler("random", space, seed=1), trials=4)), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert done, "a study one short of its budget did not finish beside an orphaned trial"
    states = [t.state for t in done[0].trials]
    assert states.count(TrialState.COMPLETE) == 4 and states.count(TrialState.RUNNING) == 0
    orphan = [t for t in done[0].trials if not t.params]
    assert [t.state for t in orphan] == [TrialState.FAIL]
    assert orphan[0].user_attrs["worker_died"] == "a worker that died before it recorded itself"


class _CountedRandom(optuna.samplers.RandomSampler):
    """Optuna's random sampler, noting the trials it was asked to fill."""

    def __init__(self, seed):
        super().__init__(seed=seed)
        self.filled = set()

    def sample_independent(self, study, trial, param_name, param_distribution):
        self.filled.add(trial.number)
        return super().sample_independent(study, trial, param_name, param_distribution)


def _plateau_search(times, predicted, patience, trials=24):
    space = {"a": optuna.distributions.CategoricalDistribution(list(range(8))),
             "b": optuna.distributions.CategoricalDistribution(list(range(8)))}
    base = _CountedRandom(seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sampler = ModelGuidedSampler(space, predicted, base_sampler=base, seed=3,
                                     patience=patience)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: times[params_key({"a": t.suggest_categorical("a", list(range(8))),
                                               "b": t.suggest_categorical("b", list(range(8)))})],
                   n_trials=trials)
    return study, base.filled


def test_a_stalled_guided_search_gives_every_second_trial_to_the_base_sampler():
    # a plateau: every point measures 1.0 but the one at a=7, b=7 (0.5), which the model
    # prices slowest of all (the rest in a fixed order, a+b/8 apart)
    keys = {(a, b): params_key({"a": a, "b": b}) for a in range(8) for b in range(8)}
    predicted = {k: 1.0 + a + b / 8 for (a, b), k in keys.items()}
    times = {k: 0.5 if (a, b) == (7, 7) else 1.0 for (a, b), k in keys.items()}
    study, filled = _plateau_search(times, predicted, patience=5)
    # trials 0-5: the model's ranking; the first is the best so far, five more find nothing
    # better; from then on every second point tried is the base sampler's (a point it draws
    # twice is answered again and counts once), the others the model's
    assert filled and min(filled) == 7

    def tried_before(n):
        return len({params_key(t.params) for t in study.trials if t.number < n})
    assert all(tried_before(n) % 2 == 1 for n in filled)
    assert all(tried_before(t.number) % 2 == 0 for t in study.trials
               if t.number > 7 and t.number not in filled)
    guided = [params_key(t.params) for t in study.trials if t.number not in filled]
    assert len(set(guided)) == len(guided)  # the model's turns: untried points only
    # without patience the base sampler is never asked while predicted points remain, and
    # the best point (priced last of 64) is not reached in 24 trials
    never, none = _plateau_search(times, predicted, patience=0)
    assert not none and min(t.value for t in never.trials) == 1.0


def test_a_search_that_keeps_improving_never_stalls():
    from gencl.tune._sampler import stalled

    def trial(number, value):
        done = optuna.trial.create_trial(
            params={"a": number}, distributions={
                "a": optuna.distributions.CategoricalDistribution(list(range(20)))},
            value=value)
        done.number = number  # create_trial leaves it unset; stalled reads trials in order
        return done
    # each trial 2 % faster than the last: never stalled; then five within 1 %: stalled
    improving = [trial(n, 1.0 * 0.98 ** n) for n in range(10)]
    assert not stalled(improving, 5)
    flat = [trial(10 + n, improving[-1].value * 0.995) for n in range(5)]
    assert stalled(improving + flat, 5) and not stalled(improving + flat[:4], 5)
    assert not stalled(improving + flat, 0)
