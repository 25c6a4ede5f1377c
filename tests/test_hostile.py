"""Hostile and odd input, as a visitor of the hosted app meets it: a clear message, no crash, no
absolute server path in what comes back. Each case asserts the message.

Covered elsewhere, not repeated here: the pipeline's own InputErrors and notices on ordinary text
(test_explain.py), hub ids and allowed roots in explainer.core.models, symlinks, trust_remote_code
(test_explain_models.py), corpus files checked by training.data (test_data.py) and by the race
manager (test_race_budget.py, test_race_server.py), escaping in the renderer (test_render.py), the browser
(test_browser_hostile.py), gradio's upload size limit on the served app (test_deploy.py).
"""

from __future__ import annotations

import dataclasses
import html
import time
from pathlib import Path

import gradio as gr
import pytest

from explainer.core import models
from explainer.core.text import MAX_CHARS
from explainer.ui import api
from training.project import PROJECT


@pytest.fixture
def served(monkeypatch, tiny_pair_dir) -> str:
    """The tiny pair as the app's default model, with its folder an allowed root (as tests/conftest's app)."""
    monkeypatch.setenv("ELECTRA_MODEL", str(tiny_pair_dir))
    monkeypatch.setenv(models.ROOTS_ENV, str(tiny_pair_dir))
    return str(tiny_pair_dir)


def explain_error(text: str, model: str = "") -> str:
    with pytest.raises(gr.Error) as error:
        api.explain(text, model=model, mode="detect")
    return error.value.message


def no_server_paths(message: str, *paths: Path) -> bool:
    return not any(str(p) in message for p in (PROJECT, Path.home(), *paths))


# --- text -----------------------------------------------------------------------------------------

NOTHING = "Nothing to judge: the tokenizer drops every character of this text"
EMPTY = "Type a sentence first: the text box is empty."


@pytest.mark.parametrize("text, message", [
    ("", EMPTY),
    (" \n\t\u3000\u00a0 ", EMPTY),  # ideographic and no-break spaces too
    ("\u2028\u2029\u0085", EMPTY),  # line / paragraph separators, NEL
    ("\x00\x01\x07\x1b\x7f", NOTHING),  # control characters only
    ("\u200b\u200c\u200d\u2060\ufeff", NOTHING),  # zero-width characters only
    ("\u202e\u202c\u200f\u200e", NOTHING),  # bidi controls only
    ("\u0301\u0301 \u0308", NOTHING),  # lone combining marks
    ("\ufffd\ue000", NOTHING),  # replacement character, private use
])
def test_text_with_nothing_to_judge_gets_a_message(served, text, message):
    assert explain_error(text).startswith(message)


def words_of(result: dict) -> list[str]:
    text = result["text"]
    assert all(text[w["start"]:w["end"]] == w["text"] for w in result["words"])
    return [w["text"] for w in result["words"]]


@pytest.mark.parametrize("text, notice", [
    ("the\x00 film\x07 was good\x1b here", "Invisible characters (zero-width or direction marks) were ignored."),
    ("I loved it \U0001f600\U0001f37f so much", "token(s) are unknown to this model's vocabulary (emoji"),
    ("a family \U0001f468\u200d\U0001f469\u200d\U0001f467 here", "are read as [UNK]"),
    ("zero\u200bwidth and\u200d joiner \u2060here", "Invisible characters"),
    ("\u202eevil\u202c text \u200fhere", "Invisible characters"),
    ("cafe\u0301 Z\u0334\u0321a\u0337l\u0338g\u0335o\u0336 nai\u0308ve", None),  # combining marks (NFD, as macOS types)
    ("\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645 and \u05e9\u05dc\u05d5\u05dd", None),
    ('<script>alert(1)</script> <img src=x onerror="alert(1)"> {{7*7}} ${x}', None),
])
def test_odd_text_is_judged_word_for_word_with_a_notice(served, text, notice):
    result = api.explain(text, mode="detect")
    assert result["text"] == text  # nothing is rewritten or sanitised away: escaping is the renderer's job
    # every typed character is in one word, accents and joiners included; punctuation is a word of its own
    assert "".join(words_of(result)) == "".join(text.split())
    assert not any(c.isspace() for w in words_of(result) for c in w)
    assert all(w["corrupted"] == w["text"] for w in result["words"])  # detect only: shown as typed
    if notice:
        assert any(notice in n for n in result["notices"]), result["notices"]


