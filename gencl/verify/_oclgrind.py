"""oclgrind: run variants on the simulator with race and uninitialized-read detection.

oclgrind reads ``OCLGRIND_*`` settings when its platform loads, so the checks run in a child
process (``python -m gencl.verify._oclgrind``) with the environment set before pyopencl starts.
The child writes one JSON line per variant to stdout and brackets each launch with marker lines on
stderr; oclgrind's diagnostics land between the markers and are attributed to that variant.
A variant that hangs is killed after its time limit and the remaining ones run in a fresh child.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from gencl.generate import Variant

ENV = {"OCLGRIND_DATA_RACES": "1", "OCLGRIND_UNINITIALIZED": "1"}
BEGIN, END = "@@gencl-verify-begin", "@@gencl-verify-end"

#: Finding kinds a spec may declare in ``BenchmarkSpec.exempt``; anything else always fails.
KINDS = (("race", re.compile(r"data race", re.I)),
         ("uninitialized", re.compile(r"uninitiali[sz]ed", re.I)),
         ("out_of_bounds", re.compile(r"invalid (read|write|access)|out of bounds", re.I)))


def classify(header: str) -> str:
    for kind, pattern in KINDS:
        if pattern.search(header):
            return kind
    return "other"


def parse_findings(stderr: str) -> list[dict[str, Any]]:
    """oclgrind's diagnostics in *stderr*, grouped by message (addresses folded).

    A diagnostic is a flush-left line followed by tab-indented detail lines (Kernel, Entity, the
    source line). Returns ``[{"kind", "message", "count", "detail"}]`` in order of appearance.
    """
    lines = stderr.splitlines()
    groups: dict[str, dict[str, Any]] = {}
    for k, line in enumerate(lines):
        if not line.strip() or line[0].isspace() or line.startswith("@@gencl"):
            continue
        if k + 1 >= len(lines) or not lines[k + 1].startswith("\t"):
            continue
        key = re.sub(r"0x[0-9a-f]+", "0x…", line.strip())
        if key not in groups:
            detail = []
            for more in lines[k + 1:k + 12]:
                if not more.startswith("\t"):
                    break
                detail.append(more.strip())
            groups[key] = {"kind": classify(key), "message": key, "count": 0,
                           "detail": " | ".join(d for d in detail if d)[:600]}
        groups[key]["count"] += 1
    return list(groups.values())


def split_by_variant(stderr: str) -> dict[str, str]:
    """stderr text between each variant's begin and end markers, by variant id."""
    out: dict[str, str] = {}
    current = None
    for line in stderr.splitlines(keepends=True):
        if line.startswith(BEGIN):
            current = line.split()[1]
            out[current] = ""
        elif line.startswith(END):
            current = None
        elif current is not None:
            out[current] += line
    return out


#: the source line of a global vector written one lane at a time (``g[…].s1 = sqrt(…)``: loopy
#: emits a call's lanes so). oclgrind reports its store as an uninitialized value written: the
#: compiler builds the vector from its lanes over an undefined start, and oclgrind's shadow keeps
#: that start's mark though every lane is written (a six-line hand-written kernel storing a vector
#: so is reported the same; docs/tuning.md, "Kernels a user brings")
LANE_STORE = re.compile(r"(?:^|\| )\w+\[[^|]*\]\.s[0-9a-f] = ")


def judge(findings: Sequence[Mapping[str, Any]], exempt: frozenset[str] | set[str]
          ) -> tuple[list[str], list[str]]:
    """(failures, exempted) messages: race/uninitialized findings pass only if declared, or
    where an uninitialized value is reported written at a lane-by-lane vector store
    (``LANE_STORE``; the numerics check, on oclgrind too, covers every lane of it)."""
    failures: list[str] = []
    exempted: list[str] = []
    for f in findings:
        text = f"oclgrind {f['kind']}: {f['message']} (×{f['count']}) {f['detail']}"
        lane_store = (f["kind"] == "uninitialized" and "written to global memory" in f["message"]
                      and LANE_STORE.search(f["detail"]))
        if lane_store:
            text += " [a vector stored lane by lane: oclgrind's mark of its undefined start]"
        (exempted if lane_store or (f["kind"] in exempt and f["kind"] in ("race", "uninitialized"))
         else failures).append(text)
    return failures, exempted


