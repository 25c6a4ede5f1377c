"""Can the generator fill in a blank? One content word hidden at a time, the rest of the sentence visible.

This is what a user meets first: Explore hides a word of a sentence they typed and shows the generator's
guesses and its draw. Over the content words of a list of sentences, it reports:
- `top1`, `top5`: the original word is the generator's best guess / among its five best;
- `outside_top5`: the share of draws at temperature T (1 unless given) that are none of its own five best
  guesses, the long tail a user sees as an arbitrary word;
- `piece_draws`: the share of draws that are a word piece (`##...`, which stands for no word of its own) or a
  special token ([CLS], [SEP], [MASK], [PAD], [UNK], [unused..]); the hidden word is a whole word, so a piece is
  always wrong there.

A content word is a word as training.words reads it (punctuation is a word of its own), made only of letters,
that the tokenizer keeps as one token, and not one of scikit-learn's English stop words. A word of several pieces
is left out: its first piece alone is no whole-word guess.

As in the app, offensive tokens are never proposed or drawn (`training.offensive`), unless `block_offensive`
is off. The logits are float32 whatever the weights' dtype; each draw uses its own seeded generator, so the
figures are the same on every run and in any batch size.

`heldout_sentences` picks a fixed sample of sentences from held-out documents, to judge a generator while it
trains without looking at any sentence the app shows.

Left out: words of several pieces; proper names are not told apart from other words (they are lowercased by
the bundled vocabulary like everything else).

    python -m training cloze assets/model assets/game_sentences.json   # the figures, as JSON
    python -m training cloze assets/stronger-generator assets/game_sentences.json --seeds 3
"""

from __future__ import annotations

import random
import sys
from dataclasses import asdict, dataclass

import torch

from training.objectives import draw, softmax
from training import words
from training.offensive import blocked_token_ids

HELDOUT_MIN_WORDS, HELDOUT_MAX_WORDS = 6, 40  # sentences people type: not headings, not run-on paragraphs


def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


@dataclass(frozen=True)
class Blank:
    """One content word of one sentence, hidden."""

    sentence: int  # index into the sentences
    word: str  # as written in the sentence (punctuation stripped)
    position: int  # its token's position in the encoded sentence ([CLS] is 0)
    token_id: int  # the original token


@dataclass(frozen=True)
class ClozeResult:
    top1: float  # share of blanks where the generator's best guess is the original word
    top5: float  # ... where the original word is among its five best guesses
    outside_top5: float  # share of the draws (at `temperature`) that are none of its five best guesses
    piece_draws: float  # share of the draws that are a word piece (##...) or a special token
    blanks: int  # content words hidden, one at a time
    sentences: int  # sentences that held at least one
    temperature: float
    seed: int


def content_words(tokenizer, sentences: list[str], max_length: int = 512) -> list[Blank]:
    """Every content word of every sentence (see the module's docstring), in order: its words as training.words
    reads them, kept where the word is letters only, no stop word, and one token spanning exactly the word."""
    stop = _stop_words()
    blanks = []
    for index, sentence in enumerate(sentences):
        aligned = words.align(tokenizer, sentence, max_length)
        for word in aligned.words:
            if len(word.tokens) != 1 or not word.text.isalpha() or word.text.lower() in stop:
                continue
            (position,) = word.tokens
            if aligned.offsets[position] == (word.start, word.end):  # one token, exactly the word
                blanks.append(Blank(index, word.text, position, aligned.input_ids[position]))
    return blanks


def _unwanted_draw_ids(tokenizer) -> torch.Tensor:
    """Token ids a whole word's draw must not be: word pieces and special tokens ([unused..] included)."""
    kinds = words.vocabulary_kinds(tokenizer)
    return torch.tensor([i for i, kind in enumerate(kinds) if kind in (words.PIECE, words.SPECIAL)], dtype=torch.long)


def cloze_rows(generator, tokenizer, sentences: list[str], temperature: float = 1.0, seed: int = 0,
               batch_size: int = 64, block_offensive: bool = True) -> list[dict]:
    """One row per content word: the sentence, the word, the generator's five best guesses and its draw."""
    return _rows_by_seed(generator, tokenizer, sentences, temperature, [seed], batch_size, block_offensive)[seed]