def test_a_100000_character_text_is_capped_with_notices(served, monkeypatch):
    text = "word " * 20_000
    assert len(text) == 100_000
    tokenizer_class = type(models.load(served, roots=(Path(served),)).tokenizer)
    read, tokenize = [], tokenizer_class.__call__

    def reading(self, text, *args, **kwargs):
        read.append(len(text))
        return tokenize(self, text, *args, **kwargs)

    monkeypatch.setattr(tokenizer_class, "__call__", reading)
    result = api.explain(text)
    assert read and max(read) <= MAX_CHARS  # capped before tokenizing: no 100k-character work
    assert len(result["text"]) == MAX_CHARS
    assert any(f"cut to its first {MAX_CHARS:,} characters" in n for n in result["notices"])
    assert any("longer than this model reads" in n for n in result["notices"])
    assert words_of(result)[0] == "word"


@pytest.mark.parametrize("settings, message", [
    (dict(mode="evil"), "mode \\(what gets corrupted\\) is one of auto, manual, detect, not 'evil'"),
    (dict(temperature=-1),
     "temperature \\(the generator's sampling temperature\\) is a number from 0.01 to 100, not -1"),
    (dict(temperature=float("nan")), "temperature .* not nan"),
    (dict(temperature=float("inf")), "temperature .* not inf"),  # JSON's Infinity, as raw HTTP sends it
    (dict(top_k=0), "top_k \\(the guesses listed per masked word\\) is a whole number from 1 to 10, not 0"),
    (dict(top_k=1_000_000), "top_k .* from 1 to 10, not 1000000"),  # 110 MB and minutes of work, before
    (dict(mask_rate=7), "mask_rate \\(the share of tokens masked\\) is a number from 0 to 1, not 7"),
    (dict(seed=2**70), "seed \\(the masking and sampling seed\\) is a whole number from -9,223,372,036,854,775,808"),
    (dict(seed="abc"), "seed .* not 'abc'"),
    (dict(seed=True), "seed .* not True"),
    (dict(mask_words=["one"]), "mask_words .* not 'one'"),
    (dict(mask_words=list(range(600))), "mask_words .* a list of at most 512 whole numbers"),
])
def test_odd_settings_from_a_script_get_messages(served, settings, message):
    with pytest.raises(gr.Error, match=message):
        api.explain("the chef cooked a meal", **settings)


def test_odd_word_numbers_and_text_types_from_a_script(served):
    result = api.explain("the chef cooked a meal", mode="manual", mask_words=[-5, 99])
    assert any("Ignored word numbers outside 0-4" in n for n in result["notices"])
    with pytest.raises(gr.Error, match="text \\(the sentence\\) must be text, not 42"):
        api.explain(42)


@pytest.mark.parametrize("settings, message", [
    (dict(n_steps=10**7), "n_steps \\(the integration points\\) is a whole number from 1 to 500, not 10000000"),
    (dict(n_steps=0), "n_steps .* from 1 to 500, not 0"),
    (dict(n_steps=10**7, all_tokens=True), "n_steps .* from 1 to 500"),
    (dict(method="shap"),
     "method \\(the attribution method\\) is one of integrated_gradients, gradient_x_input, not 'shap'"),
    (dict(baseline="zeros"), "baseline .* is one of pad, mask, not 'zeros'"),
    (dict(target=0), "target must be a non-special token position, got 0"),
    (dict(target=10**6), "target .* from -1 to 100,000, not 1000000"),
    (dict(n_steps="many"), "n_steps .* not 'many'"),  # was Python's own "invalid literal for int()"
    (dict(tolerance=float("inf")), "tolerance .* from 0 to 0.5, not inf"),
    (dict(all_tokens="yes"), "all_tokens \\(explain every word\\) is true or false, not 'yes'"),
])
def test_odd_attribution_requests_get_messages_at_once(served, rows_judged, settings, message):
    with pytest.raises(gr.Error, match=message):
        api.attribute("the chef cooked a meal", **settings)
    assert sum(rows_judged) <= 1, rows_judged  # at most the explanation's own row: no attribution ran


