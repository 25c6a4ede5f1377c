#!/usr/bin/env bash
# Installs what the benchmarks need on a fresh clone (the test requirements, then the third-party ELECTRA
# wrapper train_throughput.py compares with) and runs every benchmark's smoke mode: a check that each
# one runs here, in seconds to a few minutes, not a measurement. Run from anywhere: bash bench/smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d .venv ] || python3 -m venv .venv
. .venv/bin/activate
pip install -q -r requirements-bench.txt
# electra-pytorch 0.1.2 declares a dependency on the deprecated `sklearn` package, whose install refuses to
# run ("use scikit-learn"); the wrapper itself imports only torch, so it goes in without its dependencies.
pip install -q --no-deps -r requirements-bench-nodeps.txt
export PYTHONPATH=. GRADIO_ANALYTICS_ENABLED=False HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
set -x
python bench/train_throughput.py --preset tiny --steps 2 --batch-size 2
python bench/train_throughput.py --preset tiny --steps 2 --batch-size 2 --precision bf16
python bench/discriminator_phase.py --smoke
python bench/generator_phase.py --smoke
python bench/explain_latency.py --models tiny --repeats 3 --ig-repeats 2 --matrix-steps 10
python bench/page_explain.py --model tiny --repeats 5
python bench/page_load.py --model tiny --pages 2
python bench/load.py --model tiny --clients 3 --calls 2
python bench/class_load.py --students 3 --pause 0 1
python bench/abuse.py --students 3 --only top_k
python bench/huge_body.py --mb 5 --only explain
python bench/fair_fakes.py --seeds 1
python bench/race_search.py table
python bench/gpu_race.py bundle --out runs/smoke-gpu-bundle --tokenizer wordpiece:1000 --max-documents 200
OUT=runs/smoke-gpu-race PYTHON=python bash bench/gpu_race.sh runs/smoke-gpu-bundle --preset tiny --device cpu \
  --batch-sizes 8 --lr 2e-3 --probe-train 200 --probe-test 100 --probes 2 --budget-flops 2e9
