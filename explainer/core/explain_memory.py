"""What an Explore request's generator work holds in memory, estimated before it runs, and the bound on a batch.

The generator's logits are computed at the masked positions only: one (blanks, vocabulary) block of float32 per
generator that runs, and about as much again for the softmax at the temperature and the sampling beside it
(COPIES). A blank the user typed runs both generators (the card lists the other one's guesses too). So

    bytes ~= blanks x vocabulary x 4 x COPIES x generators

512 typed blanks on a 30,522-word vocabulary are ~375 MB; 16 such requests in one batch were 6 GB of logits, and
the server reached 4.0 GB. The batcher (explainer/core/batching.py) therefore runs the waiting requests in parts:
each batch at most ELECTRA_EXPLAIN_MEMORY_MB (256) by this estimate, a request over it alone (one request is
bounded by the models' 512 tokens: at most ~375 MB on the bundled vocabulary).

The estimate needs no tokenizer (it runs before the models are free): the tokens are at most the text's
characters less its spaces (a token is at least one character; a typed [MASK] is one token), capped at the
models' 512; the blanks at most the masked share of those plus the typed ones.
"""

from __future__ import annotations

import math

from explainer.core.pipeline import Settings
from explainer.core.quotas import setting
from explainer.core.text import MAX_CHARS, TYPED_BLANK

MAX_TOKENS = 512  # the models' positions
COPIES = 3  # the logits, their softmax at the temperature, and the sampling's working copy
DEFAULT_BATCH_MB = 256


def batch_bytes() -> int:
    """ELECTRA_EXPLAIN_MEMORY_MB in bytes: the most one batch's generator work may hold; ValueError if not > 0."""
    megabytes = setting("ELECTRA_EXPLAIN_MEMORY_MB", DEFAULT_BATCH_MB, float, "a positive number of megabytes")
    return int(megabytes * 1e6)


def estimate_bytes(text: str, settings: Settings, vocabulary: int) -> int:
    """An upper estimate of the generator work of explaining `text` with `settings` (bytes); 0 in detect mode."""
    if not isinstance(text, str) or settings.mode == "detect":
        return 0
    text = text[:MAX_CHARS]
    typed = len(TYPED_BLANK.findall(text))
    tokens = min(MAX_TOKENS, 2 + sum(not c.isspace() for c in TYPED_BLANK.sub("#", text)))
    if settings.mode == "manual":
        blanks = tokens  # a word number may stand for several tokens: all of them, at most
    else:
        blanks = min(tokens, math.ceil(settings.mask_rate * tokens) + typed)
    return blanks * vocabulary * 4 * COPIES * (2 if typed else 1)