# --- model names ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, message", [
    ("../../etc", "'../../etc' is outside the folders this app may load from (assets, runs, "),
    ("/etc", "'/etc' is outside the folders this app may load from"),
    ("~/.ssh", "'~/.ssh' is outside the folders"),
    ("runs/../../../etc", "is outside the folders"),
    ("https://huggingface.co/google/electra-small-discriminator", "is neither a local folder nor a valid hub id"),
    ("http://127.0.0.1:7860/", "is neither a local folder nor a valid hub id"),
    ("file:///etc/passwd", "is neither a local folder nor a valid hub id"),
    ("owner/name; rm -rf /", "is neither a local folder nor a valid hub id"),
    ("<script>alert(1)</script>", "is neither a local folder nor a valid hub id"),
    ("nobody/no-such-model-anywhere", "The Hugging Face hub is offline here (HF_HUB_OFFLINE=1) and "
                                      "nobody/no-such-model-anywhere is not in the local cache"),
])
def test_bad_model_names_are_refused_at_once_without_server_paths(served, network_attempts, name, message):
    error = explain_error("the chef cooked a meal", model=name)
    assert network_attempts == []  # refused from the name alone, or from the offline cache: no network wait
    assert message in error
    assert no_server_paths(error), error


@pytest.fixture
def root(tmp_path, monkeypatch, served) -> Path:
    """An allowed models folder (as a host sets ELECTRA_MODEL_ROOTS), somewhere on the server."""
    folder = tmp_path / "models"
    folder.mkdir()
    monkeypatch.setenv(models.ROOTS_ENV, f"{served}:{folder}")
    return folder


def test_a_folder_that_is_not_a_model_is_refused(root):
    (root / "notes").mkdir()
    (root / "notes" / "readme.txt").write_text("not a model")
    assert "holds no config.json and no discriminator/ subfolder" in explain_error("a meal", model=str(root / "notes"))
    assert explain_error("a meal", model=str(root / "absent")).startswith("No folder")


def test_a_broken_model_folder_is_refused_without_absolute_paths(root, tiny_pair_dir):
    from transformers import ElectraConfig

    (root / "garbage").mkdir()
    (root / "garbage" / "config.json").write_text("{not json")
    ElectraConfig(architectures=["ElectraForPreTraining"]).save_pretrained(root / "no-weights")
    for name in ("garbage", "no-weights"):
        error = explain_error("a meal", model=str(root / name))
        assert error.startswith(f"Could not load models/{name}: "), error  # named from its root, not the server's path
        assert no_server_paths(error, root.parent), error


# --- uploads (Training tab) -----------------------------------------------------------------------

UPLOADS = {
    "binary.txt": (bytes(range(256)) * 8, "binary.txt looks like a binary file, not text"),
    "empty.txt": (b"", "empty.txt contains no text"),
    "latin1.txt": ("un film tr\u00e8s r\u00e9ussi\n".encode("latin-1"),
                   "latin1.txt is not UTF-8 text (byte 10); re-save it as UTF-8"),
    "utf16.txt": ("a film\n".encode("utf-16"), "utf16.txt looks like a binary file"),
    "big.txt": (b"a fine sentence about a film\n" * 2000, "corpus file is 56.6 KB; the limit is 10.0 KB"),
    "evil.exe": (b"MZ\x90\x00", "evil.exe: upload a .txt file (one document per line) or a .jsonl file"),
}


