"""OpenCL runtimes installed by pip that the ICD loader would not find by itself.

Intel's CPU runtime from PyPI (``pip install gencl[intel]``: intel-opencl-rt, intel-cmplr-lib-rt,
tbb) puts ``libintelocl.so`` in ``<prefix>/lib`` but ships an ICD file naming a placeholder path
(``/opt/anaconda1anaconda2anaconda3/lib/libintelocl.so``), so no loader finds it. gencl registers
it without root: a folder in the gencl cache holds an ICD file naming the installed library by
its absolute path, plus copies of the ICD files the loader would have read anyway, and
``OCL_ICD_VENDORS`` points to that folder. The library's own RUNPATH (``$ORIGIN``) resolves its
dependencies (libtbb, libcommon_clang, …) from its folder, so no library path has to change.

This must run before pyopencl first enumerates platforms (the loader reads ``OCL_ICD_VENDORS``
once): ``gencl.device`` calls it when imported. ``GENCL_NO_ICD_SETUP=1`` turns it off.
"""

from __future__ import annotations

import hashlib
import os
import site
import sys
import tempfile
from pathlib import Path

#: Where the ICD loader looks when ``OCL_ICD_VENDORS`` is not set.
SYSTEM_VENDORS = Path("/etc/OpenCL/vendors")

INTEL_CPU_LIBRARY = "libintelocl.so"


def _prefixes() -> list[Path]:
    """Folders a pip install puts data files under: the environment, and the user base."""
    roots = [Path(sys.prefix)]
    try:
        roots.append(Path(site.getuserbase()))
    except (AttributeError, OSError):  # pragma: no cover -- site without a user base
        pass
    return list(dict.fromkeys(roots))


def find_intel_cpu_library() -> Path | None:
    """``libintelocl.so`` of a pip-installed intel-opencl-rt, or None."""
    for root in _prefixes():
        path = root / "lib" / INTEL_CPU_LIBRARY
        if path.is_file():
            return path
    return None


def _vendor_files() -> dict[str, str]:
    """ICD files the loader reads now: ``OCL_ICD_VENDORS`` (a folder or one file), else /etc."""
    where = os.environ.get("OCL_ICD_VENDORS")
    source = Path(where) if where else SYSTEM_VENDORS
    files: dict[str, str] = {}
    if source.is_dir():
        for icd in sorted(source.glob("*.icd")):
            try:
                files[icd.name] = icd.read_text()
            except OSError:
                continue
    elif source.is_file():
        text = source.read_text() if source.suffix == ".icd" else str(source)
        files[source.name if source.suffix == ".icd" else f"{source.stem}.icd"] = text
    return files


def _names_library(text: str, library: Path) -> bool:
    line = text.strip().splitlines()[0].strip() if text.strip() else ""
    try:
        return bool(line) and Path(line).is_absolute() and Path(line).resolve() == \
            library.resolve()
    except OSError:
        return False


def _is_placeholder(text: str) -> bool:
    """An absolute library path that does not exist (Intel's wheel ships one)."""
    line = text.strip().splitlines()[0].strip() if text.strip() else ""
    return bool(line) and line.startswith("/") and not Path(line).exists()


def _icd_root() -> Path:
    from gencl.generate._cache import cache_dir

    root = cache_dir()
    if root is None:  # GENCL_NO_CACHE: still one folder per user, not one per process
        root = Path(tempfile.gettempdir()) / f"gencl-{os.getuid()}"
    return root / "icd"


def register_pip_runtimes() -> Path | None:
    """Make pip-installed runtimes (Intel's CPU runtime) visible; return the ICD folder or None.

    Nothing changes when no such runtime is installed or the loader already sees it (a gencl
    process started by another inherits its ``OCL_ICD_VENDORS``).
    """
    if os.environ.get("GENCL_NO_ICD_SETUP"):
        return None
    library = find_intel_cpu_library()
    if library is None:
        return None
    visible = _vendor_files()
    if any(_names_library(text, library) for text in visible.values()):
        return None
    files = {name: text for name, text in visible.items() if not _is_placeholder(text)}
    files["gencl-intel-cpu.icd"] = f"{library}\n"
    digest = hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()[:16]
    folder = _icd_root() / digest
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            path = folder / name
            if not path.is_file() or path.read_text() != text:
                tmp = folder / f".{name}.{os.getpid()}.tmp"
                tmp.write_text(text)
                tmp.replace(path)  # atomic: parallel gencl processes share the folder
    except OSError:
        return None  # a read-only cache: the runtime stays invisible, as without gencl
    os.environ["OCL_ICD_VENDORS"] = str(folder)
    return folder


def intel_cpu_load_problem() -> str | None:
    """Why an installed Intel CPU runtime did not load (the loader skips it silently), or None."""
    import ctypes

    library = find_intel_cpu_library()
    if library is None:
        return None
    try:
        ctypes.CDLL(str(library))
    except OSError as exc:
        return f"{library}: {exc}"
    return None
