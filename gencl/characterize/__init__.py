"""Characterize: measurements of one benchmark family → device characteristics (pure functions).

One module per family (``bandwidth.py``, ``occupancy.py``, …) registers its analysis by name.
"""

from gencl.characterize._registry import (
    ANALYSES, Analysis, AnalysisResult, Characteristic, analysis, get_analysis)

__all__ = ["ANALYSES", "Analysis", "AnalysisResult", "Characteristic", "analysis",
           "get_analysis"]