def _spec_ref(spec: Any) -> dict[str, str]:
    """How the child finds the spec: its file, or (built in memory) the pickled spec."""
    if isinstance(spec, str) or getattr(spec, "path", None):
        return {"spec": spec if isinstance(spec, str) else spec.path}
    import base64
    import pickle

    try:
        return {"spec_pickle": base64.b64encode(pickle.dumps(spec)).decode()}
    except Exception as exc:  # noqa: BLE001 -- lambdas, closures: say what to do instead
        from gencl.errors import GenclError

        raise GenclError(f"{spec.name}: an in-memory spec the oclgrind process cannot receive "
                         f"({type(exc).__name__}: {exc}); write it to a file") from None


def run_under_oclgrind(spec_path: Any, variants: Sequence[Variant], *, seed: int = 0,
                       timeout_s: float = 120.0,
                       exempt: frozenset[str] | set[str] = frozenset()
                       ) -> dict[str, dict[str, Any]]:
    """Run *variants* of the spec (its path, or the spec itself) on oclgrind; by variant id.

    A spec that exempts ``uninitialized`` runs without oclgrind's uninitialized-value plugin:
    its findings would be exempted anyway, and the plugin cannot follow image memory (oclgrind
    21.10 reports every value read from an image as uninitialized, crashes on float4 image
    reads, stops at LLVM's ``freeze``); the race and bounds checks run as for every spec.
    Each result: ``{"sizes", "ran", "matched", "max_error", "failure", "skipped", "findings"}``.
    """
    results: dict[str, dict[str, Any]] = {}
    todo = list(variants)
    while todo:
        job = json.dumps({**_spec_ref(spec_path), "seed": seed,
                          "variants": [v.to_json() for v in todo]}, default=str)
        env = {**os.environ, **ENV, "GENCL_DEVICE": "oclgrind"}
        if "uninitialized" in exempt:
            env.pop("OCLGRIND_UNINITIALIZED")
        proc = subprocess.Popen([sys.executable, "-m", "gencl.verify._oclgrind"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)
        try:
            stdout, stderr = proc.communicate(job, timeout=timeout_s * len(todo) + 30)
            timed_out = False
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            timed_out = True
        segments = split_by_variant(stderr)
        for line in stdout.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            record["findings"] = parse_findings(segments.get(record["variant_id"], ""))
            results[record.pop("variant_id")] = record
        rest = [v for v in todo if v.id not in results]
        if not rest:
            break
        stuck = rest[0]  # the child works in order: the first one without a result stopped it
        failure, skipped = None, None
        if timed_out:
            failure = f"oclgrind run exceeded {timeout_s * len(todo) + 30:.0f} s (hung?)"
        elif proc.returncode is not None and proc.returncode < 0:
            # the simulator itself crashed: the variant is unchecked by oclgrind, not wrong
            skipped = f"oclgrind crashed (signal {-proc.returncode}); not checked by oclgrind"
        else:
            failure = (f"oclgrind child exited with status {proc.returncode}: "
                       f"{_tail(segments.get(stuck.id) or stderr)}")
        results[stuck.id] = {"sizes": {}, "ran": False, "matched": False, "max_error": None,
                             "failure": failure, "skipped": skipped,
                             "findings": parse_findings(segments.get(stuck.id, ""))}
        todo = rest[1:]
    return results


def _tail(text: str, n: int = 300) -> str:
    return " ".join(text.strip().splitlines()[-4:])[-n:]


def _child() -> int:
    """The child process: read the job from stdin, check each variant on oclgrind."""
    from gencl.measure import OpenCLEngine
    from gencl.spec import load_spec
    from gencl.verify._numerics import run_numerics, small_sizes

    job = json.loads(sys.stdin.read())
    if "spec_pickle" in job:
        import base64
        import pickle

        spec = pickle.loads(base64.b64decode(job["spec_pickle"]))  # noqa: S301 -- our own parent
    else:
        spec = load_spec(job["spec"], check_program=False)
    engine = OpenCLEngine("oclgrind", timeout_s=600)
    for data in job["variants"]:
        variant = Variant.from_json(data)
        sizes = small_sizes(spec, variant.point, engine.info)
        sys.stderr.write(f"\n{BEGIN} {variant.id}\n")
        sys.stderr.flush()
        outcome = run_numerics(engine, spec, variant, sizes, seed=job["seed"])
        engine.queue.finish()
        sys.stderr.flush()
        sys.stderr.write(f"\n{END} {variant.id}\n")
        sys.stderr.flush()
        error = outcome.max_error
        print(json.dumps({"variant_id": variant.id, "sizes": sizes, "ran": outcome.ran,
                          "matched": outcome.matched,
                          "max_error": None if error is None or error == float("inf") else error,
                          "failure": outcome.failure, "skipped": outcome.skipped}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_child())
