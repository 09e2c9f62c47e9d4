"""Whatever a user feeds gencl, a malformed spec or option is one line naming the file (or option)
and the field, exit status 2: never a traceback, never exit 0.

Property-based (hypothesis): 1,050 malformed specs (700) and command lines (350), run through
``gencl.cli.main`` in-process (capsys holds stderr) so the test stays fast.
"""

from __future__ import annotations

import itertools
import string
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gencl.cli import main

# {{{ malformed specs: a good spec with one part broken

PARTS = {
    "top": "",
    "program": textwrap.dedent('''
        def program(point):
            return lp.make_kernel(
                "{[i]: 0 <= i < n}", "y[i] = 2 * x[i]",
                [lp.GlobalArg("x", np.float32, shape=("n",)),
                 lp.GlobalArg("y", np.float32, shape=("n",), is_output=True, is_input=False),
                 lp.ValueArg("n", np.int32)], target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    '''),
    "sizes": "def sizes(point, device, quick):\n    return {'n': 100}\n",
    "inputs": "def inputs(point, sizes, rng):\n"
              "    return {'x': rng.standard_normal(sizes['n']).astype(np.float32)}\n",
    "reference": "def reference(values, point, sizes):\n    return {'y': 2 * values['x']}\n",
    "name": "'double'",
    "params": "{}",
    "knobs": "{'workgroup': Knob('workgroup', (32, 64), {'inames': ('i',)})}",
    "sweep": "[{'workgroup': 32}]",
    "metrics": "{'bytes': lambda p, s: 8 * s['n']}",
    "tolerance": "{'float32': 1e-5}",
    "constraints": "[]",
    "spec": "SPEC",
}

TEMPLATE = '''import loopy as lp
import numpy as np
from gencl.spec import BenchmarkSpec, Knob

{program}
{sizes}
{inputs}
{reference}
{top}
{spec} = BenchmarkSpec(
    name={name}, description="y = 2x", program=program, inputs=inputs, reference=reference,
    sizes=sizes, params={params}, knobs={knobs}, sweep={sweep}, metrics={metrics},
    tolerance={tolerance}, constraints={constraints})
'''


def _spec_text(**broken: str) -> str:
    return TEMPLATE.format(**{**PARTS, **broken})


def _sizes_returning(expr: str) -> str:
    return f"def sizes(point, device, quick):\n    return {expr}\n"


def _inputs_returning(expr: str) -> str:
    return f"def inputs(point, sizes, rng):\n    return {expr}\n"


def _reference_returning(expr: str) -> str:
    return f"def reference(values, point, sizes):\n    return {expr}\n"


def _program_with(instruction: str = "y[i] = 2 * x[i]", domain: str = "{[i]: 0 <= i < n}",
                  body: str | None = None) -> str:
    if body is not None:
        return f"def program(point):\n    {body}\n"
    return PARTS["program"].replace('"y[i] = 2 * x[i]"', repr(instruction)).replace(
        '"{[i]: 0 <= i < n}"', repr(domain))


identifiers = st.text(string.ascii_lowercase, min_size=1, max_size=8).map(lambda s: "q" + s)
non_positive = st.integers(max_value=0)
negative = st.integers(max_value=-1)  # a size of 0 is a size (an offset); below is a bug
not_float32 = st.sampled_from(["np.float64", "np.float16", "np.int32", "np.int64", "np.int8",
                               "np.complex64"])
off_by = st.integers(min_value=-99, max_value=200).filter(lambda d: d != 0)
exceptions = st.sampled_from(["ValueError", "KeyError", "RuntimeError", "ZeroDivisionError",
                              "AttributeError", "IndexError", "TypeError", "AssertionError"])

