"""The Explore page in a real browser: how long a fresh page takes to show its first verdict, and how
long the first sentence a visitor runs then takes to show.

Starts `python app.py` on a free port (as bench/load.py does, offline, `--model` as its default
model), then opens `--pages` fresh pages one after another in Debian's Chromium driven by
Playwright, after one untimed page that warms the server. For each page: the seconds from `goto` to
the first example's verdict, and, straight after (or after `--idle` seconds), the seconds from
pressing the button on a new sentence to its verdict. Medians are printed.

The second figure is what a visitor feels first. It includes whatever the browser still has to do
for the page's first result (a chart library loading, say), not only the server's answer.

    PYTHONPATH=. .venv/bin/python bench/page_load.py                        # bundled, 5 pages
    PYTHONPATH=. .venv/bin/python bench/page_load.py --model tiny --pages 2 # smoke test
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from load import PROJECT, free_port, prepare_model, stop_server, wait_for_page  # bench/load.py

CHROMIUM = "/usr/bin/chromium"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="bundled", help='"bundled", "tiny", "small", or a folder')
    parser.add_argument("--pages", type=int, default=5)
    parser.add_argument("--idle", type=float, default=0.0, help="seconds to wait on the page before the run")
    parser.add_argument("--startup-timeout", type=float, default=300)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    scratch = Path(tempfile.mkdtemp(prefix="electra-page-load-"))
    model_env, described = prepare_model(args.model, scratch)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    env = {**os.environ, **model_env, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "ELECTRA_RACE_DIR": str(scratch / "races")}
    log = scratch / "server.log"
    with open(log, "wb") as out:
        server = subprocess.Popen([sys.executable, "app.py"], cwd=PROJECT, env=env, stdout=out,
                                  stderr=subprocess.STDOUT)
    first, run = [], []
    try:
        wait_for_page(url, server, args.startup_timeout, log)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            for index in range(args.pages + 1):  # page 0 warms the server and is not counted
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                start = time.perf_counter()
                page.goto(url)
                page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=120_000)
                shown = time.perf_counter() - start
                page.wait_for_timeout(1000 * args.idle)
                word = f"chef{index}"
                page.locator("#explore-text textarea").fill(f"The {word} cooked a delicious meal for the guests.")
                start = time.perf_counter()
                page.locator("#explore-run").click()
                page.wait_for_function(f"() => document.querySelector('#explore-verdict').innerText.includes('{word}')",
                                       timeout=120_000)
                if index:
                    first.append(shown)
                    run.append(time.perf_counter() - start)
                page.close()
            browser.close()
    finally:
        stop_server(server)
    print(f"model: {described}; {args.pages} fresh pages in Chromium, idle {args.idle:g} s before the run")
    print(f"first verdict after goto: median {statistics.median(first):.2f} s (max {max(first):.2f})")
    print(f"the visitor's first run:  median {statistics.median(run):.2f} s (max {max(run):.2f})")


if __name__ == "__main__":
    main()
