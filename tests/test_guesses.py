"""training.downstream.guesses: masking a whole word by its offsets, the generator's top-k, the everyday fixture."""

from __future__ import annotations

import pytest
import torch
from transformers import ElectraConfig, ElectraForMaskedLM

from training.downstream.guesses import everyday_hits, everyday_table, load_everyday, mask_word, top_guesses
from training.tokenizer import PACKAGED, load_tokenizer

MULTI = "unbelievably"  # five bert-base-uncased pieces: un ##bel ##ie ##va ##bly


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer(PACKAGED)  # the bundled model's vocabulary, offline


@pytest.fixture(scope="module")
def generator(tokenizer):
    """A random one-layer generator, 16 wide: the real vocabulary, next to no compute."""
    config = ElectraConfig(vocab_size=len(tokenizer), embedding_size=16, hidden_size=16, num_hidden_layers=1,
                           num_attention_heads=2, intermediate_size=32, max_position_embeddings=64,
                           pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(0)
    return ElectraForMaskedLM(config)


def test_top_guesses_are_k_tokens_sorted_by_a_probability_that_sums_to_at_most_one(generator, tokenizer):
    for k in (1, 3, 7):
        guesses = top_guesses(generator, tokenizer, "The old fisherman repaired his boat.", "fisherman", k=k)
        assert len(guesses) == k
        probs = [p for _, p in guesses]
        assert all(isinstance(t, str) and t for t, _ in guesses)
        assert all(0.0 < p <= 1.0 for p in probs) and probs == sorted(probs, reverse=True)
        assert sum(probs) <= 1.0 + 1e-6  # float32 rounding only
    with pytest.raises(ValueError, match="k must be"):
        top_guesses(generator, tokenizer, "the boat", "boat", k=0)


def test_top_guesses_leave_the_model_as_given_and_repeat_exactly(generator, tokenizer):
    generator.train()
    first = top_guesses(generator, tokenizer, "we fixed the boat", "boat")
    assert generator.training  # evaluated without dropout, then handed back in training mode
    assert top_guesses(generator, tokenizer, "we fixed the boat", "boat") == first
    generator.eval()


def test_a_word_of_several_pieces_is_masked_whole_and_nothing_else(tokenizer):
    sentence = f"the plot was {MULTI} dull"
    plain = tokenizer(sentence, return_tensors="pt")["input_ids"]
    masked, positions = mask_word(tokenizer, sentence, MULTI)
    pieces = tokenizer.convert_ids_to_tokens(plain[0, positions].tolist())
    assert pieces == tokenizer.tokenize(MULTI) and len(pieces) > 1
    assert masked.shape == plain.shape
    assert (masked[0, positions] == tokenizer.mask_token_id).all()
    others = [i for i in range(plain.shape[1]) if i not in positions]
    assert torch.equal(masked[0, others], plain[0, others])


def test_the_first_whole_word_is_masked_not_a_part_of_a_longer_one(tokenizer):
    sentence = "the cart hit a car and another car"
    masked, positions = mask_word(tokenizer, sentence, "car")
    tokens = tokenizer.convert_ids_to_tokens(tokenizer(sentence)["input_ids"])
    assert positions == [tokens.index("car")]  # the first "car", not "cart" (one token here)
    assert mask_word(tokenizer, "The Car stopped", "car")[1] == [2]  # an uncased vocabulary: any case


@pytest.mark.parametrize("sentence, word", [
    ("the boat sank", "ship"),
    ("the cart rolled", "car"),  # only inside a longer word
    ("the boat sank", " "),
])
def test_a_word_missing_from_the_sentence_raises_a_clear_error(generator, tokenizer, sentence, word):
    with pytest.raises(ValueError, match="not a whole word|empty"):
        top_guesses(generator, tokenizer, sentence, word)


def test_html_and_odd_unicode_are_masked_by_their_offsets(generator, tokenizer):
    sentence = "<b>Café</b> naïve 🍕 — the chef's soufflé\u200b collapsed &amp; <i>nobody</i> cared"
    for word, pieces in (("soufflé", tokenizer.tokenize("souffle")), ("naïve", ["naive"]), ("🍕", ["[UNK]"]),
                         ("nobody", ["nobody"])):
        masked, positions = mask_word(tokenizer, sentence, word)
        plain = tokenizer(sentence)["input_ids"]
        assert tokenizer.convert_ids_to_tokens([plain[p] for p in positions]) == pieces, word
        assert len(top_guesses(generator, tokenizer, sentence, word)) == 3


def test_a_word_beyond_the_generators_positions_raises(generator, tokenizer):
    sentence = "the " * 100 + "boat"
    with pytest.raises(ValueError, match="no token"):
        top_guesses(generator, tokenizer, sentence, "boat")  # 64 positions: "boat" is truncated away


def test_the_everyday_fixture_and_its_table(generator, tokenizer):
    items = load_everyday()
    assert len(items) == 8
    first = {"sentence": "The old fisherman repaired his boat before the storm arrived.", "word": "fisherman"}
    assert items[0] == first
    for item in items:
        assert 8 <= len(item["sentence"].split()) <= 15, item
    table = everyday_table(generator, tokenizer, items)
    assert [(r["sentence"], r["word"]) for r in table] == [(i["sentence"], i["word"]) for i in items]
    for row in table:
        assert len(row["guesses"]) == 3 and row["pieces"]
        assert row["guesses"][0]["probability"] >= row["guesses"][-1]["probability"]
        # The rank is the hidden word's place among all the guesses: 1-3 exactly when it is among the three shown.
        assert 1 <= row["rank"] <= len(tokenizer)
        assert (row["rank"] <= 3) == (row["pieces"][0] in [g["token"] for g in row["guesses"]])


def test_the_rank_of_a_word_the_generator_is_made_to_guess(tokenizer):
    """A generator whose output bias favours "boat" above everything: the hidden word's rank is 1 where it is
    "boat", and the command line counts the hits."""
    config = ElectraConfig(vocab_size=len(tokenizer), embedding_size=16, hidden_size=16, num_hidden_layers=1,
                           num_attention_heads=2, intermediate_size=32, max_position_embeddings=64,
                           pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(0)
    generator = ElectraForMaskedLM(config)
    with torch.no_grad():
        generator.generator_lm_head.bias[tokenizer.convert_tokens_to_ids("boat")] = 100.0
    items = [{"sentence": "He sailed the boat home.", "word": "boat"},
             {"sentence": "He drove the car home.", "word": "car"}]
    table = everyday_table(generator, tokenizer, items)
    assert [row["rank"] for row in table][0] == 1 and table[1]["rank"] > 1
    assert everyday_hits(table) == 1


def test_the_command_line_prints_json_and_the_count(tiny_pair_dir, tmp_path, capsys):
    import json

    from training.__main__ import main

    sentences = tmp_path / "s.json"
    sentences.write_text(json.dumps([{"sentence": "The cat sat on the mat.", "word": "cat"}]))
    main(["guesses", str(tiny_pair_dir), "--sentences", str(sentences)])
    out = capsys.readouterr()
    rows = json.loads(out.out)
    assert len(rows) == 1 and rows[0]["word"] == "cat" and rows[0]["rank"] >= 1
    assert out.err.strip().endswith(f"the hidden word in the top 3: {int(rows[0]['rank'] <= 3)} of 1")
    with pytest.raises(SystemExit) as exit_info:
        main(["guesses", "--help"])
    assert exit_info.value.code == 0
