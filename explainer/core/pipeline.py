"""ELECTRA's game on one sentence: mask -> generator proposals -> sample -> discriminator P(replaced).

    text -> tokens with offsets                    (`explainer.core.text.encode`)
    -> positions to corrupt: automatic (rate + seed, `training.objectives.mask_tokens`),
       chosen words (all their tokens become [MASK]), or none ("detect only": the user's text
       is the corrupted sentence and only the discriminator runs)
    -> generator logits at those positions          (`masked_lm_logits`)
    -> top-k proposals and one sampled replacement  (`training.objectives.corrupt`, softmax at temperature;
       never a vocabulary internal such as [UNK] or "[unused667]": `explainer.core.internals`)
    -> corrupted ids -> discriminator logit per token -> P(replaced) = sigmoid(logit)
    -> truth per token: replaced iff corrupted != original (a sample equal to the original is
       labelled original, as in training).

Which generator forges (`Settings.generator`): the pair's own ("electra", the default) or the stronger one
(explainer.core.generators); the one discriminator judges both. A blank the user typed ([MASK], any case,
explainer.core.text) is a position the generator fills in every mode that runs it: always selected, never one of
the automatic draw's candidates, labelled replaced once filled (nobody wrote a word there), and its card also holds
the other generator's top guesses when that one can forge for this pair. In detect-only mode nothing fills it: a
notice says so, and it is never the most suspicious word. A fake is shown with the capitals of the word it replaced
(`WordResult.corrupted`; the models read the uncased tokens as before).

Everything lands in one frozen `Explanation`, read by the renderer, the UI, the JSON export and
the CLI alike. Pure apart from the models it is handed; the same seed gives the same result.
`explain_many` runs several sentences in one batch (the server's micro-batching, explainer.core.batching). Left out:
attention maps.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

import torch

from explainer.core import generators, internals
from explainer.core.kinds import standing_alone, token_kinds, unfair_fakes
from explainer.core.text import Encoded, InputError, Word, as_read, blocked_ids, encode
from training.words import readable_ids
from training.objectives import ELECTRA_MASKING, corrupt, detect, mask_tokens, masked_lm_logits, selected_count, softmax

Mode = Literal["auto", "manual", "detect"]


@dataclass(frozen=True)
class Settings:
    mode: Mode = "auto"  # auto: mask_rate + seed; manual: mask_words; detect: judge the text as is
    mask_rate: float = 0.15  # fraction of non-special tokens selected (the paper's 15%)
    seed: int = 0  # masking and sampling; same seed, same result
    temperature: float = 1.0  # generator softmax temperature for proposals and the sample
    top_k: int = 5  # proposals shown per masked position
    mask_words: tuple[int, ...] = ()  # manual mode: indices into `Explanation.words`
    generator: str = generators.ELECTRA  # who forges: "electra" (the pair's own) or "stronger"
    same_kind: bool = False  # the game and the class: draw only a fair fake (explainer.core.kinds): an English word
    # for a word, a number for a number, punctuation for punctuation; Explore keeps ELECTRA's exact draw
    whole_words: bool = False  # the game and the class (auto mode): mask only a word that is one token by itself or
    # a punctuation mark, never a piece of a longer word; as many as before (fewer if the sentence has too few)


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
    shown_as_mask: bool  # False: one of the 15% chosen but kept as it was (ELECTRA's code; the paper masks all)
    proposals: tuple[Proposal, ...]  # top-k, most likely first
    sampled: str  # the replacement drawn from the generator's softmax
    sampled_id: int
    sampled_probability: float
    replaced: bool  # sampled != original
    typed: bool = False  # a blank the user typed: nothing was there before
    others: tuple[Proposal, ...] = ()  # at a typed blank: the other generator's top-k (when it can forge here)
    others_generator: str = ""  # that generator's key


@dataclass(frozen=True)
class Token:
    position: int
    original: str  # token before corruption, as people read it (training.words.readable: "-ing" for a piece)
    corrupted: str  # token the discriminator read
    start: int  # character span in the text; (0, 0) for [CLS]/[SEP]
    end: int
    special: bool
    masked: bool  # selected for corruption
    replaced: bool | None  # the truth; None in detect-only mode, where nobody knows
    p_replaced: float  # discriminator's sigmoid(logit)
    logit: float
    word: int | None  # index into `Explanation.words`; None for specials
    blank: bool = False  # a blank the user typed


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
    blank: bool = False  # holds a blank the user typed (filled by the generator, unless detect-only)


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
        """Token position the discriminator rates most likely replaced (the default attribution target); an
        unfilled blank (detect-only) is no candidate: nobody wrote a word there to judge."""
        words = [t for t in self.tokens if not t.special]
        judged = [t for t in words if not (t.blank and t.corrupted == t.original)] or words
        return max(judged, key=lambda t: t.p_replaced).position

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


BLANK_IN_DETECT = ("A blank you typed ([MASK]) cannot be judged: nobody wrote a word there. Fill it in yourself, "
                   "or choose another mode, where the generator fills it.")


def _select(encoded: Encoded, words: tuple[Word, ...], settings: Settings, mask_id: int, vocab_size: int,
            rng: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, list[str]]:
    """(generator input ids (T,), selected positions (T,) bool, notices) for the chosen mode. Typed blanks are
    always selected (outside detect-only) and never among the automatic draw's candidates, so a sentence
    without one draws exactly as before."""
    ids = torch.tensor(encoded.input_ids)  # (T,)
    special = torch.tensor(encoded.special)
    blank = (ids == mask_id) & ~special  # (T,) typed blanks
    notices = []
    if settings.mode == "detect":
        if blank.any():
            notices.append(BLANK_IN_DETECT)
        return ids, torch.zeros_like(special), notices
    if settings.mode == "manual":
        chosen = [w for w in settings.mask_words if 0 <= w < len(words)]
        if len(chosen) < len(settings.mask_words):
            notices.append(f"Ignored word numbers outside 0-{len(words) - 1}.")
        selected = blank.clone()
        for w in chosen:
            selected[list(words[w].tokens)] = True
        if not chosen and not blank.any():
            notices.append("No word chosen to mask: the discriminator judges the text unchanged.")
        return ids.masked_fill(selected, mask_id), selected, notices
    if settings.mode != "auto":
        raise ValueError(f"unknown mode {settings.mode!r}; choose auto, manual or detect")
    candidates = ~special & ~blank
    n = int(candidates.sum())
    if n == 0:  # nothing but blanks: the generator fills them, nothing else to draw
        return ids, blank, notices
    rate = settings.mask_rate
    if 0 < rate and round(n * rate) == 0 and not blank.any():  # a short sentence: mask one token, so there is a game
        notices.append(f"{rate:.0%} of {n} tokens rounds to none; one token was masked instead.")
        rate = 1 / n
    config = dataclasses.replace(ELECTRA_MASKING, rate=min(max(rate, 0.0), 1.0))
    count = None  # Explore: round(rate x n) of all the candidates, as ELECTRA
    if settings.whole_words:  # as many, from the words that stand alone; the same rng, so the same seed rule
        count = selected_count(torch.tensor([n]), config.rate)
        candidates &= standing_alone(encoded.kinds, words)
        if int(candidates.sum()) < int(count):
            notices.append(f"{int(candidates.sum())} masked, not {int(count)}: too few words of one token here.")
    batch = mask_tokens(ids[None], (~candidates)[None].long(), torch.ones_like(ids)[None], mask_id, vocab_size, config,
                        rng, count)
    return batch.masked[0], batch.is_masked[0] | blank, notices


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
    blank: torch.Tensor  # (T,) bool: blanks the user typed
    generator: object | None  # the model that forges (None in detect-only mode)
    others: object | None  # the other generator, for a typed blank's second set of guesses (None: none can)


def sentence_words(pair, text: str) -> tuple[Encoded, list[Word]]:
    """`text` as `pair`'s tokenizer reads it, and its words: the one way the app numbers a sentence's words
    (Explore's ticks, the game's word lists, round B's edits). Under `pair.lock`: the fast tokenizer keeps its
    truncation settings in the shared Rust object, set per call. InputError for a text that cannot be read."""
    with pair.lock:
        encoded = encode(pair.tokenizer, text, pair.max_tokens)
    return encoded, list(encoded.words)


def _check(pair, settings: Settings) -> None:
    generators.check(settings.generator)
    if not settings.temperature > 0 or settings.top_k < 1 or not 0 <= settings.mask_rate <= 1:  # NaN fails too
        raise ValueError("temperature must be > 0, top-k >= 1 and the mask rate within 0-1")
    if not -2**63 <= settings.seed < 2**63:  # torch's generator takes a 64-bit seed
        raise ValueError("the seed must be a whole number between -2**63 and 2**63 - 1")


def _prepare(pair, text: str, settings: Settings) -> _Prepared:
    _check(pair, settings)
    tokenizer = pair.tokenizer
    encoded = encode(tokenizer, text, pair.max_tokens)  # the caller holds pair.lock
    words = encoded.words
    rng = torch.Generator().manual_seed(settings.seed)
    generator = None if settings.mode == "detect" else generators.generator_for(pair, settings.generator)
    generator_input, selected, notices = _select(encoded, words, settings, tokenizer.mask_token_id, len(tokenizer), rng)
    original = torch.tensor(encoded.input_ids)
    blank = selected & (original == tokenizer.mask_token_id)
    others = None
    if blank.any():
        try:
            others = generators.generator_for(pair, generators.other(settings.generator))
        except (ValueError, OSError):  # not installed, or not for this vocabulary: the card shows one set
            others = None
    return _Prepared(encoded, words, settings, rng, original, generator_input, selected, notices, blank, generator,
                     others)


def _padded(rows: list[torch.Tensor], fill) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows of different lengths as one (B, T) batch, and its attention mask (1 = a real token)."""
    width = max(len(r) for r in rows)
    batch = torch.full((len(rows), width), fill, dtype=rows[0].dtype)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        batch[i, :len(row)], attention[i, :len(row)] = row, 1
    return batch, attention


def _logits(pair, model, batch: list[_Prepared], where: list[torch.Tensor]) -> list[torch.Tensor]:
    """`model`'s vocabulary logits at the positions `where` marks, one (M_i, V) block per sentence; offensive
    words blocked, and, at a typed blank, the special tokens too (a blank is filled with a word)."""
    tokenizer = pair.tokenizer
    inputs, attention = _padded([p.generator_input for p in batch], tokenizer.pad_token_id)
    marked, _ = _padded(where, False)
    logits, _ = masked_lm_logits(model, inputs, attention, marked)  # (M, V), sentence by sentence
    logits[:, blocked_ids(tokenizer)] = float("-inf")  # no offensive word is proposed or drawn
    blank_rows = torch.cat([p.blank[w] for p, w in zip(batch, where)])  # (M,)
    if any(p.settings.same_kind for p in batch):
        chosen = [(p.original[w], p.blank[w], p.settings.same_kind) for p, w in zip(batch, where)]
        logits[unfair_fakes(tokenizer, chosen)] = float("-inf")
    if blank_rows.any():
        specials = torch.tensor(tokenizer.all_special_ids)
        logits[blank_rows.nonzero()[:, :1], specials[None]] = float("-inf")
    return list(torch.split(logits, [int(w.sum()) for w in where]))


def _by_model(batch: list[_Prepared], model_of) -> dict[int, tuple[object, list[int]]]:
    groups: dict[int, tuple[object, list[int]]] = {}
    for i, p in enumerate(batch):
        model = model_of(p)
        if model is not None:
            groups.setdefault(id(model), (model, []))[1].append(i)
    return groups


def _proposals(tokenizer, probs: torch.Tensor, k: int, original_id: int) -> tuple[Proposal, ...]:
    return tuple(Proposal(token, t, q, t == original_id) for token, t, q in internals.guesses(tokenizer, probs, k))


def _generate(pair, batch: list[_Prepared]) -> list[tuple[torch.Tensor, list[MaskedPosition]]]:
    """Each generator over its sentences with masks at once; each sentence draws its samples with its own rng.
    A typed blank's card also gets the other generator's guesses (no draw: the rng is the forger's alone)."""
    tokenizer = pair.tokenizer
    out = [(p.original.clone(), []) for p in batch]
    logits_of: dict[int, torch.Tensor] = {}
    for model, members in _by_model(batch, lambda p: p.generator if p.selected.any() else None).values():
        chosen = [batch[i] for i in members]
        logits_of.update(zip(members, _logits(pair, model, chosen, [p.selected for p in chosen])))
    others_of: dict[int, torch.Tensor] = {}
    for model, members in _by_model(batch, lambda p: p.others if p.blank.any() else None).values():
        chosen = [batch[i] for i in members]
        others_of.update(zip(members, _logits(pair, model, chosen, [p.blank for p in chosen])))
    for i, sentence_logits in logits_of.items():
        p = batch[i]
        fake = corrupt(p.original[None], p.selected[None], sentence_logits, p.settings.temperature, p.rng)
        # no [UNK] nor "[unused667]": drawn again only where ELECTRA's draw hit one (explainer.core.internals)
        probs, samples = internals.redraw(tokenizer, sentence_logits, fake.samples, p.settings.temperature, p.rng)
        corrupted = fake.ids[0].masked_scatter(p.selected, samples)  # (T,)
        blank_probs = iter(softmax(others_of[i], p.settings.temperature)) if i in others_of else None
        other_key = generators.other(p.settings.generator)
        masked = []
        for row, position in enumerate(p.selected.nonzero().squeeze(-1).tolist()):
            original_id, sample_id = int(p.original[position]), int(samples[row])
            typed = bool(p.blank[position])
            others = ()
            if typed and blank_probs is not None:
                others = _proposals(tokenizer, next(blank_probs), p.settings.top_k, original_id)
            masked.append(MaskedPosition(
                position, readable_ids(tokenizer, [original_id])[0],
                int(p.generator_input[position]) == tokenizer.mask_token_id,
                _proposals(tokenizer, probs[row], p.settings.top_k, original_id),
                readable_ids(tokenizer, [sample_id])[0], sample_id, float(probs[row, sample_id]),
                sample_id != original_id, typed, others, other_key if others else "",
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
    original_tokens = readable_ids(tokenizer, encoded.input_ids)
    corrupted_tokens = readable_ids(tokenizer, corrupted.tolist())
    kinds = token_kinds(tokenizer)
    drawn_kinds = [kinds[i] for i in corrupted.tolist()]
    tokens = tuple(
        Token(i, original_tokens[i], corrupted_tokens[i], *encoded.offsets[i], encoded.special[i], bool(p.selected[i]),
              None if truth is None else bool(truth[i]), p_replaced[i], float(disc_logits[i]), word_of.get(i),
              not encoded.special[i] and encoded.input_ids[i] == tokenizer.mask_token_id)
        for i in range(len(original_tokens))
    )
    return Explanation(
        encoded.text, pair.name, p.settings, tokens,
        tuple(_word_result(w, tokens, encoded.text, drawn_kinds) for w in words),
        tuple(masked), encoded.input_ids, tuple(corrupted.tolist()), encoded.truncated,
        encoded.notices + tuple(p.notices),
    )


def _word_result(word: Word, tokens: tuple[Token, ...], text: str, drawn_kinds: list[str]) -> WordResult:
    pieces = [tokens[p] for p in word.tokens]
    truth = [t.replaced for t in pieces]
    return WordResult(
        word.index, word.start, word.end, word.text, as_read(word, pieces, text, drawn_kinds), word.tokens,
        max(t.p_replaced for t in pieces), any(t.masked for t in pieces),
        None if truth[0] is None else any(truth), any(t.blank for t in pieces),
    )
