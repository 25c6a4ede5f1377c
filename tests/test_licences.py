"""Licences: the code's, every corpus source's, and the bundled pair's card against the sources it names.

Every source of the broad English corpus (training/english.py's SOURCES, however many there are) records a
licence that names its terms; the model card quotes those same words, and a card whose table holds a
research-only source does not offer the weights under an open licence.
"""

from __future__ import annotations

import re

import pytest

from training.english import SOURCES
from training.project import ASSETS, PROJECT

CARD = ASSETS / "model" / "README.md"
# A licence is recorded when it names its terms: an SPDX-style name, the public domain, or a stated use.
NAMED = re.compile(r"\b(MIT|Apache|BSD|L?GPL|AGPL|G?FDL|MPL|EPL|ISC|CC0|CC[ -]BY|public domain|research use|"
                   r"licen[cs]e|ODC|Unlicense|PSF|Artistic)\b", re.IGNORECASE)
OPEN = {"apache-2.0", "mit", "bsd-3-clause", "bsd-2-clause", "cc0-1.0", "cc-by-4.0", "cc-by-sa-4.0", "openrail"}


def front_matter(text: str) -> dict[str, str]:
    head = text.split("---\n")[1]
    return dict(line.split(": ", 1) for line in head.splitlines() if ": " in line)


def licence_table(text: str) -> dict[str, list[str]]:
    """The card's "Licence" table: {first cell without backticks: the other cells}."""
    section = text[text.index("\n## Licence\n"):]
    section = section[:section.index("\n## ", 1)]
    rows = [line.strip("|").split(" | ") for line in section.splitlines() if line.startswith("| ")]
    return {cells[0].strip().strip("`"): [c.strip() for c in cells[1:]] for cells in rows[1:]}


def test_the_code_is_apache_2_0():
    text = (PROJECT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert 'license = "Apache-2.0"' in (PROJECT / "pyproject.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: s.name)
def test_every_corpus_source_records_its_licence(source):
    assert NAMED.search(source.licence), f"{source.name}: {source.licence!r} names no licence"
    assert not re.search(r"unknown|\?", source.licence, re.IGNORECASE)


def test_the_card_quotes_each_sources_licence_as_the_code_records_it():
    table = licence_table(CARD.read_text(encoding="utf-8"))
    named = [source for source in SOURCES if source.name in table]
    assert {"chitchat", "wikipedia", "imdb", "warm start"} <= set(table)  # the table is read at all
    for source in named:
        package, licence = table[source.name][0], table[source.name][1]
        assert f"`{source.package}` {source.version.split(':')[-1]}" in package, (source.name, package)
        assert licence == source.licence, (source.name, licence)


def test_the_cards_licence_allows_no_more_than_its_sources():
    text = CARD.read_text(encoding="utf-8")
    meta, table = front_matter(text), licence_table(text)
    research_only = [name for name, cells in table.items() if "research use only" in cells[-1]]
    assert "bbc-news" in research_only  # the BBC's articles: research use
    if research_only:  # an open licence would grant what those sources' terms do not
        assert meta["license"] not in OPEN
        assert meta["license"] == "other" and "research" in meta["license_name"]


def test_the_card_carries_what_the_hub_reads():
    """The front matter the Hub reads (huggingface_hub's own parser), and the sections a reader looks for."""
    from huggingface_hub import ModelCard

    text = CARD.read_text(encoding="utf-8")
    meta = ModelCard(text).data.to_dict()
    assert meta["pipeline_tag"] == "fill-mask" and meta["base_model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert (CARD.parent / meta["license_link"]).is_file() and "research and teaching" in (
        CARD.parent / meta["license_link"]).read_text(encoding="utf-8")
    assert {"electra", "replaced-token-detection"} <= set(meta["tags"])
    assert meta["widget"] and all(example["text"].count("[MASK]") == 1 for example in meta["widget"])
    for section in ("## Intended use", "## Out-of-scope use", "## Bias, risks and the offensive-word filter",
                    "## Licence", "## Citation"):
        assert f"\n{section}\n" in text, section
    assert "@inproceedings{clark2020electra" in text and "ICLR" in text
