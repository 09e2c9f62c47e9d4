"""The model's pick: which variant it would run, where it cannot tell the fastest apart.

Variants priced within ``TIE_SHARE`` of the fastest prediction are a tie the model does not
order (the H200's Jacobi: 34 padded ``float4`` rows within 1 % of one another, all at the DRAM
term, measured 191–223 µs). Among them it picks the one whose terms sum lowest: the time were no
two of its units to overlap (``Prediction.serial_s``). The p-norm and the max that join the
terms are where the model is least sure (how far an L2 term under DRAM's still costs, what a
latency term under the bandwidth adds); the variant with the least work on every unit depends
least on them. Outside a tie the fastest prediction is the pick, whatever its sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: predictions this close to the model's fastest (a share of it) are a tie the model does not
#: order
TIE_SHARE = 0.01


def tied(rows: Sequence[Any], share: float = TIE_SHARE) -> list[Any]:
    """The rows (with ``predicted_s``) priced within *share* of the fastest prediction."""
    fastest = min(row.predicted_s for row in rows)
    return [row for row in rows if row.predicted_s <= fastest * (1 + share)]


def model_pick(rows: Sequence[Any], share: float = TIE_SHARE) -> Any:
    """The row the model picks: of those tied with the fastest prediction (``tied``), the one
    with the lowest ``serial_s`` (its terms' sum; rows without one count as 0, so the fastest
    prediction among them wins), the fastest prediction breaking an equal sum."""
    return min(tied(rows, share),
               key=lambda row: (getattr(row, "serial_s", 0.0), row.predicted_s))
