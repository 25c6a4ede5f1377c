"""British spellings count as English words (training.british through training.lexicon): each rule makes the British
words it is for, and none of the misspellings, foreign words or other words listed against it."""

from __future__ import annotations

import pytest

from training import british, lexicon

MADE = {  # rule: British spellings the dictionary lacks, each English through the rule
    "-our": ["colour", "colouring", "colourful", "favourite", "behaviour", "behavioural", "neighbourhood", "honourable",
             "savoury"],
    "-ise": ["organise", "organised", "organising", "organisation", "realise", "realises", "recognise", "criticised",
             "organiser"],
    "-lyse": ["analyse", "analysed", "paralysed", "catalysing"],
    "-re": ["centre", "centres", "centred", "centring", "metre", "kilometres", "litre", "fibre", "epicentre",
            "spectre"],
    "-ence": ["defence", "offence", "defences", "defenceless"],
    "doubled l": ["counselling", "modeller", "leveller", "marvellous", "bejewelled"],
    "-gramme": ["programme", "programmes"],
}
NOT_MADE = {  # rule: strings it must not make English, with the American word they would be read as
    "-our": {"tutour": "tutor", "errour": "error", "doctour": "doctor", "seniour": "senior", "encoure": "encore",
             "snouring": "snoring", "explouring": "exploring"},
    "-ise": {"sise": "size", "maise": "maize", "capsise": "capsize", "downsise": "downsize"},
    "-re": {"entre": "enter", "votre": "voter", "lettre": "letter", "chambre": "chamber", "membre": "member",
            "hre": "her", "aftre": "after", "limitre": "limiter"},
    "-ence": {"sence": "sense", "intence": "intense", "incence": "incense", "dispence": "dispense"},
    "doubled l": {"ruller": "ruler", "compilled": "compiled", "schedulled": "scheduled", "perillous": "perilous",
                  "scandallous": "scandalous", "mailler": "mailer", "haller": "haler"},
}


@pytest.mark.parametrize("word", [w for words in MADE.values() for w in words])
def test_a_british_spelling_counts_as_an_english_word(word):
    known = lexicon._dictionary()
    assert word not in known  # the dictionary lacks it: the rule is what makes it a word
    assert lexicon.is_english(word) and lexicon.is_english(word.capitalize()) and lexicon.form_of(word) == "english"


@pytest.mark.parametrize("word, american", [pair for pairs in NOT_MADE.values() for pair in pairs.items()])
def test_a_rule_makes_no_word_of_a_misspelling_or_a_foreign_word(word, american):
    assert american in lexicon._dictionary()  # the American-looking form is a word: only the rule's guard keeps it out
    assert word not in lexicon._dictionary() and not lexicon.is_english(word)


def test_the_forms_a_word_is_read_as():
    known = lexicon._dictionary()
    assert british.american_forms("colourful", known) == {"colorful"} and british.american_forms("colourful") == set()
    assert british.american_forms("centred") == {"centered"} and british.american_forms("centring") == {"centering"}
    assert british.american_forms("travelling", {"travel"}) == {"traveling"}
    assert british.american_forms("organisational") == {"organizational"}
    assert british.american_forms("programme") == {"program"} and british.american_forms("defences") == {"defenses"}
    assert british.american_forms("the", known) == set() and british.american_forms("four", known) == set()
    assert british.american_forms("capsise", {"cap"}) == set() and british.american_forms("emphasise", {"cap"}) == {
        "emphasize"}
    # words the dictionary already holds stay words, and non-words stay out: acronyms, fragments
    assert all(lexicon.is_english(w) for w in ("four", "hour", "acre", "ogre", "genre", "theatre", "dialogue"))
    assert not any(lexicon.is_english(w) for w in ("bbc", "ies", "st", "colr", "centr"))
