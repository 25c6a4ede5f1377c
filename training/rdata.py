"""The data sets of an installed R package (data/Rdata.rdx and Rdata.rdb, R's lazy-load database), read
without R: enough of R's serialization format (XDR, versions 2 and 3) for vectors, lists and their
attributes, which is what a package's data sets are. Used for Debian's r-cran-janeaustenr (the novels as
character vectors, one element a line of the book).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import struct
import zlib

# R's SEXP types (src/main/serialize.c) that a data set can hold
NIL, SYM, LIST, CLO, ENV, PROM, LANG = 254, 1, 2, 3, 4, 5, 6
CHAR, LGL, INT, REAL, CPLX, STR, DOT, VEC, EXPR, RAW, S4 = 9, 10, 13, 14, 15, 16, 17, 19, 20, 24, 25
REF, ALTREP, ATTRLANG, ATTRLIST = 255, 238, 240, 239
PAIRS = {LIST, CLO, PROM, LANG, DOT, ATTRLANG, ATTRLIST}
EMPTY = {253, 252, 251, 250, 242, 241}  # global, unbound, missing arg, base namespace, empty and base environments


class Pairs(list):
    """An R pairlist: [(tag, value)]."""


class _Reader:
    def __init__(self, data: bytes):
        if data[:2] != b"X\n":
            raise ValueError("not R's XDR serialization format")
        self.data, self.at, self.refs = data, 2, []
        version = self.int()
        self.int(), self.int()  # the writer's R version, the oldest reader's
        if version == 3:
            n = self.int()
            self.at += n  # the native encoding's name
        elif version != 2:
            raise ValueError(f"R serialization version {version} is not read here")

    def int(self) -> int:
        (value,) = struct.unpack_from(">i", self.data, self.at)
        self.at += 4
        return value

    def length(self) -> int:
        n = self.int()
        return n if n != -1 else (self.int() << 32) + self.int()  # a long vector

    def item(self):
        flags = self.int()
        kind, has_attr, has_tag = flags & 0xFF, flags & (1 << 9), flags & (1 << 10)
        if kind == NIL or kind in EMPTY:
            return None
        if kind == REF:
            return self.refs[(flags >> 8 or self.int()) - 1]
        if kind == SYM:
            symbol = self.item()
            self.refs.append(symbol)
            return symbol
        if kind == ENV:
            env: dict = {}
            self.refs.append(env)
            self.int()  # locked
            self.item(), self.item(), self.item(), self.item()  # enclosure, frame, hash table, attributes
            return env
        if kind in PAIRS:  # a pairlist cell: [attributes], [tag], value, then the rest of the list
            if has_attr:
                self.item()
            tag = self.item() if has_tag else None
            value = self.item()
            rest = self.item()
            return Pairs([(tag, value)] + (rest if isinstance(rest, Pairs) else []))
        if kind == CHAR:
            n = self.int()
            if n == -1:
                return None  # NA_character_
            text = self.data[self.at:self.at + n]
            self.at += n
            return text.decode("latin-1" if flags & (1 << 14) else "utf-8", "replace")
        if kind == ALTREP:
            self.item()  # its class, package and type
            state = self.item()
            self.item()  # its attributes
            return state
        if kind in (LGL, INT):
            n = self.length()
            value = list(struct.unpack_from(f">{n}i", self.data, self.at))
            self.at += 4 * n
        elif kind in (REAL, CPLX):
            n = self.length() * (2 if kind == CPLX else 1)
            value = list(struct.unpack_from(f">{n}d", self.data, self.at))
            self.at += 8 * n
        elif kind in (STR, VEC, EXPR):
            value = [self.item() for _ in range(self.length())]
        elif kind == RAW:
            n = self.length()
            value = self.data[self.at:self.at + n]
            self.at += n
        elif kind == S4:
            value = None
        else:
            raise ValueError(f"R object of type {kind} is not read here")
        if has_attr:
            names = dict(self.item()).get("names")  # class, dim...: not needed for a data set's text
            if kind in (VEC, EXPR) and names:
                return dict(zip(names, value))
        return value


def unserialize(data: bytes):
    """The object R's `serialize()` wrote: a vector as a Python list (a named list as a dict), a pairlist as
    Pairs [(tag, value)]."""
    return _Reader(data).item()


def _inflate(blob: bytes) -> bytes:
    """One object of a lazy-load database: its length, then zlib data (or a type byte, then bzip2, xz or raw)."""
    body = blob[4:]
    if body[:1] in (b"Z", b"2", b"X", b"0") and not body.startswith(b"x"):
        kind, body = body[:1], body[1:]
        return {b"Z": zlib.decompress, b"2": bz2.decompress, b"X": lzma.decompress, b"0": bytes}[kind](body)
    return zlib.decompress(body)


def lazyload(index: bytes, database: bytes) -> dict[str, object]:
    """{name: object} of every data set in a package's Rdata.rdx (gzipped index) and Rdata.rdb."""
    table = unserialize(gzip.decompress(index) if index[:2] == b"\x1f\x8b" else zlib.decompress(index))
    if not isinstance(table, dict) or not isinstance(table.get("variables"), dict):
        raise ValueError("not an R lazy-load index")
    return {name: unserialize(_inflate(database[int(offset):int(offset + length)]))
            for name, (offset, length) in table["variables"].items()}
