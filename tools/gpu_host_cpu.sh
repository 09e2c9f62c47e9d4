#!/usr/bin/env bash
# The CPU of the GPU host as a quiet CPU device: PyPI's PoCL 3.0 on its 16 vCPUs.
#
# Here (a machine that reaches PyPI):   bash tools/gpu_host_cpu.sh wheel
#   downloads pocl-binary-distribution 3.0 and repacks it into .whl-cpu/ with only the avx512,
#   avx2 and sse2 kernel libraries (58 → 46 MB), so that it, ../shared/gpu's .whl and the tree fit
#   the device tool's 64 MiB (move bench_results/ aside for the call: it is not needed there).
# There (after ../shared/gpu/prelude.sh; carry .whl, .whl-cpu and .cpu-run):
#   SPACE_S=300 TOTAL_S=560 bash tools/gpu_host_cpu.sh run
#   resumes .cpu-run/ (the Jacobi n=1024 slice, then the profile; PROFILE_ARGS=--quick for the
#   quick suite) until TOTAL_S seconds, and packs it into $OUT/cpu-run.tgz. Bring .cpu-run back
#   from the tarball before the next call; copy the finished files to bench_results/pocl-local-cpu.
#   To add benchmarks to the committed quick profile (the slice is complete since 2026-11-26):
#   mkdir -p .cpu-run/jacobi .cpu-run/profile && touch .cpu-run/probe.done &&
#   cp bench_results/pocl-local-cpu/jacobi/space.json .cpu-run/jacobi/ &&
#   cp -r bench_results/pocl-local-cpu/{profile.json,summary.json,raw} .cpu-run/profile/
#   then PROFILE_ARGS="--quick --only NAME" SPACE_S=0 (without SPACE_S=0 the space step did not
#   take the committed slice for finished on 2026-11-28 and re-timed 121 of its 450 points, same
#   sources, in its 150 s before the profile ran; those were not kept).
#   SAMPLE=K (and SAMPLE_S, its deadline) also measures K random points of the whole Jacobi space
#   (every block_x, block_y) into .cpu-run/jacobi-sample, resumable the same way.
set -u
case "${1:-}" in
wheel)
  tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux2014_x86_64 -d "$tmp" pocl-binary-distribution==3.0
  mkdir -p "$tmp/x" .whl-cpu && (cd "$tmp/x" && unzip -q "$tmp"/pocl_binary_distribution-*.whl)
  share="$tmp/x/pocl_binary_distribution/.libs/share/pocl"
  find "$share" -name 'kernel-*.bc' ! -name '*-avx512.bc' ! -name '*-avx2.bc' ! -name '*-sse2.bc' \
    -delete
  record=$(ls "$tmp"/x/*.dist-info/RECORD)
  grep -v '\.bc,' "$record" > "$tmp/record" || true
  (cd "$tmp/x" && ls pocl_binary_distribution/.libs/share/pocl/*.bc) | sed 's/$/,,/' >> "$tmp/record"
  cp "$tmp/record" "$record"
  (cd "$tmp/x" && zip -q -r -9 "$OLDPWD/.whl-cpu/$(basename "$tmp"/pocl_binary_distribution-*.whl)" .)
  rm -rf "$tmp"; ls -la .whl-cpu ;;
run)
  # its own target: pip will not put the library beside the pyopencl of ../shared/gpu's wheels
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/pocl .whl-cpu/*.whl
  echo /tmp/pocl/pyopencl/.libs/libpocl-*.so > /tmp/icd/pocl.icd
  W=.cpu-run; mkdir -p "$W"; start=$(date +%s)
  left() { echo $(( start + $1 - $(date +%s) )); }
  if [ ! -f "$W/probe.done" ]; then
    { lscpu; uptime; date -u; } > "$W/host.txt" 2>&1
    python3 -m gencl devices > "$W/devices.txt" 2>&1
    for i in 1 2 3; do  # the same variant three times: does the host repeat itself?
      python3 -m gencl run jacobi --device pocl --knob boundary=padded --knob vector_width=1 \
        --knob workgroup=64,8 --knob block_x=1 --knob block_y=1 --knob local=none \
        --knob sweeps=1 --knob dtype=float32 --size n=1024 --json "$W/repeat$i.json" \
        > "$W/repeat$i.txt" 2>&1
    done
    touch "$W/probe.done"
  fi
  cat "$W/devices.txt"; tail -qn 2 "$W"/repeat*.txt
  if [ "${SPACE_S:-300}" -gt 0 ]; then  # SPACE_S=0: the profile alone
    timeout "$(left "${SPACE_S:-300}")" python3 -m gencl space jacobi --device pocl --size n=1024 \
      --knob dtype=float32 --knob block_x=1 --knob block_y=1 --out "$W/jacobi" 2>&1 | tail -5
  fi
  if [ -n "${SAMPLE:-}" ]; then  # SAMPLE=K: K random points of the whole space (blocked rows too)
    timeout "$(left "${SAMPLE_S:-400}")" python3 -m gencl space jacobi --device pocl --size n=1024 \
      --knob dtype=float32 --sample "$SAMPLE" --peers no --out "$W/jacobi-sample" 2>&1 | tail -3
  fi
  timeout "$(left "${TOTAL_S:-560}")" python3 -m gencl profile --device pocl --no-clpeak \
    ${PROFILE_ARGS:-} --out "$W/profile" 2>&1 | tail -20
  tar czf "$OUT/cpu-run.tgz" "$W" ;;
*) echo "usage: $0 wheel|run" >&2; exit 2 ;;
esac
