"""British spellings read as the American ones a dictionary holds: "colour" as "color", "organise" as "organize".

training.lexicon's dictionary (pyspellchecker's English one) spells the American way and lacks most British
spellings ("colour", "centre", "defence", "programme"). `american_forms` gives the spellings a word would have under
the well-known rules of British and American spelling, so a word counts as English when one of them is in the
dictionary. Each rule is narrowed to where the British spelling is regular, so it never makes a word of a
misspelling or a foreign word that happens to turn into one (the tests hold a few each rule must not make):

- -our for -or after b, c, d, g, l, m, n, p, v or "vi", at the end of the word or before a common ending (-s, -ed,
  -ing, -ite, -able, -ful, -less, -hood, -al, -er, -y...), when the -or word is in the dictionary too: colour,
  coloured, behaviour, favourite, neighbourhood, savoury (not "memourize", "snouring" or "explouring": "memor",
  "snor" and "explor" are no words; not "tutour", "errour", "seniour": -tor, -ror and -ior but -vior stay -or);
- -ise for -ize after a consonant with two letters or more before it, and its endings (-ised, -ising, -iser,
  -isation): organise, realised, apologising, organisation (not "sise", "maise", "seise", nor the compounds of
  "size": "capsise", "downsise", where the letters before "size" are a word);
- -lyse for -lyze: analyse, paralysed, catalysing;
- -re for -er in the nouns British spelling writes so (RE_WORDS: centre, theatre, metre, litre, fibre...), alone or
  after a prefix of measures and a few others (kilometre, epicentre, amphitheatre, lacklustre), with -s, -d, -ing:
  centres, centred, centring. A list, not a pattern: "-re" for "-er" would also make "entre", "notre", "lettre" or
  "chambre" English;
- -ence for -ense in the four nouns that take it (defence, offence, licence, pretence), with -s and -less: not a
  pattern either, which would let in "sence", "intence" or "incence";
- a doubled l before -ed, -ing, -er, -or, after a consonant and one vowel in a word of two vowels or more, when the
  word before the ending is in the dictionary: travelled, counsellor, modeller; and -ellous: marvellous, libellous
  (not "compilled", "schedulled": "compil" is no word; not "perillous", "scandallous": British doubles the l of
  -ous only after -el; not "mailler", "haller": one vowel, or two together, before the l);
- -gramme for -gram: programme, programmes, kilogramme.

Left out: -ogue (catalogue, dialogue, analogue: the dictionary holds them already; a rule would only add
"tagalogue"), -ae- and -oe- (anaemia, foetus, manoeuvre), one-off spellings (grey, tyre, kerb, cheque, plough,
aluminium, jewellery, mould, sceptical), the single l of British spelling (enrolment, fulfil, skilful), and two rules
at once ("colourised"). Strings and a collection of words in, a yes or no out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container

# The -re nouns of British spelling, whose American spelling ends in -er.
RE_WORDS = ("centre", "theatre", "metre", "litre", "fibre", "calibre", "sombre", "spectre", "sceptre", "lustre",
            "meagre", "sabre", "ochre", "goitre", "mitre", "louvre", "sepulchre", "saltpetre")
RE_PREFIXES = ("kilo", "centi", "milli", "micro", "nano", "deci", "epi", "amphi", "lack")  # kilometre, epicentre
ENCE_WORDS = ("defence", "offence", "licence", "pretence")  # American -ense
OUR_ENDINGS = ("s", "ed", "ing", "ings", "ite", "ites", "itism", "able", "ably", "ful", "fully", "less", "hood",
               "hoods", "al", "ally", "er", "ers", "y", "ies", "ist", "ists", "ism", "ise", "ised", "ises", "ising")

_RE_STEMS = "|".join(word[:-2] for word in RE_WORDS)
_RE_PREFIX = f"(?:{'|'.join(RE_PREFIXES)})?"
Guard = Callable[[re.Match, Container[str]], bool]
RULES: tuple[tuple[re.Pattern, str, Guard | None], ...] = (  # (a British spelling, the American one, a guard)
    (re.compile(rf"^(\w+(?:[bcdglmnpv]|vi))our({'|'.join(OUR_ENDINGS)})?$"), r"\1or\2",
     lambda match, known: match.group(1) + "or" in known),  # "colour" -> "color"; "coloured": "color" too
    (re.compile(r"^(\w{2,}[b-df-hj-np-tv-xz])is(e|es|ed|ing|er|ers|ation|ations|ational|able)$"), r"\1iz\2",
     lambda match, known: not (match.group(1).endswith("s") and match.group(1)[:-1] in known)),  # not "capsise"
    (re.compile(r"^(\w{2,}l)ys(e|es|ed|ing|er|ers)$"), r"\1yz\2", None),
    (re.compile(rf"^({_RE_PREFIX}(?:{_RE_STEMS}))re(s?)$"), r"\1er\2", None),
    (re.compile(rf"^({_RE_PREFIX}(?:{_RE_STEMS}))r(ed|ing)$"), r"\1er\2", None),
    (re.compile(rf"^({'|'.join(word[:-4] for word in ENCE_WORDS)})ence(s|less)?$"), r"\1ense\2", None),
    (re.compile(r"^(\w*[aeiou]\w*[b-df-hj-np-tv-z][aeiou]l)l(ed|ing|er|ers|or|ors)$"), r"\1\2",
     lambda match, known: match.group(1) in known),  # "travelled": "travel" is a word; "compilled": "compil" no
    (re.compile(r"^(\w+el)l(ous)$"), r"\1\2", lambda match, known: match.group(1) in known),  # marvellous
    (re.compile(r"^(\w+)gramme(s?)$"), r"\1gram\2", None),
)


def american_forms(word: str, known: Container[str] = frozenset()) -> set[str]:
    """The American spellings the rules above make of `word` (in small letters), a rule's guard read against `known`
    (the dictionary): "colour" -> {"color"}. Empty for a word no rule fits."""
    forms = set()
    for pattern, replacement, guard in RULES:
        match = pattern.match(word)
        if match and (guard is None or guard(match, known)):
            forms.add(match.expand(replacement))
    return forms


def is_british(word: str, known: Container[str]) -> bool:
    """Whether `word` (in small letters) is a British spelling of a word in `known`: "colour", "centre", "organise"."""
    return any(form in known for form in american_forms(word, known))
