"""ELECTRA's game on one sentence: mask -> generator proposals -> sample -> discriminator P(replaced).

    text -> tokens with offsets                    (`explainer.core.text.encode`)
    -> positions to corrupt: automatic (rate + seed, `training.objectives.mask_tokens`),
       chosen words (all their tokens become [MASK]), or none ("detect only": the user's text
       is the corrupted sentence and only the discriminator runs)
    -> generator logits at those positions          (`masked_lm_logits`)
    -> top-k proposals and one sampled replacement  (`training.objectives.corrupt`, softmax at temperature)
    -> corrupted ids -> discriminator logit per token -> P(replaced) = sigmoid(logit)
    -> truth per token: replaced iff corrupted != original (a sample equal to the original is
       labelled original, as in training).

Everything lands in one frozen `Explanation`, read by the renderer, the UI, the JSON export and
the CLI alike. Pure apart from the models it is handed; the same seed gives the same result.
`explain_many` runs several sentences in one batch (the server's micro-batching, explainer.core.batching).
Left out: attention maps.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

import torch

from explainer.core.text import Encoded, InputError, Word, blocked_ids, encode, group_words
from training.objectives import ELECTRA_MASKING, corrupt, detect, mask_tokens, masked_lm_logits

Mode = Literal["auto", "manual", "detect"]


@dataclass(frozen=True)
class Settings:
    mode: Mode = "auto"  # auto: mask_rate + seed; manual: mask_words; detect: judge the text as is
    mask_rate: float = 0.15  # fraction of non-special tokens selected (the paper's 15%)
    seed: int = 0  # masking and sampling; same seed, same result
    temperature: float = 1.0  # generator softmax temperature for proposals and the sample
    top_k: int = 5  # proposals shown per masked position
    mask_words: tuple[int, ...] = ()  # manual mode: indices into `Explanation.words`


@dataclass(frozen=True)
class Proposal:
    token: str
    token_id: int
    probability: float  # generator's softmax at the temperature
    is_original: bool  # the token that was there before masking


@dataclass(frozen=True)
class MaskedPosition:
    position: int  # token index
    original: str
    shown_as_mask: bool  # False: one of the 15% of selected tokens kept as they were (ELECTRA's official code; the paper masks them all)
    proposals: tuple[Proposal, ...]  # top-k, most likely first
    sampled: str  # the replacement drawn from the generator's softmax
    sampled_id: int
    sampled_probability: float
    replaced: bool  # sampled != original


@dataclass(frozen=True)
class Token:
    position: int
    original: str  # token string before corruption ("##ing" for a word piece)
    corrupted: str  # token the discriminator read
    start: int  # character span in the text; (0, 0) for [CLS]/[SEP]
    end: int
    special: bool
    masked: bool  # selected for corruption
    replaced: bool | None  # the truth; None in detect-only mode, where nobody knows
    p_replaced: float  # discriminator's sigmoid(logit)
    logit: float
    word: int | None  # index into `Explanation.words`; None for specials


@dataclass(frozen=True)
class WordResult:
    index: int
    start: int
    end: int
    text: str  # the original text of the word, exactly text[start:end]
    corrupted: str  # the word as the discriminator read it (replaced pieces spliced in)
    tokens: tuple[int, ...]
    p_replaced: float  # max over its tokens: a word is as suspicious as its most suspicious piece
    masked: bool
    replaced: bool | None


@dataclass(frozen=True)
class Explanation:
    text: str
    model: str
    settings: Settings
    tokens: tuple[Token, ...]
    words: tuple[WordResult, ...]
    masked: tuple[MaskedPosition, ...]
    original_ids: tuple[int, ...]
    corrupted_ids: tuple[int, ...]
    truncated: bool
    notices: tuple[str, ...]

    @property
    def most_suspicious(self) -> int:
        """Token position the discriminator rates most likely replaced (the default attribution target)."""
        return max((t for t in self.tokens if not t.special), key=lambda t: t.p_replaced).position

    def score(self, threshold: float = 0.5) -> dict[str, int]:
        """How the discriminator did against the truth (empty in detect-only mode)."""
        judged = [t for t in self.tokens if not t.special and t.replaced is not None]
        if not judged:
            return {}
        flagged = [t.p_replaced > threshold for t in judged]
        return {
            "replaced": sum(t.replaced for t in judged),
            "caught": sum(f and t.replaced for f, t in zip(flagged, judged)),
            "false_alarms": sum(f and not t.replaced for f, t in zip(flagged, judged)),
            "tokens": len(judged),
        }

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "most_suspicious": self.most_suspicious, "score": self.score()}


def _select(encoded: Encoded, words: tuple[Word, ...], settings: Settings, mask_id: int, vocab_size: int,
            rng: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, list[str]]:
    """(generator input ids (T,), selected positions (T,) bool, notices) for the chosen mode."""
    ids = torch.tensor(encoded.input_ids)  # (T,)
    special = torch.tensor(encoded.special)
    notices = []
    if settings.mode == "detect":
        return ids, torch.zeros_like(special), notices
    if settings.mode == "manual":
        chosen = [w for w in settings.mask_words if 0 <= w < len(words)]
        if len(chosen) < len(settings.mask_words):
            notices.append(f"Ignored word numbers outside 0-{len(words) - 1}.")
        selected = torch.zeros_like(special)
        for w in chosen:
            selected[list(words[w].tokens)] = True
        if not chosen:
            notices.append("No word chosen to mask: the discriminator judges the text unchanged.")
        return ids.masked_fill(selected, mask_id), selected, notices
    if settings.mode != "auto":
        raise ValueError(f"unknown mode {settings.mode!r}; choose auto, manual or detect")
    n = int((~special).sum())
    rate = settings.mask_rate
    if 0 < rate and round(n * rate) == 0:  # a short sentence: mask one token, so there is a game to see
        notices.append(f"{rate:.0%} of {n} tokens rounds to none; one token was masked instead.")
        rate = 1 / n
    config = dataclasses.replace(ELECTRA_MASKING, rate=min(max(rate, 0.0), 1.0))
    batch = mask_tokens(ids[None], special[None].long(), torch.ones_like(ids)[None], mask_id, vocab_size, config, rng)
    return batch.masked[0], batch.is_masked[0], notices


@dataclass
class _Prepared:
    """One sentence between tokenizing and the models: its masks drawn, its generator input ready."""

    encoded: Encoded
    words: tuple[Word, ...]
    settings: Settings
    rng: torch.Generator  # the sentence's own: its masks, then its samples
    original: torch.Tensor  # (T,)
    generator_input: torch.Tensor  # (T,)
    selected: torch.Tensor  # (T,) bool
    notices: list[str]


def _check(pair, settings: Settings) -> None:
    if settings.mode != "detect" and pair.generator is None:
        raise ValueError(f"{pair.name} has no generator: only detect-only mode works with it")
    if not settings.temperature > 0 or settings.top_k < 1 or not 0 <= settings.mask_rate <= 1:  # NaN fails too
        raise ValueError("temperature must be > 0, top-k >= 1 and the mask rate within 0-1")
    if not -2**63 <= settings.seed < 2**63:  # torch's generator takes a 64-bit seed
        raise ValueError("the seed must be a whole number between -2**63 and 2**63 - 1")


def _prepare(pair, text: str, settings: Settings) -> _Prepared:
    _check(pair, settings)
    tokenizer = pair.tokenizer
    encoded = encode(tokenizer, text, pair.max_tokens)
    words = group_words(encoded.text, encoded.offsets, encoded.special)
    rng = torch.Generator().manual_seed(settings.seed)
    generator_input, selected, notices = _select(encoded, words, settings, tokenizer.mask_token_id, len(tokenizer), rng)
    return _Prepared(encoded, words, settings, rng, torch.tensor(encoded.input_ids), generator_input, selected, notices)


def _padded(rows: list[torch.Tensor], fill) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows of different lengths as one (B, T) batch, and its attention mask (1 = a real token)."""
    width = max(len(r) for r in rows)
    batch = torch.full((len(rows), width), fill, dtype=rows[0].dtype)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        batch[i, :len(row)], attention[i, :len(row)] = row, 1
    return batch, attention


