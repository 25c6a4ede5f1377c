"""The `python -m explainer` subcommands, one module each; explainer/__main__.py builds the parser.

- explain.py: `explain` (one sentence, as Explore shows it: a table or JSON); `python -m explainer "text"` is
  short for `python -m explainer explain "text"`
- measure.py: `measure` (the classroom measure on sentence files, and the scenes it gets wrong)
- strength.py: `strength` (several generators against one discriminator: the study the Classroom draws)
- targets.py: `targets` (every shipping target for a pair, passed or failed)

These sit on top of the layers, as the entry points do: nothing in ui/, render/, lesson/ or core/ imports them.
"""
