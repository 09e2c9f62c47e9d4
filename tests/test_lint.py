"""Lint and type checks are part of the test suite (CI runs the README's single test command).

Configuration: ``[tool.ruff]`` and ``[tool.mypy]`` in pyproject.toml.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: what generic code may not name: one kernel's arrays, axes and scalars ("sweeps" is the generic
#: temporal-blocking axis now, gencl.spec.SWEEPS_AXIS)
KERNEL_NAMES = {"u", "u_new", "boundary", "block_x", "block_y", "jacobi", "omega"}
#: generic modules: nothing in them may assume one kernel
GENERIC = ("gencl/space", "gencl/tune", "gencl/model", "gencl/measure", "gencl/spec",
           "gencl/peers", "gencl/generate", "gencl/api.py")


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True,
                          text=True, check=False)


def test_ruff():
    proc = _run("ruff", "check", "gencl", "tests")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy():
    proc = _run("mypy")  # files, options: pyproject.toml
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generic_modules_name_no_kernel():
    found = []
    for entry in GENERIC:
        path = ROOT / entry
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            for node in ast.walk(ast.parse(file.read_text())):
                name = (node.value if isinstance(node, ast.Constant) and
                        isinstance(node.value, str) else
                        node.id if isinstance(node, ast.Name) else
                        node.attr if isinstance(node, ast.Attribute) else None)
                if name is not None and name.lower() in KERNEL_NAMES:
                    found.append(f"{file.relative_to(ROOT)}:{node.lineno}: {name!r}")
    assert not found, "\n".join(found)
