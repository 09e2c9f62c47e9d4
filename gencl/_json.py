"""Standard JSON out: no bare ``Infinity``/``NaN`` (not JSON; other readers reject them).

A float that is not finite is written as ``null``: a max error of a result whose shape did not
match, a statistic of no samples. Readers treat ``null`` as "no number", as they do already for a
variant that was not timed. Old files holding ``Infinity`` still read (Python's json accepts it).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any


def finite(value: Any) -> Any:
    """*value* with every non-finite float replaced by None (dicts, lists, tuples walked)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    if type(value).__module__ == "numpy" and hasattr(value, "dtype") and \
            getattr(value, "ndim", 1) == 0:
        item = value.item()
        return finite(item) if isinstance(item, float) else item
    return value


def dumps_json(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` that always writes standard JSON (``default=str`` unless given)."""
    kwargs.setdefault("default", str)
    return json.dumps(finite(value), allow_nan=False, **kwargs)


def read_json(path: str | os.PathLike[str]) -> Any:
    """A JSON file's value; a file that cannot be read or is not JSON is one line naming it
    (``GenclError``)."""
    from gencl.errors import GenclError

    try:
        return json.loads(Path(path).read_text())
    except OSError as exc:
        raise GenclError(f"{path}: cannot read ({exc.strerror})") from None
    except ValueError as exc:
        raise GenclError(f"{path}: not JSON ({exc})") from None
