"""training.downstream.cloze: which words are hidden, the four figures on generators whose guesses are known,
seeded draws, offensive tokens never drawn, held-out sentences, and the targets read from it."""

from __future__ import annotations

import json
from dataclasses import asdict
from types import SimpleNamespace

import pytest
import torch
from transformers import ElectraConfig, ElectraForMaskedLM

from explainer.lesson import targets
from training.downstream import cloze, guesses
from training.offensive import blocked_token_ids
from training.__main__ import main
from training.tokenizer import PACKAGED, load_tokenizer


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer(PACKAGED)  # the bundled model's vocabulary, offline


class Fixed(torch.nn.Module):
    """A 'generator' whose logits are the same at every position: `scores` {token id: logit}, -30 elsewhere."""

    def __init__(self, vocab_size: int, scores: dict[int, float]):
        super().__init__()
        self.config = SimpleNamespace(max_position_embeddings=512, vocab_size=vocab_size)
        self.row = torch.full((vocab_size,), -30.0)
        for token, logit in scores.items():
            self.row[token] = logit

    def forward(self, input_ids, attention_mask):
        return SimpleNamespace(logits=self.row.expand(*input_ids.shape, -1).clone())  # (B, T, V)


def ids(tokenizer, *tokens):
    return [tokenizer.convert_tokens_to_ids(t) for t in tokens]


def test_content_words_are_single_token_letter_words_that_are_not_stop_words(tokenizer):
    sentences = ["The old fisherman repaired his boat.", "Unbelievably, she didn't sing 42 songs!", "", "Hi"]
    blanks = cloze.content_words(tokenizer, sentences)
    assert [(b.sentence, b.word) for b in blanks] == [(0, "old"), (0, "fisherman"), (0, "repaired"), (0, "boat"),
                                                      (1, "sing"), (1, "songs"), (3, "Hi")]
    # "Unbelievably" is five pieces, "didn't" is no letter word, "42" no word, "The"/"his"/"she" stop words.
    encoded = tokenizer(sentences[0])["input_ids"]
    assert all(encoded[b.position] == b.token_id for b in blanks if b.sentence == 0)
    assert tokenizer.convert_ids_to_tokens(blanks[1].token_id) == "fisherman" and blanks[1].position == 3


def test_the_four_figures_on_a_generator_whose_guesses_are_known(tokenizer):
    boat, old, piece = ids(tokenizer, "boat", "old", "##s")
    # Its best guess is the word piece "##s" (drawn almost surely), then "boat", "old" and two more words.
    generator = Fixed(len(tokenizer),
                      {piece: 20.0, boat: 5.0, old: 4.9, **dict.fromkeys(ids(tokenizer, "car", "tree"), 4.8)})
    sentences = ["The old fisherman repaired his boat.", "A boat sailed by the old pier."]
    result = cloze.cloze(generator, tokenizer, sentences)
    # Words: old fisherman repaired boat | boat sailed old pier ("The", "his", "A", "by", "the": stop words).
    assert result.blanks == 8 and result.sentences == 2
    assert result.top1 == 0.0  # its best guess is "##s", whatever the word
    assert result.top5 == pytest.approx(4 / 8)  # "boat" x2 and "old" x2 are among its five best
    assert result.piece_draws == 1.0 and result.outside_top5 == 0.0  # "##s" is drawn, and is its best guess

    plain = Fixed(len(tokenizer), {boat: 5.0, old: 4.0})
    result = cloze.cloze(plain, tokenizer, sentences)
    assert result.top1 == pytest.approx(2 / 8) and result.top5 == pytest.approx(4 / 8)
    assert result.piece_draws == 0.0 and 0.0 <= result.outside_top5 < 0.01  # nearly always boat or old


