"""The classroom measure: what a class sees when the Explore tab plays ELECTRA's game on its sentences.

Each sentence is run through Explore's own pipeline (`explainer.core.pipeline.explain_many`) at the
settings it shows (15% of the tokens selected, 85% of those shown as [MASK], samples at temperature 1),
once per seed; a "scene" is one sentence under one seed. Counted over the words Explore colours, as a
student reads them:

- recall: replaced words flagged (P(replaced) > 0.5, the verdict the page shows);
- false alarms: original words flagged;
- top word replaced: scenes whose highest-rated word is a replaced one, among the scenes where the
  generator replaced anything (a draw of the original token replaces nothing);
- draws outside the top 5: the generator's draws, at positions it saw as [MASK], that are not among the
  five guesses Explore lists: how often the fake is an odd word rather than a plausible one.

A miss is a scene with a replaced word whose top-rated word is an original one; `find_misses` lists each
with what the discriminator blamed instead, whether that word stands next to a replaced one (the
discriminator saw a clash but blamed its wrong side) and whether it is the sentence's last word.

Left out: attributions (they explain a verdict, they do not change it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

from explainer.core.pipeline import Explanation, Settings, WordResult, explain_many

THRESHOLD = 0.5  # the verdict Explore shows: P(replaced) above one half


@dataclass(frozen=True)
class ClassroomMeasure:
    sentences: int
    seeds: tuple[int, ...]
    scenes: int
    scenes_with_fakes: int  # scenes where at least one word was replaced
    replaced_words: int
    original_words: int
    recall: float  # replaced words flagged / replaced words
    false_alarm_rate: float  # original words flagged / original words
    top_word_replaced: float  # scenes whose top-rated word is replaced / scenes with fakes
    draws_outside_top5: float  # draws at [MASK] positions outside the generator's top 5 / those draws
    mean_p_replaced: float  # mean P(replaced) of the replaced words
    mean_p_original: float  # mean P(replaced) of the original words

    def to_dict(self) -> dict:
        return asdict(self)


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else float("nan")


def _judged(scene: Explanation) -> list[WordResult]:
    """The words whose truth is known (all of them, outside detect-only mode)."""
    return [w for w in scene.words if w.replaced is not None]


def _top_word(judged: Sequence[WordResult]) -> WordResult | None:
    """The highest-rated word, or None when nothing was replaced (then there is no ranking to judge)."""
    return max(judged, key=lambda w: w.p_replaced) if any(w.replaced for w in judged) else None


def score_scenes(scenes: Sequence[Explanation], sentences: int, seeds: tuple[int, ...]) -> ClassroomMeasure:
    """The measure over explained scenes (each with its truth: automatic or manual masking)."""
    flagged_fakes = fakes = flagged_originals = originals = top_hits = with_fakes = outside = draws = 0
    p_fake = p_original = 0.0
    for scene in scenes:
        judged = _judged(scene)
        for word in judged:
            flagged = word.p_replaced > THRESHOLD
            if word.replaced:
                fakes, flagged_fakes, p_fake = fakes + 1, flagged_fakes + flagged, p_fake + word.p_replaced
            else:
                originals, flagged_originals = originals + 1, flagged_originals + flagged
                p_original += word.p_replaced
        top = _top_word(judged)
        if top is not None:
            with_fakes += 1
            top_hits += top.replaced
        for position in scene.masked:
            if position.shown_as_mask:
                draws += 1
                outside += position.sampled_id not in {p.token_id for p in position.proposals[:5]}
    return ClassroomMeasure(
        sentences, seeds, len(scenes), with_fakes, fakes, originals,
        _ratio(flagged_fakes, fakes), _ratio(flagged_originals, originals), _ratio(top_hits, with_fakes),
        _ratio(outside, draws), _ratio(p_fake, fakes), _ratio(p_original, originals),
    )


@dataclass(frozen=True)
class Miss:
    """A scene whose top-rated word is an original one."""
    seed: int
    shown: str  # the sentence as the discriminator read it (replaced pieces spliced in)
    blamed: str  # the original word rated highest
    blamed_p: float
    fakes: tuple[tuple[str, str, float], ...]  # each replaced word: (as shown, original, P(replaced))
    next_to_fake: bool  # the blamed word's neighbour (the word before or after it) is a replaced one
    last_word: bool  # the blamed word is the sentence's last word (punctuation aside)

    def line(self) -> str:
        fakes = ", ".join(f"{shown!r} (was {original!r}) {p:.0%}" for shown, original, p in self.fakes)
        where = [w for w, on in (("next to a fake", self.next_to_fake), ("last word", self.last_word)) if on]
        return (f"seed {self.seed}: {self.shown}\n    blamed {self.blamed!r} {self.blamed_p:.0%}"
                f"{' (' + ', '.join(where) + ')' if where else ''}; replaced: {fakes}")


def _shown(scene: Explanation) -> str:
    parts, cursor = [], 0
    for word in scene.words:
        parts += [scene.text[cursor:word.start], word.corrupted]
        cursor = word.end
    return "".join(parts + [scene.text[cursor:]])


def find_misses(scenes: Sequence[Explanation]) -> list[Miss]:
    """Every scene with a replaced word whose top-rated word is an original one, in the scenes' order."""
    misses = []
    for scene in scenes:
        judged = _judged(scene)
        top = _top_word(judged)
        if top is None or top.replaced:
            continue
        replaced = {w.index for w in judged if w.replaced}
        wordlike = [w.index for w in judged if any(c.isalnum() for c in w.text)]
        misses.append(Miss(
            scene.settings.seed, _shown(scene), top.text, top.p_replaced,
            tuple((w.corrupted, w.text, w.p_replaced) for w in judged if w.replaced),
            bool({top.index - 1, top.index + 1} & replaced), bool(wordlike) and top.index == wordlike[-1],
        ))
    return misses


def play(pair, sentences: Sequence[str], seeds: Sequence[int] = range(5), settings: Settings = Settings(),
         batch_size: int = 16) -> list[Explanation]:
    """Explore's game on every sentence under every seed, at `settings` (Explore's defaults): the scenes.
    A sentence the pipeline refuses (empty, say) raises its error: a measure must not skip text silently."""
    settings = replace(settings, mode="auto", top_k=max(settings.top_k, 5))
    requests = [(text, replace(settings, seed=seed)) for seed in seeds for text in sentences]
    scenes: list[Explanation] = []
    for start in range(0, len(requests), batch_size):
        for result in explain_many(pair, requests[start:start + batch_size]):
            if isinstance(result, Exception):
                raise result
            scenes.append(result)
    return scenes


def classroom_measure(pair, sentences: Sequence[str], seeds: Sequence[int] = range(5),
                      settings: Settings = Settings(), batch_size: int = 16) -> ClassroomMeasure:
    """Explore's game on every sentence under every seed, at `settings` (Explore's defaults), scored."""
    return score_scenes(play(pair, sentences, seeds, settings, batch_size), len(sentences), tuple(seeds))
