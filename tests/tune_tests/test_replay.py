from __future__ import annotations

import json

from gencl.spec import load_spec
from gencl.tune import ReplayEngine


def test_replay_answers_recorded_measurements(cache):
    spec = load_spec("copy")
    replay = ReplayEngine(cache)
    record = json.loads(cache.read_text())["results"][3]
    m = replay.evaluate(spec, record["point"])
    assert m.ok and m.median_s == record["median_s"] and m.variant_id == record["variant_id"]
    assert replay.best()["median_s"] == min(r["median_s"] for r in replay.records)


def test_replay_unknown_point_is_an_error_not_a_guess(cache):
    spec = load_spec("copy")
    point = spec.complete({"dtype": "int8", "reads": 1})
    m = ReplayEngine(cache).evaluate(spec, point)
    assert m.status == "error" and "not in the replay cache" in m.reason