def test_draws_are_seeded_per_word_not_per_batch_and_offensive_tokens_are_never_drawn(tokenizer):
    config = ElectraConfig(vocab_size=len(tokenizer), embedding_size=16, hidden_size=16, num_hidden_layers=1,
                           num_attention_heads=2, intermediate_size=32, max_position_embeddings=64,
                           pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(0)
    generator = ElectraForMaskedLM(config)
    sentences = ["The old fisherman repaired his boat before the storm.", "We walked along the quiet river."]
    one = cloze.cloze_rows(generator, tokenizer, sentences, seed=3, batch_size=1)
    many = cloze.cloze_rows(generator, tokenizer, sentences, seed=3, batch_size=64)
    assert [r["draw"] for r in one] == [r["draw"] for r in many] and len(one) == 8
    assert [r["top5"] for r in one] == [r["top5"] for r in many]
    other = cloze.cloze_rows(generator, tokenizer, sentences, seed=4)
    assert [r["draw"] for r in other] != [r["draw"] for r in one]  # a random generator's draws: nearly uniform
    assert generator.training  # left as it was given

    offensive = blocked_token_ids(tokenizer.get_vocab())[0]
    rude = Fixed(len(tokenizer), {offensive: 30.0})
    rows = cloze.cloze_rows(rude, tokenizer, sentences)
    assert all(r["sample_id"] != offensive and offensive not in ids(tokenizer, *r["top5"]) for r in rows)
    rows = cloze.cloze_rows(rude, tokenizer, sentences, block_offensive=False)
    assert all(r["sample_id"] == offensive for r in rows)


def test_bad_input_is_refused_with_a_message(tokenizer):
    generator = Fixed(len(tokenizer), {})
    with pytest.raises(ValueError, match="no content word"):
        cloze.cloze(generator, tokenizer, ["the and of", ""])
    with pytest.raises(ValueError, match="temperature"):
        cloze.cloze(generator, tokenizer, ["a boat"], temperature=0)
    with pytest.raises(ValueError, match="no sentence of 6 to 40 words"):
        cloze.heldout_sentences(["Too short.", " ".join(["word"] * 50) + "."])


def test_held_out_sentences_are_a_fixed_sample_of_sentences_people_type():
    documents = [f"Sentence number {i} is here for the test. It has a second sentence of words too! Short one."
                 for i in range(50)]
    picked = cloze.heldout_sentences(documents, n=20, seed=0)
    assert picked == cloze.heldout_sentences(list(reversed(documents))[::-1], n=20, seed=0)
    assert len(picked) == 20 and len(set(picked)) > 1
    assert all(6 <= len(s.split()) <= 40 for s in picked) and "Short one." not in picked
    assert cloze.heldout_sentences(documents, n=20, seed=1) != picked
    assert len(cloze.heldout_sentences(documents, n=10_000)) == 100  # all there are


def test_over_seeds_keeps_the_guesses_and_averages_the_draws(tokenizer):
    boat, car = ids(tokenizer, "boat", "car")
    generator = Fixed(len(tokenizer), {boat: 1.0, car: 1.0})
    summary = cloze.over_seeds(generator, tokenizer, ["The boat hit a red car near the dock."], range(3))
    assert summary["seeds"] == [0, 1, 2] and len(summary["per_seed"]) == 3
    # Words: boat hit red car near dock ("The", "a", "the": stop words); "boat" and "car" are in its top 5.
    assert summary["top5"] == pytest.approx(2 / 6) and {r["top5"] for r in summary["per_seed"]} == {2 / 6}
    assert summary["piece_draws"] == 0.0


def test_over_seeds_runs_the_generator_once_and_gives_each_seeds_own_figures(tokenizer):
    # A small real generator: its draws spread over the vocabulary, so seeds differ.
    config = ElectraConfig(vocab_size=len(tokenizer), embedding_size=16, hidden_size=16, num_hidden_layers=1,
                           num_attention_heads=2, intermediate_size=32, max_position_embeddings=64)
    torch.manual_seed(0)
    generator = ElectraForMaskedLM(config)
    calls = []
    generator.register_forward_hook(lambda *_: calls.append(1))
    sentences = ["The boat hit a red car near the dock.", "Rain fell on the quiet village all night."]
    summary = cloze.over_seeds(generator, tokenizer, sentences, [0, 1, 2])
    assert len(calls) == 1  # one batch, one forward for the three seeds
    alone = [cloze.cloze(generator, tokenizer, sentences, seed=seed) for seed in (0, 1, 2)]
    assert summary["per_seed"] == [asdict(r) for r in alone]
    assert len({r.outside_top5 for r in alone} | {r.piece_draws for r in alone}) > 1  # the draws did differ
    with pytest.raises(ValueError, match="no seed"):
        cloze.over_seeds(generator, tokenizer, sentences, [])


def test_the_generator_targets_pass_at_their_thresholds_and_fail_just_short():
    at = targets.cloze_targets({"top1": 0.15, "top5": 0.35, "outside_top5": 0.55, "piece_draws": 0.01})
    assert all(t.met for t in at) and len(at) == 4
    short = targets.cloze_targets({"top1": 0.149, "top5": 0.349, "outside_top5": 0.551, "piece_draws": 0.011})
    assert not any(t.met for t in short) and short[1].shown == "34.9%"

    def row(pieces, guesses):
        return {"pieces": pieces, "guesses": [{"token": g, "probability": 0.1} for g in guesses]}

    rows = [row(["tea"], ["coffee", "tea", "water"]), row(["door"], ["door", "box", "window"]),
            row(["un", "##bel"], ["un", "the", "a"]), *[row(["boat"], ["car", "ship", "plane"])] * 5]
    assert guesses.everyday_hits(rows) == 3
    assert targets.everyday_target(rows).met and targets.everyday_target(rows).shown == "3 of 8"
    assert not targets.everyday_target(rows[1:] + rows[-1:]).met


def test_the_command_line_takes_a_pair_or_a_generator_folder_and_several_seeds(tiny_pair_dir, tmp_path, capsys):
    sentences = tmp_path / "sentences.json"
    sentences.write_text(json.dumps({"sentences": ["the movie was good and the story was great",
                                                   "this film is a bad movie with a good cast"]}))
    main(["cloze", str(tiny_pair_dir), str(sentences)])
    one = json.loads(capsys.readouterr().out)
    main(["cloze", str(tiny_pair_dir / "generator"), str(sentences), "--seeds", "2"])
    two = json.loads(capsys.readouterr().out)
    assert one["blanks"] == two["blanks"] > 0 and two["seeds"] == [0, 1] and len(two["per_seed"]) == 2
    assert two["per_seed"][0]["top5"] == one["top5"] == two["top5"]  # the guesses do not depend on the seed
    assert two["per_seed"][0]["outside_top5"] == one["outside_top5"]  # seed 0's draws, either way
    with pytest.raises(SystemExit, match="--seeds must be 1 or more"):
        main(["cloze", str(tiny_pair_dir), str(sentences), "--seeds", "0"])
    with pytest.raises(SystemExit, match="sentence 1 is blank"):  # the one reader's checks, before the model
        main(["cloze", str(tiny_pair_dir), str(_write(tmp_path / "blank.json", ["  "]))])


def _write(path, data):
    path.write_text(json.dumps(data))
    return path
