"""training.sentences: the one reader of sentence files, and what it says of a bad one."""

from __future__ import annotations

import json

import pytest

from training.project import ASSETS
from training.sentences import MAX_CHARS, read_sentence_files, read_sentences


def _file(tmp_path, content: str, name: str = "s.json"):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def test_both_forms_are_read_and_files_are_pooled_in_order(tmp_path):
    bare = _file(tmp_path, json.dumps(["One cat sat.", "Two dogs ran."]), "bare.json")
    wrapped = _file(tmp_path, json.dumps({"about": "x", "sentences": ["Three birds sang."]}), "wrapped.json")
    assert read_sentences(bare) == ["One cat sat.", "Two dogs ran."]
    assert read_sentence_files([wrapped, bare]) == ["Three birds sang.", "One cat sat.", "Two dogs ran."]
    assert len(read_sentences(ASSETS / "game_sentences.json")) == 40  # the bundled fixtures pass the checks


@pytest.mark.parametrize("content, message", [
    ("not json", "is not JSON (Expecting value, line 1)"),
    ('"one sentence"', "holds a JSON str: it must hold a JSON list of sentences, or an object"),
    ('{"lines": ["a"]}', 'a JSON object without a "sentences" list'),
    ('{"sentences": "a"}', "holds a JSON str"),
    ("[]", "holds no sentence: its list is empty"),
    ('{"sentences": []}', "holds no sentence"),
    ('["fine", 2]', "sentence 2 is not a string of text but 2"),
    ('["fine", {"sentence": "x"}]', 'sentence 2 is not a string of text but {"sentence": "x"}'),
    ('["fine", "  "]', "sentence 2 is blank"),
    (json.dumps(["a" * (MAX_CHARS + 1)]), f"sentence 1 is {MAX_CHARS + 1:,} characters long, over the {MAX_CHARS:,}"),
])
def test_a_bad_file_is_named_with_what_is_wrong(tmp_path, content, message):
    path = _file(tmp_path, content)
    with pytest.raises(ValueError, match=r"^" + str(path).replace("\\", "\\\\")) as error:
        read_sentences(path)
    assert message in str(error.value)


def test_a_missing_file_a_folder_and_no_file_at_all(tmp_path):
    with pytest.raises(ValueError, match="none.json: no such file"):
        read_sentences(tmp_path / "none.json")
    with pytest.raises(ValueError, match="is a folder, not a file of sentences"):
        read_sentences(tmp_path)
    with pytest.raises(ValueError, match="no sentence file named"):
        read_sentence_files([])
    (tmp_path / "latin1.json").write_bytes('["caf\xe9"]'.encode("latin-1"))
    with pytest.raises(ValueError, match="is not UTF-8 text"):
        read_sentences(tmp_path / "latin1.json")
