"""Ways and sets of a cache whose set index is hashed: a minimal eviction set (spec
``fine_chase``, level ``L1_full``, stage ``ways``).

With ``line mod T`` a stride of T lines puts every line of a ring into one set, and N(S) = W
(``cache_geometry``); a hashed index spreads the ring of every stride over many sets, so no
stride shows the ways (the H200's L1: N(S) = 1736 lines at every power of two 128 B … 32 KiB).
What holds for any index function (Vila, Köpf & Morales, "Theory and practice of finding
eviction sets", S&P 2019): a ring that does not fit (some set gets more lines than its ways)
holds a *minimal* ring that does not fit, one that fits once any line is dropped; that is W + 1
lines of one set (a line of another set could be dropped, and so could one of W + 2). So
W = its size − 1, and the sets T = capacity (lines) / W.

``fits(lines) -> bool`` is the all-hit test of ``cache_geometry`` on a ring of those lines
(warm passes, then timed whole passes; any replacement policy that fills free ways first: a ring
with ≤ W lines in every set hits from the second pass on, W + 1 lines of one set miss at least
once in every pass).

The reduction is group testing by binary splitting (Hwang's generalized binary splitting, the
form of Vila et al.'s group testing that needs no associativity up front): the candidates are
kept in one order; the smallest prefix that does not fit together with the lines found so far
is bisected, its last line is a line of the congruent set (without it the rest fits), it is
kept and every candidate after it dropped (one group per step). That costs ⌈log2 n⌉ tests per
line of the set, (W + 1)·log2 n in all, where dropping one of G groups at a time (Vila's
reduction) costs O(W²·log n): in simulation (W = 8, 217 sets, n = 1.1·capacity) ≈ 80 tests
against 130 (G raised as needed) or 360 (G split anew after each drop). Then the confirmation,
down to single lines: the set does not fit, and every set of it with one line less fits (a
line whose removal keeps it not fitting is dropped and the confirmation starts again).

Everything here is a pure function of ``fits``: the spec's runner drives it with the device,
the analysis replays it from the recorded outcomes (``Replay``), the tests with simulated
caches of known geometry.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize.cache_geometry import all_hit

Fits = Callable[[Sequence[int]], bool]
#: ring_probe(line numbers, line bytes, threshold cycles, warm passes, info) → run: one launch
#: walking a ring of those lines in that order; *info* (repetition, test, fingerprint, …) goes
#: into the run as it is, for the replay
RingProbe = Callable[[Sequence[int], int, float, int, Mapping[str, Any]], Mapping[str, Any]]
#: the stage of the eviction-set tests among a level's runs
STAGE = "ways"
#: rings up to this many lines are kept in their runs (the confirmation's, the set found)
KEEP_RING = 64


def ring_crc(lines: Sequence[int]) -> int:
    """A short fingerprint of a ring's lines, in order (the replay's check of each test)."""
    return zlib.crc32(np.asarray(lines, dtype=np.int64).tobytes())


# {{{ the reduction

def minimal_eviction_set(pool: Sequence[int], fits: Fits, *, budget: int = 400
                         ) -> dict[str, Any]:
    """A minimal ring of *pool*'s lines that does not fit, by binary splitting, confirmed.

    Returns ``lines`` (the set, in the order found), ``confirmed`` (it does not fit, and every
    subset of one line less fits), ``tests`` (calls of *fits*), and ``why`` when unconfirmed.
    At most *budget* tests (then ``why`` says so)."""
    tests = 0

    class _Budget(Exception):
        pass

    def test(ring: Sequence[int]) -> bool:
        nonlocal tests
        if not ring:
            return True  # nothing to hold: no launch
        if tests >= budget:
            raise _Budget
        tests += 1
        return bool(fits(list(ring)))

    # states (found, rest, checked): found + rest does not fit (checked: tested as such, not
    # only inferred); a test that contradicts a state sends the search back to the one before
    stack: list[tuple[list[int], list[int], bool]] = []
    found: list[int] = []
    try:
        pool = list(pool)
        if test(pool):
            return {"lines": [], "confirmed": False, "tests": tests,
                    "why": f"the starting ring of {len(pool)} lines fits"}
        stack.append(([], pool, True))
        while stack:
            found, rest, checked = stack[-1]
            lo, hi = -1, len(rest)  # found + rest[:lo] fits (lo = -1: not known), [:hi] not
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if test(found + rest[:mid]):
                    lo = mid
                else:
                    hi = mid
            if hi == len(rest) and rest and not checked:
                if test(found + rest):
                    stack.pop()  # the step that made this state read a fitting ring as not
                    continue
                stack[-1] = (found, rest, True)
            if hi > 0:  # rest[hi - 1] completes a set: keep it, drop what follows
                stack.append((found + [rest[hi - 1]], rest[:hi - 1], False))
                continue
            # the lines found do not fit on their own: confirm, down to single lines
            if test(found):
                stack.pop()
                continue
            for i in range(len(found)):
                if not test(found[:i] + found[i + 1:]):
                    stack.append((found[:i] + found[i + 1:], [], True))
                    break
            else:
                return {"lines": found, "confirmed": True, "tests": tests}
        return {"lines": [], "confirmed": False, "tests": tests,
                "why": f"the starting ring of {len(pool)} lines fit when the reduction came "
                       f"back to it"}
    except _Budget:
        return {"lines": found, "confirmed": False, "tests": tests,
                "why": f"stopped at the budget of {budget} tests"}

# }}}


# {{{ starting rings

def starting_pools(capacity_lines: int, region_lines: int, repeats: int, *, seed: int = 0,
                   excess: float = 0.1) -> list[dict[str, Any]]:
    """*repeats* starting rings of ⌈(1 + *excess*)·capacity⌉ random lines (line numbers) of a
    region of *region_lines* lines, in random order, each from its own draw.

    Random lines, not consecutive ones: a hash that spreads consecutive lines evenly (the
    H200's) fills every set at once as a consecutive ring nears the capacity, and a random
    replacement policy that starts from another ring's lines may take more than the warm
    passes to settle all of them (a ring that fits read as one that does not); random lines
    load the sets unevenly, so the first set overflows well below the capacity and the
    reduction's rings fill one set, not all."""
    size = min(region_lines, math.ceil((1 + excess) * capacity_lines))
    rng = np.random.default_rng(seed)
    return [{"pool": [int(x) for x in rng.choice(region_lines, size, replace=False)],
             "from": f"{size} random lines of {region_lines} (draw {k}), in random order"}
            for k in range(repeats)]


def eviction_sets(pools: Sequence[Mapping[str, Any]], fits_of: Callable[[int], Fits], *,
                  budget: int = 400) -> list[dict[str, Any]]:
    """``minimal_eviction_set`` from each starting ring; *fits_of(rep)* tests rings of
    repetition *rep* (the runner records each test under it, the replay reads them back)."""
    return [{**minimal_eviction_set(p["pool"], fits_of(rep), budget=budget), "from": p["from"]}
            for rep, p in enumerate(pools)]

def explore_ways(pools: Sequence[Mapping[str, Any]], probe: RingProbe, line_bytes: int,
                 threshold: float, warm: int, *, budget: int = 400) -> list[Mapping[str, Any]]:
    """Run the reduction from each starting ring with *probe* as the test (all-hit, the rule
    of ``cache_geometry``); every run made is returned, each with its repetition ``rep``, its
    ``test`` number, the ``ring_crc`` of its ring (and the ring itself when short), the first
    of each repetition with its starting ``pool`` and the ``budget``: what ``replay_ways``
    needs to redo the reduction."""
    runs: list[Mapping[str, Any]] = []

    def fits_of(rep: int) -> Fits:
        count = 0

        def fits(lines: Sequence[int]) -> bool:
            nonlocal count
            info: dict[str, Any] = {"stage": STAGE, "rep": rep, "test": count,
                                    "ring_crc": ring_crc(lines)}
            if count == 0:
                info.update(pool=[int(x) for x in pools[rep]["pool"]],
                            pool_from=pools[rep]["from"], budget=budget)
            if len(lines) <= KEEP_RING:
                info["ring"] = [int(x) for x in lines]
            count += 1
            run = probe(lines, line_bytes, threshold, warm, info)
            runs.append(run)
            return all_hit(run)
        return fits

    eviction_sets(pools, fits_of, budget=budget)
    return runs


def replay_ways(runs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The reductions redone from recorded runs (stage ``ways``): each test's outcome read
    again from its slow accesses (``all_hit``), in order; ``diverged`` when the reduction asks
    for other rings than those recorded (the rule changed, or records are missing)."""
    by_rep: dict[int, list[Mapping[str, Any]]] = {}
    for r in runs:
        if r.get("stage") == STAGE:
            by_rep.setdefault(int(r["rep"]), []).append(r)
    reps = [sorted(by_rep[k], key=lambda r: int(r["test"])) for k in sorted(by_rep)]
    reps = [tests for tests in reps if tests and "pool" in tests[0]]
    if not reps:
        return []
    replays = [Replay(tests, all_hit) for tests in reps]
    pools = [{"pool": tests[0]["pool"], "from": tests[0].get("pool_from", "")} for tests in reps]
    out = []
    for rep, (p, tests) in enumerate(zip(pools, reps)):
        got = minimal_eviction_set(p["pool"], replays[rep],
                                   budget=int(tests[0].get("budget", len(tests))))
        got["from"] = p["from"]
        if replays[rep].diverged or replays[rep].i != len(tests):
            got["confirmed"] = False
            got["why"] = ("the recorded tests do not replay: " + (replays[rep].diverged or
                          f"{replays[rep].i} of {len(tests)} asked for"))
        out.append(got)
    return out

# }}}


# {{{ reading the sets

def ways_and_sets(found: Sequence[Mapping[str, Any]], capacity_lines: float | None
                  ) -> dict[str, Any]:
    """Ways (the confirmed sets' size − 1, when every confirmed repetition agrees and at least
    two are confirmed) and sets = capacity / ways; ``ways_why`` otherwise."""
    sizes = [len(f["lines"]) for f in found]
    done = [len(f["lines"]) - 1 for f in found if f.get("confirmed")]
    out: dict[str, Any] = {"set_sizes": sizes, "confirmed": [bool(f.get("confirmed"))
                                                             for f in found],
                           "tests": [int(f["tests"]) for f in found]}
    why = [f"repetition {i}: {f['why']}" for i, f in enumerate(found) if f.get("why")]
    if len(done) >= 2 and len(set(done)) == 1 and done[0] >= 1:
        out["ways"] = done[0]
        if capacity_lines:
            out["sets"] = capacity_lines / done[0]
    elif len(set(done)) > 1:
        why.insert(0, f"the confirmed minimal sets disagree: {sizes} lines")
    else:
        why.insert(0, f"{len(done)} of {len(found)} repetitions confirmed (2 needed)")
    if "ways" not in out:
        out["ways_why"] = "; ".join(why)
    return out


def shared_bits(line_numbers: Sequence[int], line_bytes: int) -> dict[str, Any]:
    """Address bits (byte offsets in the buffer) that the lines of one set share: the bits
    equal in every line, and the rank over GF(2) of their differences (informative: the
    offsets are virtual, within one buffer)."""
    addrs = [int(n) * line_bytes for n in line_numbers]
    if len(addrs) < 2:
        return {}
    top = max(addrs).bit_length()
    low = int(math.log2(line_bytes))
    diffs = [a ^ addrs[0] for a in addrs[1:]]
    varying = 0
    for d in diffs:
        varying |= d
    same = [b for b in range(low, top) if not varying >> b & 1]
    return {"offsets": addrs, "bits_equal": same,
            "bits_varying": [b for b in range(low, top) if varying >> b & 1],
            "difference_rank": _gf2_rank(diffs)}


def _gf2_rank(vectors: Sequence[int]) -> int:
    basis: list[int] = []
    for v in vectors:
        for b in basis:
            v = min(v, v ^ b)
        if v:
            basis.append(v)
    return len(basis)


class Replay:
    """A ``fits`` that answers from recorded tests, in order, each checked to be the ring the
    reduction asks for (size and ``ring_crc``); ``diverged`` says where it stopped matching."""

    def __init__(self, tests: Sequence[Mapping[str, Any]], outcome: Callable[[Any], bool]):
        self.tests, self.outcome, self.i = list(tests), outcome, 0
        self.diverged: str | None = None

    def __call__(self, lines: Sequence[int]) -> bool:
        if self.i >= len(self.tests):
            self.diverged = self.diverged or f"test {self.i} asked for, {len(self.tests)} recorded"
            return True
        t = self.tests[self.i]
        if int(t["lines"]) != len(lines) or int(t["ring_crc"]) != ring_crc(lines):
            self.diverged = self.diverged or (
                f"test {self.i}: the reduction asks for {len(lines)} lines, the record holds "
                f"{t['lines']} others")
        self.i += 1
        return self.outcome(t)

# }}}
