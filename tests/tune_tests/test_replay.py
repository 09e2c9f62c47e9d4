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


def test_a_cache_older_than_an_axis_replays_at_its_first_value(cache, tmp_path):
    """Records measured before an axis joined the space (no key for it) stand at the axis's first
    value, the untransformed program; without the spec they would not match any point."""
    from gencl.tune._simulate import fixed_from_records

    spec = load_spec("copy")
    axis = list(spec.knobs)[-1]
    first = spec.axes[axis][0]
    data = json.loads(cache.read_text())
    data["results"] = [r for r in data["results"] if r["point"][axis] == first]
    for record in data["results"]:
        del record["point"][axis]
    old = tmp_path / "space.json"
    old.write_text(json.dumps(data))
    point = {**data["results"][0]["point"], axis: first}
    assert ReplayEngine(old).evaluate(spec, point).status == "error"
    replay = ReplayEngine(old, spec=spec)
    assert replay.evaluate(spec, point).ok
    assert fixed_from_records(spec, replay.records)[axis] == first


def test_a_record_of_a_value_that_left_the_space_is_set_aside(cache, tmp_path):
    """A record whose knob value the spec no longer has (renamed or dropped since it was
    measured) timed a program the spec does not build: the replay sets it aside, with the axis
    and value named, and keeps the rest."""
    spec = load_spec("copy")
    axis = list(spec.knobs)[-1]
    data = json.loads(cache.read_text())
    data["results"][0]["point"][axis] = "gone"
    stale = tmp_path / "space.json"
    stale.write_text(json.dumps(data))
    replay = ReplayEngine(stale, spec=spec)
    assert len(replay.records) == len(data["results"]) - 1
    [(point, reason)] = replay.outside
    assert point[axis] == "gone" and reason.startswith(f"{axis}='gone' is not one of")
    assert spec.outside(data["results"][1]["point"]) is None
