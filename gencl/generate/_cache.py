"""On-disk cache of generated variants, keyed by variant id (which hashes spec text and version)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from gencl._json import dumps_json
from gencl.generate._variant import Variant


def cache_dir() -> Path | None:
    """``$GENCL_CACHE_DIR`` or ``~/.cache/gencl``; None when ``GENCL_NO_CACHE`` is set."""
    if os.environ.get("GENCL_NO_CACHE"):
        return None
    root = os.environ.get("GENCL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "gencl")
    return Path(root)


def load_cached(variant_id: str) -> Variant | None:
    root = cache_dir()
    path = root / "variants" / f"{variant_id}.json" if root else None
    if path is None or not path.is_file():
        return None
    try:
        return Variant.from_json(json.loads(path.read_text()))
    except (ValueError, TypeError, KeyError):
        return None  # a torn or old-format entry is regenerated


def store_cached(variant: Variant) -> None:
    root = cache_dir()
    if root is None:
        return
    folder = root / "variants"
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{variant.id}.{os.getpid()}.tmp"
    tmp.write_text(dumps_json(variant.to_json()))
    tmp.replace(folder / f"{variant.id}.json")  # atomic: parallel writers never tear an entry
