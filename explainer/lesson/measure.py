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

Left out: attributions (they explain a verdict, they do not change it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

from explainer.core.pipeline import Explanation, Settings, explain_many

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


def score_scenes(scenes: Sequence[Explanation], sentences: int, seeds: tuple[int, ...]) -> ClassroomMeasure:
    """The measure over explained scenes (each with its truth: automatic or manual masking)."""
    flagged_fakes = fakes = flagged_originals = originals = top_hits = with_fakes = outside = draws = 0
    p_fake = p_original = 0.0
    for scene in scenes:
        judged = [w for w in scene.words if w.replaced is not None]
        for word in judged:
            flagged = word.p_replaced > THRESHOLD
            if word.replaced:
                fakes, flagged_fakes, p_fake = fakes + 1, flagged_fakes + flagged, p_fake + word.p_replaced
            else:
                originals, flagged_originals = originals + 1, flagged_originals + flagged
                p_original += word.p_replaced
        if any(w.replaced for w in judged):
            with_fakes += 1
            top_hits += max(judged, key=lambda w: w.p_replaced).replaced
        for position in scene.masked:
            if position.shown_as_mask:
                draws += 1
                outside += position.sampled_id not in {p.token_id for p in position.proposals[:5]}
    return ClassroomMeasure(
        sentences, seeds, len(scenes), with_fakes, fakes, originals,
        _ratio(flagged_fakes, fakes), _ratio(flagged_originals, originals), _ratio(top_hits, with_fakes),
        _ratio(outside, draws), _ratio(p_fake, fakes), _ratio(p_original, originals),
    )


def classroom_measure(pair, sentences: Sequence[str], seeds: Sequence[int] = range(5),
                      settings: Settings = Settings(), batch_size: int = 16) -> ClassroomMeasure:
    """Explore's game on every sentence under every seed, at `settings` (Explore's defaults), scored.
    A sentence the pipeline refuses (empty, say) raises its error: a measure must not skip text silently."""
    settings = replace(settings, mode="auto", top_k=max(settings.top_k, 5))
    requests = [(text, replace(settings, seed=seed)) for seed in seeds for text in sentences]
    scenes: list[Explanation] = []
    for start in range(0, len(requests), batch_size):
        for result in explain_many(pair, requests[start:start + batch_size]):
            if isinstance(result, Exception):
                raise result
            scenes.append(result)
    return score_scenes(scenes, len(sentences), tuple(seeds))
