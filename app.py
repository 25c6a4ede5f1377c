"""ELECTRA Explainer: `python app.py` serves the app (a Hugging Face Space runs this file; --help lists the options).

The app is built in the package (explainer/ui/app.py) and served by its command line (explainer/launch.py,
the `electra-explainer` command); this file only hands over to them, and nothing in the package imports it.
"""

from explainer.launch import main


def __getattr__(name: str):  # `import app; app.demo` (gradio's reload mode, a notebook): the Blocks, built on first use
    from explainer.ui import app

    return getattr(app, name)


if __name__ == "__main__":
    raise SystemExit(main())
