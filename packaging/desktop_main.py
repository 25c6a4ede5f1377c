"""The stand-alone build's entry point: the app in its window (what a double-click on the executable should do).

Options pass through (`--port`, `--help`, `--install-launcher`, `--version`); explainer/launch.py builds the
app by importing explainer/ui/app.py, which the build bundles.
"""

import sys

from explainer.launch import main

if __name__ == "__main__":
    sys.exit(main(["--desktop", *sys.argv[1:]]))
