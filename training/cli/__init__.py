"""The `python -m training` subcommands, one module per group; training/__main__.py builds the parser.

- flags.py: TrainConfig's fields as flags (pretrain, compare), their types read from the annotations
- pretrain.py: `pretrain` and `compare` (the trainer with a progress bar)
- race.py: `race` (RTD vs MLM on one budget, several seeds) and `record` (a race as a replayable record)
- trained.py: `finetune`, `evaluate`, `watch` and `export` (what a trained pair is worth, a long run's
  learning curve, and shipping it)
- corpus.py: `corpus fetch` and `corpus stats` (the broad English corpus's sources)
- measure.py: `cloze`, `guesses` and `rarity` (what a generator guesses for a hidden word)
"""