BROKEN_PARTS = st.one_of(
    # sizes()
    negative.map(lambda k: {"sizes": _sizes_returning(f"{{'n': {k}}}")}),
    st.sampled_from(["[100]", "100", "None", "'n=100'", "{}", "{'n': 100.0}", "{'n': '100'}",
                     "{'n': True}", "{'n': None}", "{3: 100}", "{'n-1': 100}"])
    .map(lambda e: {"sizes": _sizes_returning(e)}),
    exceptions.map(lambda e: {"sizes": _sizes_returning(f"(_ for _ in ()).throw({e}('x'))")}),
    # program()
    st.sampled_from(["return None", "return 5", "return 'kernel'", "return {}",
                     "raise RuntimeError('no')", "return lp.make_kernel"])
    .map(lambda b: {"program": _program_with(body=b)}),
    identifiers.map(lambda z: {"program": _program_with(f"y[i] = 2 * {z}[i]")}),
    identifiers.map(lambda z: {"program": _program_with(f"y[i] = 2 * x[i] + {z}")}),
    st.sampled_from(["{[i]: 0 <= i <", "{[i]: 0 <= i < n", "[i]: 0 <= i < n}", "{[i] 0 <= i}",
                     "{[i]: 0 <= i < }"]).map(lambda d: {"program": _program_with(domain=d)}),
    # inputs()
    not_float32.map(lambda t: {"inputs": _inputs_returning(
        f"{{'x': rng.standard_normal(sizes['n']).astype({t})}}")}),
    off_by.map(lambda d: {"inputs": _inputs_returning(
        f"{{'x': rng.standard_normal(sizes['n'] + {d}).astype(np.float32)}}")}),
    identifiers.map(lambda z: {"inputs": _inputs_returning(
        f"{{'{z}': rng.standard_normal(sizes['n']).astype(np.float32)}}")}),
    st.sampled_from(["None", "[1, 2]", "{}", "{'x': [1.0] * sizes['n']}", "{'x': 'data'}",
                     "{'x': rng.standard_normal(sizes['n']).astype(np.float32), 'n': 'ten'}"])
    .map(lambda e: {"inputs": _inputs_returning(e)}),
    exceptions.map(lambda e: {"inputs": _inputs_returning(f"(_ for _ in ()).throw({e}('x'))")}),
    # reference()
    not_float32.map(lambda t: {"reference": _reference_returning(
        f"{{'y': (2 * values['x']).astype({t})}}")}),
    off_by.map(lambda d: {"reference": _reference_returning(
        f"{{'y': np.resize(2 * values['x'], sizes['n'] + {d})}}")}),
    identifiers.map(lambda z: {"reference": _reference_returning(f"{{'{z}': 2 * values['x']}}")}),
    st.sampled_from(["None", "{}", "[2 * values['x']]", "{'y': 2.0}", "{'y': list(values['x'])}",
                     "{'x': values['x']}", "2 * values['x']"])
    .map(lambda e: {"reference": _reference_returning(e)}),
    exceptions.map(lambda e: {"reference": _reference_returning(
        f"(_ for _ in ()).throw({e}('x'))")}),
    identifiers.map(lambda z: {"reference": _reference_returning(
        f"{{'y': 2 * values['{z}']}}")}),
    # fields
    st.sampled_from(["'Double'", "'1x'", "''", "5", "'a-b'", "None", "'dou ble'"])
    .map(lambda n: {"name": n}),
    st.sampled_from(["{'p': ()}", "{'p': 5}", "{'p': []}", "{'workgroup': (1, 2)}", "[('p', 1)]"])
    .map(lambda p: {"params": p}),
    identifiers.map(lambda t: {"knobs": f"{{'workgroup': Knob({t!r}, (32,), {{}})}}"}),
    st.sampled_from(["()", "[]", "(0,)", "(-4,)", "('x',)", "(32, 0)", "((0, 4),)"])
    .map(lambda v: {"knobs": f"{{'workgroup': Knob('workgroup', {v}, {{'inames': ('i',)}})}}"}),
    st.sampled_from(["5", "{'workgroup': 32}", "{'workgroup': Knob('workgroup', (32,), 5)}"])
    .map(lambda k: {"knobs": k}),
    identifiers.map(lambda a: {"sweep": f"[{{'{a}': 1}}]"}),
    st.integers().filter(lambda v: v not in (32, 64))
    .map(lambda v: {"sweep": f"[{{'workgroup': {v}}}]"}),
    st.sampled_from(["5", "'workgroup'", "[5]", "[['workgroup', 32]]"])
    .map(lambda s: {"sweep": s}),
    st.sampled_from(["{'bytes': 5}", "{'bytes': 'n * 8'}", "[lambda p, s: 1]"])
    .map(lambda m: {"metrics": m}),
    st.floats(max_value=-1e-12, allow_nan=False)
    .map(lambda t: {"tolerance": f"{{'float32': {t}}}"}),
    st.sampled_from(["{'float32': 'tight'}", "{'float32': None}", "{'float32': float('nan')}"])
    .map(lambda t: {"tolerance": t}),
    st.sampled_from(["[5]", "['n > 0']", "[None]"]).map(lambda c: {"constraints": c}),
    st.sampled_from(["OTHER", "spec", "_SPEC"]).map(lambda s: {"spec": s}),
    st.sampled_from(["SPEC = 5\n", "SPEC = None\n", "SPEC = BenchmarkSpec\n"])
    .map(lambda top: {"top": "", "spec": "OTHER", "constraints": "[]"} | {"top": top}),
    # the import itself
    exceptions.map(lambda e: {"top": f"raise {e}('at import')\n"}),
    st.integers(min_value=-3, max_value=300).map(lambda c: {"top": f"import sys\nsys.exit({c})\n"}),
    st.sampled_from(["import sys\nsys.exit()\n", "import sys\nsys.exit('bye')\n",
                     "raise SystemExit\n", "raise KeyboardInterrupt\n",
                     "import gencl_no_such_module\n", "undefined_name + 1\n",
                     "def f(:\n", "x = (\n", "if True\n    pass\n", "\tx = 1\n  y = 2\n",
                     "return 5\n", "'unterminated\n"])
    .map(lambda top: {"top": top}),
)

