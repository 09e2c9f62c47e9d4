"""Profile: run the microbenchmark suite on a device → profile.json, summary.json, report.md, plots.

``gencl.load_profile(path)`` gives the typed ``DeviceProfile`` the model and the tuner read.
"""

from gencl.profile._compare import ComparisonRow, compare_profiles
from gencl.profile._profile import (
    PROFILE_FILE, SCHEMA_VERSION, SUMMARY_FILE, BenchmarkResult, DeviceProfile,
    ProfileCharacteristic, load_profile, save_profile, validate)
from gencl.profile._report import REPORT_FILE, render_report
from gencl.profile._suite import SUITE_GROUPS, SuiteEntry, discover_suite, run_profile
from gencl.profile._summary import MEASURED_KEYS, SUMMARY_KEYS

__all__ = ["MEASURED_KEYS", "PROFILE_FILE", "REPORT_FILE", "SCHEMA_VERSION", "SUITE_GROUPS",
           "SUMMARY_FILE", "SUMMARY_KEYS", "BenchmarkResult", "ComparisonRow", "DeviceProfile",
           "ProfileCharacteristic", "SuiteEntry", "compare_profiles", "discover_suite",
           "load_profile", "render_report", "run_profile", "save_profile", "validate"]

from gencl._callable import make_callable  # noqa: E402

make_callable(__name__, "profile")  # gencl.profile(...) is gencl.api.profile(...)
