"""The stand-alone build's entry point: the app in its window (what a double-click on the executable should do).

Options pass through (`--port`, `--help`, `--install-launcher`); the build bundles app.py as the module `app`,
which explainer/launch.py imports.
"""

import sys

from explainer.launch import main

if __name__ == "__main__":
    sys.exit(main(["--desktop", *sys.argv[1:]]))
