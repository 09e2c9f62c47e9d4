"""What gencl says when nothing could be measured: the README's first command measures its
headline keys; a benchmark that measures nothing is ``failed`` with its cause and the command
exits non-zero; a report never shows a table of dashes as a result."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from gencl.profile import load_profile

#: The summary keys a profile is read for first (seed 000's headline figures).
HEADLINE = ("sp_madd_peak_flops", "copy_bw_Bps", "global_latency_cycles")

#: A valid suite benchmark whose reference is wrong on purpose: every variant builds and runs,
#: and every answer fails verification (a real run on the real device, no mock).
WRONG_BENCH = textwrap.dedent('''
    import loopy as lp
    import numpy as np
    from gencl.spec import BenchmarkSpec, Knob

    def program(point):
        return lp.make_kernel("{[i]: 0 <= i < n}", "y[i] = 2 * x[i]",
            [lp.GlobalArg("x", np.float32, shape=("n",)),
             lp.GlobalArg("y", np.float32, shape=("n",), is_output=True, is_input=False),
             lp.ValueArg("n", np.int32)], name="twice", target=lp.PyOpenCLTarget(),
            lang_version=(2018, 2))

    SPEC = BenchmarkSpec(
        name="wrong_bench", description="y = 2x, checked against 3x", program=program,
        knobs={"workgroup": Knob("workgroup", (32, 64), {"inames": ("i",)})},
        inputs=lambda p, s, rng: {"x": rng.standard_normal(s["n"]).astype(np.float32)},
        reference=lambda v, p, s: {"y": 3 * v["x"]},
        sizes=lambda p, d, q: {"n": 4096},
        metrics={"bytes": lambda p, s: 8 * s["n"]},
        sweep=[{"workgroup": 32}, {"workgroup": 64}],
        analysis="bandwidth", group="memory",
    )
''')


def _gencl(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gencl", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def test_quick_profile_measures_the_headline_keys(quick_profile):
    folder = quick_profile[0]
    summary = json.loads((folder / "summary.json").read_text())
    benchmarks = load_profile(folder).benchmarks.values()
    said = [f"{b.name}: {n}" for b in benchmarks for n in b.notes if "ERROR" in n]
    for key in HEADLINE:
        assert isinstance(summary[key], int | float) and summary[key] > 0, \
            (key, summary[key], said)
    # measured, or skipped with its reason where the device cannot run it (inline PTX on a CPU)
    for b in benchmarks:
        assert b.ok or (b.status == "skipped" and b.reason), (b.name, b.status, b.reason)


def test_benchmark_that_measures_nothing_fails_with_its_cause_and_exit_1(tmp_path):
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "wrong_bench.py").write_text(WRONG_BENCH)
    out = tmp_path / "out"
    proc = _gencl("profile", "--quick", "--only", "wrong_bench", "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "wrong_bench: failed: every result was wrong on" in proc.stderr
    assert "Traceback" not in proc.stderr
    bench = load_profile(out).benchmarks["wrong_bench"]
    assert bench.status == "failed" and not bench.ok and not bench.measured
    assert bench.reason.startswith("every result was wrong")
    assert all(m["status"] == "wrong_answer" for m in bench.measurements)
    report = (out / "report.md").read_text()
    assert "## Nothing measured" in report and "## Performance characteristics" not in report
    assert "| – | – |" not in report  # no row of dashes stands for a result

    run = _gencl("run", str(tmp_path / "specs" / "wrong_bench.py"), "--repeats", "3",
                 "--json", str(tmp_path / "r.json"), cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("gencl: error: every result was wrong on") and "Traceback" not in line
