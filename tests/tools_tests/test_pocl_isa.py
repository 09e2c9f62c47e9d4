"""tools/pocl_isa.py: the counts of PoCL's work-group code added to the records of a space
measured before measurements counted it, on the real PoCL device; only where the source is the
one timed, and only on the device the space was measured on."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from gencl.generate import lower
from gencl.measure import measure_variant
from gencl.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "pocl_isa.py"

_spec = importlib.util.spec_from_file_location("pocl_isa", TOOL)
tool = importlib.util.module_from_spec(_spec)
sys.modules["pocl_isa"] = tool
_spec.loader.exec_module(tool)


def _space(engine, tmp_path):
    spec = load_spec("jacobi")
    records = []
    for width, group in ((1, [32, 4]), (4, [16, 2])):
        point = spec.complete({"dtype": "float32", "boundary": "padded", "vector_width": width,
                               "workgroup": group, "local": "none"})
        m = measure_variant(engine, spec, lower(spec, point), {"n": 64})
        assert m.status == "ok" and m.extra.get("isa")
        records.append(m.to_json())
    data = {"spec": "jacobi", "device": {"name": engine.info.name,
                                         "driver": engine.info.driver}, "results": records}
    return data, tmp_path / "space.json"


def test_the_counts_a_measurement_writes_are_added_where_the_source_was_timed(engine, tmp_path):
    data, path = _space(engine, tmp_path)
    counted = [r["extra"].pop("isa") for r in data["results"]]
    data["results"][1]["source_hash"] = "0" * 16  # another source than the one timed
    path.write_text(json.dumps(data))
    assert tool.main([str(path), "--device", engine.info.name]) == 0
    after = json.loads(path.read_text())["results"]
    assert after[0]["extra"]["isa"] == counted[0]
    assert "isa" not in after[1]["extra"]
    # nothing else in the records changed
    assert {k: v for k, v in after[0].items() if k != "extra"} == \
        {k: v for k, v in data["results"][0].items() if k != "extra"}


def test_a_space_of_another_device_is_refused(engine, tmp_path, capsys):
    data, path = _space(engine, tmp_path)
    data["device"] = {"name": "another CPU", "driver": engine.info.driver}
    path.write_text(json.dumps(data))
    assert tool.main([str(path), "--device", engine.info.name]) == 2
    assert "device: measured on 'another CPU'" in capsys.readouterr().err
    assert json.loads(path.read_text()) == data
