#!/usr/bin/env bash
# The borrowed GPU's one command for a race (docs/gpu-race.md): from the repository root, with $OUT set.
#   bash bench/gpu_race.sh [BUNDLE [flags of `bench/gpu_race.py run`]]     BUNDLE: runs/gpu-bundle by default
# Everything it prints also goes to $OUT/log.txt; bench/gpu_race.py writes the rest of $OUT (6 files in all).
set -uo pipefail
: "${OUT:?set OUT to the folder whose files come back}"
BUNDLE=${1:-runs/gpu-bundle}
shift $(( $# > 0 ? 1 : 0 ))
export PYTHONPATH=. PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export ELECTRA_CACHE="${ELECTRA_CACHE:-${TMPDIR:-/tmp}/electra-cache}"
mkdir -p "$OUT"
{
  date -u +"start %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>&1 || echo "no nvidia-smi"
  "${PYTHON:-python3}" bench/gpu_race.py run --bundle "$BUNDLE" --out "$OUT" "$@"
  status=$?
  date -u +"end %Y-%m-%dT%H:%M:%SZ (exit $status)"
  exit $status
} 2>&1 | tee "$OUT/log.txt"