def _generate(pair, batch: list[_Prepared]) -> list[tuple[torch.Tensor, list[MaskedPosition]]]:
    """The generator over every sentence with masks at once; each draws its samples with its own rng."""
    tokenizer = pair.tokenizer
    out = [(p.original.clone(), []) for p in batch]
    todo = [i for i, p in enumerate(batch) if p.selected.any()]
    if not todo:
        return out
    inputs, attention = _padded([batch[i].generator_input for i in todo], tokenizer.pad_token_id)
    selected, _ = _padded([batch[i].selected for i in todo], False)
    logits, _ = masked_lm_logits(pair.generator, inputs, attention, selected)  # (M, V), sentence by sentence
    logits[:, blocked_ids(tokenizer)] = float("-inf")  # no offensive word is proposed or drawn
    rows = torch.split(logits, [int(batch[i].selected.sum()) for i in todo])
    for i, sentence_logits in zip(todo, rows):
        p = batch[i]
        fake = corrupt(p.original[None], p.selected[None], sentence_logits, p.settings.temperature, p.rng)
        probs, samples, corrupted = fake.probs, fake.samples, fake.ids[0]  # (M, V), (M,), (T,)
        top = probs.topk(min(p.settings.top_k, probs.shape[-1]), dim=-1)  # (M, k)
        masked = []
        for row, position in enumerate(p.selected.nonzero().squeeze(-1).tolist()):
            original_id, sample_id = int(p.original[position]), int(samples[row])
            proposals = tuple(
                Proposal(tokenizer.convert_ids_to_tokens(t), t, q, t == original_id)
                for t, q in zip(top.indices[row].tolist(), top.values[row].tolist())
            )
            masked.append(MaskedPosition(
                position, tokenizer.convert_ids_to_tokens(original_id),
                int(p.generator_input[position]) == tokenizer.mask_token_id, proposals,
                tokenizer.convert_ids_to_tokens(sample_id), sample_id, float(probs[row, sample_id]),
                sample_id != original_id,
            ))
        out[i] = (corrupted, masked)
    return out


