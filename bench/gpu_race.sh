#!/usr/bin/env bash
# The borrowed GPU's one command for a race (docs/gpu-race.md): from the repository root, with $OUT set.
#   bash bench/gpu_race.sh [BUNDLE [flags of `bench/gpu_race.py run`]]     BUNDLE: runs/gpu-bundle by default
# Everything it prints also goes to $OUT/log.txt, line by line; bench/gpu_race.py writes the rest of $OUT (6 files
# in all), and writes them again as it goes, so that a call killed at its timeout still returns what was done.
# GPU_RACE_SECONDS (default 525, under a call's timeout_s of 540) bounds the Python run itself: at that point it is
# sent SIGTERM, writes its files and ends (killed 20 s later if it has not). Its own deadline (--deadline-minutes,
# 8.5 by default, counted from this script's start) normally ends the race well before.
set -uo pipefail
: "${OUT:?set OUT to the folder whose files come back}"
STARTED=$(date +%s.%N)  # --minutes and the deadline count from here: Python's start-up is part of the call
BUNDLE=${1:-runs/gpu-bundle}
shift $(( $# > 0 ? 1 : 0 ))
export PYTHONPATH=. PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export ELECTRA_CACHE="${ELECTRA_CACHE:-${TMPDIR:-/tmp}/electra-cache}"
mkdir -p "$OUT"
{
  date -u +"start %Y-%m-%dT%H:%M:%SZ"
  timeout 20 nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version,clocks.max.sm --format=csv 2>&1 \
    || echo "no nvidia-smi"
  timeout --signal=TERM --kill-after=20 "${GPU_RACE_SECONDS:-525}" \
    "${PYTHON:-python3}" bench/gpu_race.py run --bundle "$BUNDLE" --out "$OUT" --started "$STARTED" "$@"
  status=$?
  [ "$status" -eq 124 ] && echo "stopped after GPU_RACE_SECONDS=${GPU_RACE_SECONDS:-525} s: the files hold what was done"
  date -u +"end %Y-%m-%dT%H:%M:%SZ (exit $status)"
  exit $status
} 2>&1 | tee "$OUT/log.txt"