@torch.no_grad()
def _rows_by_seed(generator, tokenizer, sentences: list[str], temperature: float, seeds: list[int],
                  batch_size: int = 64, block_offensive: bool = True) -> dict[int, list[dict]]:
    """`cloze_rows` for each seed from one pass of the generator: only the draws differ between seeds."""
    if temperature <= 0:
        raise ValueError(f"temperature must be above 0, not {temperature}")
    max_length = generator.config.max_position_embeddings
    blanks = content_words(tokenizer, sentences, max_length)
    encoded = [tokenizer(s, truncation=True, max_length=max_length)["input_ids"] for s in sentences]
    blocked = torch.tensor(blocked_token_ids(tokenizer.get_vocab()), dtype=torch.long) if block_offensive else None
    was_training = generator.training
    generator.eval()  # dropout off: the same sentence always gives the same guesses
    rows = {seed: [] for seed in seeds}
    try:
        for start in range(0, len(blanks), batch_size):
            chunk = blanks[start:start + batch_size]
            length = max(len(encoded[b.sentence]) for b in chunk)
            ids = torch.full((len(chunk), length), tokenizer.pad_token_id, dtype=torch.long)  # (B, T)
            attention = torch.zeros_like(ids)
            for row, blank in enumerate(chunk):
                sentence = encoded[blank.sentence]
                ids[row, :len(sentence)] = torch.tensor(sentence)
                attention[row, :len(sentence)] = 1
                ids[row, blank.position] = tokenizer.mask_token_id
            positions = torch.tensor([b.position for b in chunk])
            logits = generator(input_ids=ids, attention_mask=attention).logits  # (B, T, V)
            logits = logits[torch.arange(len(chunk)), positions].float()  # (B, V)
            if blocked is not None and len(blocked):
                logits[:, blocked] = float("-inf")
            top5 = logits.topk(5, dim=-1).indices  # (B, 5)
            probs = softmax(logits, temperature)  # (B, V)
            for row, blank in enumerate(chunk):
                guesses = top5[row].tolist()
                guessed = {"sentence": sentences[blank.sentence], "word": blank.word,
                           "original": tokenizer.convert_ids_to_tokens(blank.token_id),
                           "top5": tokenizer.convert_ids_to_tokens(guesses),
                           "p_original": probs[row, blank.token_id].item(),
                           "top1_hit": guesses[0] == blank.token_id, "top5_hit": blank.token_id in guesses,
                           "sentence_index": blank.sentence}
                for seed in seeds:  # only the draw differs between seeds
                    # Each blank's own rng: its draw does not depend on which batch it fell in.
                    rng = torch.Generator().manual_seed(seed * 1_000_003 + start + row)
                    sample = int(draw(probs[row:row + 1], rng)[0])
                    rows[seed].append({**guessed, "draw": tokenizer.convert_ids_to_tokens(sample),
                                       "p_draw": probs[row, sample].item(), "draw_outside_top5": sample not in guesses,
                                       "sample_id": sample})
    finally:
        generator.train(was_training)
    return rows


def summarise(rows: list[dict], tokenizer, temperature: float = 1.0, seed: int = 0) -> ClozeResult:
    """The figures over `cloze_rows`' rows."""
    if not rows:
        raise ValueError("no content word to hide: the sentences hold no single-token word that is not a stop word")
    unwanted = set(_unwanted_draw_ids(tokenizer).tolist())
    n = len(rows)
    return ClozeResult(
        top1=sum(r["top1_hit"] for r in rows) / n,
        top5=sum(r["top5_hit"] for r in rows) / n,
        outside_top5=sum(r["draw_outside_top5"] for r in rows) / n,
        piece_draws=sum(r["sample_id"] in unwanted for r in rows) / n,
        blanks=n, sentences=len({r["sentence_index"] for r in rows}), temperature=temperature, seed=seed,
    )


def cloze(generator, tokenizer, sentences: list[str], temperature: float = 1.0, seed: int = 0,
          batch_size: int = 64, block_offensive: bool = True) -> ClozeResult:
    """The cloze figures of `generator` on `sentences` (see the module's docstring)."""
    rows = cloze_rows(generator, tokenizer, sentences, temperature, seed, batch_size, block_offensive)
    return summarise(rows, tokenizer, temperature, seed)


def over_seeds(generator, tokenizer, sentences: list[str], seeds: range | list[int], temperature: float = 1.0
               ) -> dict:
    """`cloze` for each seed (only the draws differ, so the generator runs once): the mean of each figure and
    each seed's result."""
    seeds = list(seeds)
    if not seeds:
        raise ValueError("no seed given")
    by_seed = _rows_by_seed(generator, tokenizer, sentences, temperature, seeds)
    results = [summarise(by_seed[seed], tokenizer, temperature, seed) for seed in seeds]
    mean = {key: sum(getattr(r, key) for r in results) / len(results)
            for key in ("top1", "top5", "outside_top5", "piece_draws")}
    return {**mean, "blanks": results[0].blanks, "sentences": results[0].sentences, "temperature": temperature,
            "seeds": list(seeds), "per_seed": [asdict(r) for r in results]}


def heldout_sentences(documents: tuple[str, ...] | list[str], n: int = 400, seed: int = 0) -> list[str]:
    """`n` sentences of 6-40 words from held-out `documents`, picked by `seed`, the same on every run: what
    a generator is judged on while it trains (never the sentences the app shows)."""
    from training.data import split_sentences

    pool = [s for doc in documents for s in split_sentences(doc)
            if HELDOUT_MIN_WORDS <= len(s.split()) <= HELDOUT_MAX_WORDS]
    if not pool:
        raise ValueError("the documents hold no sentence of 6 to 40 words")
    return random.Random(seed).sample(pool, min(n, len(pool)))


if __name__ == "__main__":  # the older spelling, handed to the one parser: python -m training cloze ...
    from training.__main__ import main

    main(["cloze", *sys.argv[1:]])
