"""tools/resimulate.py: the command it derives from a committed simulation summary is the one the
README names for it, and every committed summary gives a command `gencl tune` accepts."""

from __future__ import annotations

import importlib.util
import shlex
from pathlib import Path

import pytest

from gencl.cli import _load_plugins, build_parser

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("resimulate", ROOT / "tools" / "resimulate.py")
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

SUMMARIES = tool.summaries([str(ROOT / "bench_results")])


@pytest.mark.parametrize("summary", [
    # a second run of the space beside it
    "nvidia-h200/edge3d19/single-sweep/tuning/summary.json",
    # the Kernel Tuner comparison, budget 200
    "nvidia-h200/tuning/summary.json",
    # two of the strategies only
    "pocl-local-cpu/jacobi/tuning/summary.json",
    # the single-sweep slice of a space measured with its temporal points (--knob)
    "nvidia-h200/helmholtz3d/single-sweep-tuning/summary.json",
])
def test_the_command_is_the_one_the_readme_names(summary, monkeypatch):
    monkeypatch.chdir(ROOT)
    cmd = shlex.join(tool.command(Path("bench_results") / summary))
    assert cmd in (ROOT / "README.md").read_text()


def test_a_sampled_space_runs_no_strategies_and_every_command_parses(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert len(SUMMARIES) > 40
    sampled = tool.command(Path("bench_results/nvidia-h200/box2d9/tuning/summary.json"))
    assert "--no-kernel-tuner" in sampled and "--max-evals" not in sampled
    _load_plugins()  # the subcommands register on import, as `gencl` does
    parser = build_parser()
    for path in SUMMARIES:
        args = parser.parse_args(tool.command(path.relative_to(ROOT))[1:])
        assert args.simulate and Path(args.cache).is_file() and args.out == str(
            path.relative_to(ROOT).parent)