_COUNTER = itertools.count()


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err, err
    assert len(lines) == 1, err
    assert lines[0].startswith("gencl: error: "), err
    return lines[0]


@settings(max_examples=700, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(broken=BROKEN_PARTS)
def test_malformed_spec_is_one_line_exit_2(broken, tmp_path_factory, capsys):
    folder = tmp_path_factory.getbasetemp() / "malformed"
    folder.mkdir(exist_ok=True)
    path = folder / f"spec_{next(_COUNTER)}.py"
    path.write_text(_spec_text(**broken))
    capsys.readouterr()
    code = main(["generate", str(path), "--out", str(folder / "out")])
    line = _one_error_line(capsys.readouterr().err)
    assert code == 2, (broken, line)
    rest = line.removeprefix("gencl: error: ")
    assert rest.startswith(f"{path}: "), (broken, line)       # the file ...
    field, _, message = rest.removeprefix(f"{path}: ").partition(": ")
    assert field and " " not in field.replace("line ", "") and message, (broken, line)  # field


def test_the_good_spec_of_the_property_test_loads(tmp_path, capsys):
    """The broken specs above differ from a spec that is fine: one part each."""
    path = tmp_path / "good.py"
    path.write_text(_spec_text())
    assert main(["generate", str(path), "--out", str(tmp_path / "out")]) == 0, \
        capsys.readouterr().err


def test_an_input_of_zeros_is_one_line_exit_2(tmp_path, capsys):
    """Data the program reads drawn as zeros would let a variant that skips reading it match
    the reference: refused (an integer array of zeros, a pointer chase's start, is not)."""
    path = tmp_path / "zeros.py"
    path.write_text(_spec_text(inputs=_inputs_returning("{'x': np.zeros(sizes['n'], "
                                                        "np.float32)}")))
    capsys.readouterr()
    assert main(["generate", str(path), "--out", str(tmp_path / "out")]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert line.startswith(f"gencl: error: {path}: inputs.x: is all zeros"), line



def test_a_name_opencl_c_reserves_is_one_line_exit_2(tmp_path, capsys):
    """A kernel named ``restrict`` (a multigrid restriction) fails every build with "expected
    identifier or '('", which read as the runtime's fault: refused when the spec loads."""
    path = tmp_path / "restriction.py"
    path.write_text(_spec_text(program=PARTS["program"].replace(
        "target=lp.PyOpenCLTarget()", 'name="restrict", target=lp.PyOpenCLTarget()')))
    capsys.readouterr()
    assert main(["generate", str(path), "--out", str(tmp_path / "out")]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert line == (f"gencl: error: {path}: program: kernel name 'restrict' is a reserved "
                    "word of OpenCL C: no build of it compiles (rename it)"), line

# }}}


# {{{ malformed command lines

not_an_int = st.sampled_from(["", "x", "1.5", "1e3", "0x10", "one", "--", "2/3", "nan", "1_0_"])
not_positive = st.one_of(non_positive.map(str), not_an_int)
not_a_count = st.one_of(st.integers(max_value=-1).map(str), not_an_int)


def _opt(command: list[str], option: str, values: st.SearchStrategy[str]):
    return values.map(lambda v: (option, [*command, option, v]))


bad_sizes = st.one_of(
    st.tuples(st.sampled_from(["n", "R"]), non_positive).map(lambda t: f"{t[0]}={t[1]}"),
    st.tuples(st.sampled_from(["n", "R"]), not_an_int.filter(lambda v: v != ""))
    .map(lambda t: f"{t[0]}={t[1]}"),
    st.tuples(identifiers, st.integers(min_value=1)).map(lambda t: f"{t[0]}={t[1]}"),  # no size
    st.sampled_from(["n", "=5", "n:5", "5=n", "n =", "-n=4"]),
)
bad_shards = st.one_of(
    st.tuples(st.integers(min_value=0, max_value=50), st.integers(min_value=0, max_value=50))
    .filter(lambda t: not t[0] < t[1]).map(lambda t: f"{t[0]}/{t[1]}"),
    st.sampled_from(["", "1", "a/b", "-1/2", "1/-2", "1//2", "0.5/2", "1/2/3"]),
)
bad_floats = st.one_of(st.floats(max_value=0).map(str),
                       st.sampled_from(["nan", "inf", "-inf", "x", ""]))
outside_vector_width = st.integers().filter(lambda v: v not in (1, 2, 4, 8, 16))

BAD_COMMANDS = st.one_of(
    _opt(["tune", "copy"], "--trials", not_positive),
    _opt(["tune", "copy"], "--workers", not_positive),
    _opt(["tune", "copy"], "--seeds", not_positive),
    _opt(["tune", "copy"], "--max-evals", not_positive),
    _opt(["tune", "copy"], "--seed", st.one_of(
        st.integers(max_value=-1).map(str), st.integers(min_value=2**32).map(str), not_an_int)),
    _opt(["tune", "copy"], "--size", bad_sizes),
    _opt(["run", "copy"], "--repeats", not_positive),
    _opt(["run", "copy"], "--size", bad_sizes),
    _opt(["explain", "copy"], "--size", bad_sizes),
    _opt(["generate", "copy", "--out", "/nonexistent/gencl-never"], "--workers", not_positive),
    _opt(["profile"], "--repeats", not_positive),
    _opt(["verify"], "--sample", not_positive),
    _opt(["verify"], "--oclgrind-timeout", bad_floats),
    _opt(["space", "jacobi"], "--sample", not_a_count),
    _opt(["space", "jacobi"], "--repeats", not_positive),
    _opt(["space", "jacobi"], "--shard", bad_shards),
    _opt(["generate", "copy", "--out", "/nonexistent/gencl-never"], "--knob", st.one_of(
        identifiers.map(lambda k: f"{k}=1"),                          # no such knob
        outside_vector_width.map(lambda v: f"vector_width={v}"),     # outside the space
        st.sampled_from(["vector_width", "=4", "dtype=float99"]))),
    _opt(["run", "copy"], "--knob", st.sampled_from(["dtype", "reads=3", "workgroup=7"])),
    # (tune once ignored an unknown knob and tuned the whole space)
    _opt(["tune", "laplace3d", "--quick", "--trials", "1"], "--knob",
         st.sampled_from(["nosuch=1", "stream_k=3", "vector_width", "workgroup=7"])),
    _opt(["verify", "copy"], "--knob", st.sampled_from(["dtype", "reads=3", "boundary=branch"])),
)


@settings(max_examples=350, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=BAD_COMMANDS)
def test_bad_option_is_one_line_exit_2(case, capsys):
    option, argv = case
    capsys.readouterr()
    code = main(argv)
    line = _one_error_line(capsys.readouterr().err)
    assert code == 2, (argv, line)
    # names the option (a knob outside the space: the spec file and the knob)
    assert option in line or (option == "--knob" and "knob" in line), (argv, line)
    if option == "--size" and "=" in argv[-1] and argv[-1].split("=")[0].startswith("q"):
        assert "copy.py" in line, line                             # and the spec it is checked on


@pytest.mark.parametrize("argv", [["run", "copy", "--trials"], ["nosuchcommand"], []])
def test_usage_errors_are_one_line_too(argv, capsys):
    assert main(argv) == 2
    _one_error_line(capsys.readouterr().err)

# }}}