@torch.no_grad()
def explain_many(pair, requests: list[tuple[str, Settings]]) -> list[Explanation | Exception]:
    """Several sentences through the game at once: one generator and one discriminator forward over the
    padded batch. Each keeps its own seed, so its masks and samples are the ones `explain` draws alone;
    its probabilities may differ from a lone run in the last float bits (padding changes the sums' order).
    A sentence that cannot run (empty, bad settings) gets its exception in its place; the others run."""
    # The models and the tokenizer are shared: captum may hold hooks on the models in another thread,
    # and a fast tokenizer keeps its truncation/padding settings in the shared Rust object (set per
    # call), so a concurrent call with other settings (the Classroom's sweep) could truncate this text.
    results: list[Explanation | Exception | None] = [None] * len(requests)
    ready, generated, disc_logits = [], [], None
    with pair.lock:
        for index, (text, settings) in enumerate(requests):
            try:
                ready.append((index, _prepare(pair, text, settings)))
            except (InputError, ValueError) as error:
                results[index] = error
        if ready:
            prepared = [p for _, p in ready]
            generated = _generate(pair, prepared)
            corrupted, attention = _padded([ids for ids, _ in generated], pair.tokenizer.pad_token_id)
            disc_logits = detect(pair.discriminator, corrupted, attention)[0].float()  # (B, T)
    for row, ((index, p), (ids, masked)) in enumerate(zip(ready, generated)):
        results[index] = _assemble(pair, p, ids, masked, disc_logits[row, :len(ids)])
    return results


def explain(pair, text: str, settings: Settings = Settings()) -> Explanation:
    """Run the whole game on `text` with `pair` (an `explainer.core.models.ModelPair`)."""
    (result,) = explain_many(pair, [(text, settings)])
    if isinstance(result, Exception):
        raise result
    return result


def _assemble(pair, p: _Prepared, corrupted: torch.Tensor, masked: list[MaskedPosition],
              disc_logits: torch.Tensor) -> Explanation:
    tokenizer, encoded, words = pair.tokenizer, p.encoded, p.words
    p_replaced = torch.sigmoid(disc_logits).tolist()
    truth = None if p.settings.mode == "detect" else (corrupted != p.original).tolist()  # 1 = replaced (paper)
    word_of = {position: w.index for w in words for position in w.tokens}
    original_tokens = tokenizer.convert_ids_to_tokens(encoded.input_ids)
    corrupted_tokens = tokenizer.convert_ids_to_tokens(corrupted.tolist())
    tokens = tuple(
        Token(i, original_tokens[i], corrupted_tokens[i], *encoded.offsets[i], encoded.special[i], bool(p.selected[i]),
              None if truth is None else bool(truth[i]), p_replaced[i], float(disc_logits[i]), word_of.get(i))
        for i in range(len(original_tokens))
    )
    return Explanation(
        encoded.text, pair.name, p.settings, tokens, tuple(_word_result(w, tokens, encoded.text) for w in words),
        tuple(masked), encoded.input_ids, tuple(corrupted.tolist()), encoded.truncated,
        encoded.notices + tuple(p.notices),
    )


def _word_result(word: Word, tokens: tuple[Token, ...], text: str) -> WordResult:
    pieces = [tokens[p] for p in word.tokens]
    # Unchanged pieces keep the user's own spelling (case, accents), with the characters the tokenizer
    # dropped around them (a trailing combining accent, a joiner); replaced ones show the new token.
    parts, cursor, after_replaced = [], word.start, False
    for t in pieces:
        if not after_replaced:
            parts.append(text[cursor:t.start])
        changed = t.corrupted != t.original
        parts.append(t.corrupted.removeprefix("##") if changed else text[t.start:t.end])
        cursor, after_replaced = t.end, changed
    if not after_replaced:
        parts.append(text[cursor:word.end])
    corrupted = "".join(parts)
    truth = [t.replaced for t in pieces]
    return WordResult(
        word.index, word.start, word.end, word.text, corrupted, word.tokens,
        max(t.p_replaced for t in pieces), any(t.masked for t in pieces),
        None if truth[0] is None else any(truth),
    )
