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

#: kernels whose measured spaces were looked at while developing the terms (issue 15): data
#: beside this module (developed_on.json), so no generic module names a kernel
DEVELOPED_ON: frozenset[str] = frozenset(json.loads(
    (Path(__file__).with_name("developed_on.json")).read_text())["developed_on"])


def model_role(spec_name: str) -> str:
    """``developed on`` for a kernel the terms were shaped on, else ``predicted (held out)``."""
    return "developed on" if spec_name in DEVELOPED_ON else "predicted (held out)"


def heldout_note() -> dict[str, list[str] | str]:
    """The registry as a summary records it."""
    return {"developed_on": sorted(DEVELOPED_ON),
            "predicted": "every other kernel (never looked at while developing the terms)"}