@pytest.mark.parametrize("name", UPLOADS)
def test_bad_uploads_get_a_message_in_the_tab_and_start_nothing(tmp_path, monkeypatch, name):
    from explainer.ui import races, training_tab
    from training.race.manager import RaceManager

    manager = RaceManager(tmp_path / "races", max_upload_bytes=10 * 1024)
    monkeypatch.setattr(races, "MANAGER", manager)
    content, message = UPLOADS[name]
    path = tmp_path / "gradio" / name  # where gradio keeps an upload
    path.parent.mkdir()
    path.write_bytes(content)
    shown = training_tab.corpus_check(str(path))
    assert "ee-error" in shown and message in html.unescape(shown), shown
    started = training_tab.start_race("tiny", "steps", 5, "upload", str(path), 0, "cpu", "flops", 64, 8, 2e-3, 0)
    assert "ee-error" in started and manager.race is None
    assert no_server_paths(shown + started, tmp_path)


def test_an_upload_copy_is_private_and_deleted_when_the_race_fails(tmp_path, monkeypatch):
    import tempfile

    from conftest import WORDPIECE

    from training.race.manager import UPLOAD_PREFIX, RaceManager
    from training.race.settings import RaceSettings

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # where mkdtemp puts the copy
    (tmp_path / "tmp").mkdir()
    upload = tmp_path / "tiny.txt"
    upload.write_text("a corpus far too short for one block of sixty-four tokens\n", encoding="utf-8")
    manager = RaceManager(tmp_path / "races")
    settings = RaceSettings(preset="tiny", budget="steps", amount=3, tokenizer=WORDPIECE, seq_len=64, batch_size=8,
                            device="cpu", threads=1)
    race = manager.start(settings, upload=str(upload))
    copy = Path(race.settings.corpus)
    assert copy.parent.name.startswith(UPLOAD_PREFIX) and copy.parent.parent == tmp_path / "tmp"
    assert manager.wait(120) and race.status == "failed", race.status
    assert "fewer than one block" in race.error
    assert not copy.parent.exists() and not list((tmp_path / "tmp").glob(UPLOAD_PREFIX + "*"))
    assert not any(p.stem == "corpus" for p in race.folder.iterdir())
    assert upload.exists()  # the user's own file (gradio's cache) is gradio's to delete


def test_the_race_status_never_shows_the_servers_absolute_path(tmp_path):
    from explainer.render.training import status_html
    from training.race.settings import RaceSettings

    snapshot = {"events": {}, "settings": dataclasses.asdict(RaceSettings(preset="tiny")), "elapsed": 12.0,
                "status": "finished", "stopping": False, "folder": str(tmp_path / "races" / "race-1"),
                "device": "CPU (1 thread)"}
    html = status_html(snapshot)
    assert "models saved in race-1" in html and str(tmp_path) not in html
    inside = dict(snapshot, folder=str(PROJECT / "runs" / "races" / "race-2"))
    assert "models saved in runs/races/race-2" in status_html(inside) and str(PROJECT) not in status_html(inside)


def test_old_json_exports_are_deleted_so_a_hosts_disk_does_not_fill(tmp_path, monkeypatch, tiny_pair):
    import os

    from explainer.core.pipeline import explain
    from explainer.ui import explore_share

    monkeypatch.setattr(explore_share, "EXPORT_DIR", tmp_path)
    old, recent = tmp_path / "electra-old.json", tmp_path / "electra-recent.json"
    for path in (old, recent):
        path.write_text("{}")
    hour_ago = time.time() - explore_share.EXPORT_MAX_AGE_S - 1
    os.utime(old, (hour_ago, hour_ago))
    new = explore_share.export_json(explain(tiny_pair, "the chef cooked a meal"))
    assert not old.exists() and recent.exists() and Path(new).parent == tmp_path
