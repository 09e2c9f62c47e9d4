"""Which kernels the model's terms were developed on, and which it only predicts (held out).

The terms (gencl.model._predict and its term modules) were shaped by looking at the measured
spaces of the kernels in ``DEVELOPED_ON``; every other kernel's accuracy is a prediction of a
kernel the model has never seen. The accuracy report and the simulation summaries name the
role of the kernel they score, so a good number on a kernel the terms were tuned to is not
mistaken for generalization.
"""

from __future__ import annotations

import json
from pathlib import Path

#: the registry: data beside the tuning kernels it names (tuning/model_developed_on.json in the
#: checkout gencl runs from), so no generic module names a kernel
REGISTRY = Path(__file__).resolve().parents[2] / "tuning" / "model_developed_on.json"


def _developed_on() -> frozenset[str]:
    """Kernels whose measured spaces were looked at while developing the terms (issue 15); none
    where the registry is absent (an install without the checkout: every kernel held out)."""
    try:
        return frozenset(json.loads(REGISTRY.read_text())["developed_on"])
    except OSError:
        return frozenset()


DEVELOPED_ON: frozenset[str] = _developed_on()


def model_role(spec_name: str) -> str:
    """``developed on`` for a kernel the terms were shaped on, else ``predicted (held out)``."""
    return "developed on" if spec_name in DEVELOPED_ON else "predicted (held out)"


def heldout_note() -> dict[str, list[str] | str]:
    """The registry as a summary records it."""
    return {"developed_on": sorted(DEVELOPED_ON),
            "predicted": "every other kernel (never looked at while developing the terms)"}
