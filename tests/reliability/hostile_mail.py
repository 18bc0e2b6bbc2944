"""Hostile mail for the reliability tests: every attack of issue 12 (items 1-7) that a mail
can carry, and MIME made by a seeded fuzzer of our own.

    corpus = hostile_corpus(seed=12, fuzzed=480)   # list[Hostile], every raw distinct

The fuzzer builds random MIME trees (nesting of every multipart kind and message/rfc822,
deep chains) and breaks them the ways real mail breaks: wrong or unknown charsets, broken
base64 and quoted-printable, boundaries missing, mismatched or never closed, huge and
numerous headers, NULs and raw 8-bit bytes, encoded words that decode to CR, LF, NUL,
U+2028 or U+0085, binary parts, bare CRs, no blank line after the headers.  Its bodies
hold judge commands (LIST, HELP, SIGNON, orders) so the commands' parsers get it too.
Everything derives from ``random.Random(seed)``: the same seed gives the same bytes.
"""

from __future__ import annotations

import base64
import quopri
import random
from dataclasses import dataclass

JUDGE = "judge@localhost"
GAME = "hg1"
MASTER = "master@example.net"
MASTER_PASSWORD = "masterpw"
PLAYERS = tuple(f"player{n}@example.net" for n in range(7))


@dataclass(frozen=True)
class Hostile:
    """One mail: a name saying what it tries, its bytes, and the SMTP envelope sender
    ("" for a bounce's null return path)."""

    name: str
    raw: bytes
    mail_from: str


def setup_mails() -> list[Hostile]:
    """Ordinary mail sent first: a game with seven players, for the attacks on sign-ons."""
    mails = [Hostile("setup: create", plain(MASTER, "setup create", f"CREATE {GAME} {MASTER_PASSWORD}\nFORM\n",
                                             "setup-create"), MASTER)]
    mails += [Hostile(f"setup: join {n}", plain(address, "join", f"JOIN {GAME} pw{n}\n", f"setup-join-{n}"), address)
              for n, address in enumerate(PLAYERS)]
    return mails


def plain(sender: str, subject: str, body: str, key: str, *, extra: str = "") -> bytes:
    """A plain, well-formed text mail (CRLF line ends) with Message-ID ``<key@hostile.test>``."""
    head = (f"From: {sender}\r\nTo: {JUDGE}\r\nSubject: {subject}\r\nMessage-ID: <{key}@hostile.test>\r\n"
            f"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n{extra}")
    return (head + "\r\n" + body.replace("\r\n", "\n").replace("\n", "\r\n")).encode("utf-8")


def raw_mail(headers: list[str], body: bytes, key: str) -> bytes:
    """Headers as given (each one line, or folded by the caller) plus a Message-ID."""
    head = "\r\n".join([*headers, f"Message-ID: <{key}@hostile.test>"]) + "\r\n\r\n"
    return head.encode("utf-8", "surrogateescape") + body


def deep(depth: int, key: str, *, close: bool = True) -> bytes:
    """``depth`` multipart/mixed levels, each the only part of the one above, LIST at the bottom."""
    body = "".join(f'Content-Type: multipart/mixed; boundary="d{i}"\r\n\r\n--d{i}\r\n' for i in range(depth))
    body += "Content-Type: text/plain\r\n\r\nLIST\r\n"
    if close:
        body += "".join(f"--d{i}--\r\n" for i in reversed(range(depth)))
    head = f"From: deep@example.net\r\nTo: {JUDGE}\r\nSubject: deep {depth}\r\nMessage-ID: <{key}@hostile.test>\r\nMIME-Version: 1.0\r\n"
    return (head + body).encode("ascii")


def named_cases() -> list[Hostile]:
    """The attacks issue 12 describes (items 1, 2, 3, 6; 4 and 7 are not mail), one mail each."""
    cases: list[tuple[str, bytes, str]] = []

    def add(name: str, raw: bytes, mail_from: str = "attacker@example.net") -> None:
        cases.append((name, raw, mail_from))

    a = "attacker@example.net"
    # 1. amplification
    add("1: HELP x 100,000 (600 KB)", plain(a, "help", "HELP\n" * 100_000, "n-help-100k"))
    add("1: HELP x 1,000", plain(a, "help", "HELP\n" * 1000, "n-help-1k"))
    add("1: LIST x 5,000", plain(a, "list", "LIST\n" * 5000, "n-list-5k"))
    add("1: 150 distinct LISTs", plain(a, "list", "".join(f"LIST g{i}\n" for i in range(150)), "n-list-150"))
    add("1: 600 order lines", plain(PLAYERS[2], "orders", f"SIGNON france@{GAME} pw2\n" + "A PAR - BUR\n" * 600,
                                    "n-orders-600"), PLAYERS[2])
    add("1: HELP GET KEY LIST HISTORY mixed x 3,000", plain(a, "mixed", "HELP\nLIST\nHISTORY hg1\nGET KEY\n" * 750,
                                                            "n-mixed"))
    add("1: press of 200 KB", plain(PLAYERS[3], "press", f"SIGNON germany@{GAME} pw3\nPRESS TO ALL\n"
                                    + "blah blah blah\n" * 14_000 + "ENDPRESS\n", "n-press"), PLAYERS[3])
    # 2. guessing
    add("2: 200 SIGNON guesses", plain(a, "guess", "".join(f"SIGNON master@{GAME} guess{n}\n" for n in range(200)),
                                       "n-guess-200"))
    for n in range(5):
        add(f"2: separate guess {n}", plain(a, "guess", f"SIGNON master@{GAME} single{n}\n", f"n-guess-single-{n}"))
    for n in range(4):
        add(f"2: guess against FRANCE from bot {n}", plain(f"bot{n}@example.net", "guess",
                                                           f"SIGNON france@{GAME} bot{n}\n", f"n-bot-{n}"),
            f"bot{n}@example.net")
    add("2: the owner after the attack", plain(PLAYERS[2], "mine", f"SIGNON france@{GAME} pw2\nA PAR H\n",
                                               "n-owner"), PLAYERS[2])
    # 3. passwords echoed
    for n, subject in enumerate([f"SIGNON france@{GAME} s3cret", f"Re: SIGNON france@{GAME} s3cret",
                                 f"ＳＩＧＮＯＮ france@{GAME} s3cret", f"\ufeffSIGNON france@{GAME} s3cret",
                                 f"\u200bSIGNON france@{GAME} s3cret", f"SIGNOM france@{GAME} s3cret",
                                 f"JOIN {GAME} s3cret"]):
        add(f"3: password in subject {n}", plain(a, subject, "LIST\n", f"n-subject-{n}"))
    add("3: fullwidth SIGNON line", plain(a, "x", f"ＳＩＧＮＯＮ france@{GAME} s3cret\n", "n-fullwidth"))
    add("3: over-long SIGNON line", plain(a, "x", f"SIGNON france@{GAME} s3cret " + "x" * 900 + "\n", "n-long-signon"))
    # 6. hostile headers
    for n, subject in enumerate(["=?utf-8?q?LIST=0D=0ABcc:_victim@example.org?=",
                                 "=?utf-8?b?TElTVOKAqEJjYzogdmljdGltQGV4YW1wbGUub3Jn?=",  # U+2028
                                 "=?utf-8?q?a=E2=80=A9b?=", "=?utf-8?q?a=C2=85b?=", "=?utf-8?q?a=00b?=",
                                 "=?bogus-charset?q?abc?=", "=?utf-8?b?!!!notbase64?=", "=?utf-8?q?=ZZ?="]):
        add(f"6: encoded-word subject {n}", raw_mail([f"From: {a}", f"To: {JUDGE}", f"Subject: {subject}"],
                                                      b"LIST\r\n", f"n-ew-{n}"))
    add("6: From with encoded CR LF", raw_mail(["From: =?utf-8?q?x=0D=0ABcc:_v@example.org?= <a@example.net>",
                                                 f"To: {JUDGE}", "Subject: hi"], b"LIST\r\n", "n-from-crlf"))
    add("6: From address with encoded CR LF", raw_mail(["From: =?utf-8?q?a@example.net=0D=0ABcc:_v@example.org?=",
                                                         f"To: {JUDGE}", "Subject: hi"], b"LIST\r\n", "n-from-crlf2"))
    add("6: Reply-To with encoded CR LF", raw_mail([f"From: {a}", "Reply-To: =?utf-8?q?b@example.net=0D=0ABcc:_c@example.org?=",
                                                     f"To: {JUDGE}", "Subject: hi"], b"LIST\r\n", "n-replyto-crlf"))
    add("6: From: nobody", raw_mail(["From: nobody", f"To: {JUDGE}", "Subject: hi"], b"LIST\r\n", "n-nobody"), "nobody")
    add("6: no From at all", raw_mail([f"To: {JUDGE}", "Subject: hi"], b"LIST\r\n", "n-nofrom"))
    add("6: SET ADDRESS with a control character", plain(PLAYERS[4], "addr",
                                                         f"SIGNON italy@{GAME} pw4\nSET ADDRESS a\x07b@example.org\n",
                                                         "n-setaddress"), PLAYERS[4])
    for depth in (40, 1000, 3000):
        add(f"6: MIME nested {depth} deep", deep(depth, f"n-deep-{depth}"))
    add("6: MIME nested 1000 deep, never closed", deep(1000, "n-deep-open", close=False))
    # robots: processed, never answered
    add("robot: bounce", plain("mailer-daemon@example.net", "Undeliverable", "LIST\n", "n-bounce"), "")
    add("robot: Auto-Submitted", plain(a, "Out of office", "LIST\n", "n-auto", extra="Auto-Submitted: auto-replied\r\n"))
    add("robot: list mail", plain(a, "digest", "LIST\n", "n-list", extra="List-Id: <x.example.net>\r\nPrecedence: list\r\n"))
    add("robot: from the judge itself", plain(JUDGE, "loop", "LIST\n", "n-self"), JUDGE)
    return [Hostile(name, raw, mail_from) for name, raw, mail_from in cases]


# --- the fuzzer ---------------------------------------------------------------------------

_CHARSETS = ("utf-8", "us-ascii", "iso-8859-1", "utf-16", "utf-7", "koi8-r", "shift_jis", "x-bogus", "",
             "unknown-8bit", "utf-8\x00", "windows-1252", "utf-32", "idna", "rot13")
_ENCODINGS = ("7bit", "8bit", "base64", "quoted-printable", "binary", "x-uuencode", "bogus", "")
_SUBTYPES = ("mixed", "alternative", "related", "digest", "signed", "encrypted", "report", "parallel", "x-weird")
_TEXT_LINES = ("LIST", "HELP", f"LIST {GAME}", "GET KEY", f"HISTORY {GAME}", "SIGNON france@nogame pw",
               f"SIGNON italy@{GAME} wrongpw", "A PAR - BUR", "F BRE - MAO", "SET WAIT", "PRESS TO ALL",
               "ENDPRESS", "SIGNOFF", "JOIN nogame pw", "CREATE ", "SET ADDRESS x@y", "-- ", "> quoted LIST",
               "Lorem ipsum dolor sit amet", "ＬＩＳＴ", "\u2028LIST", "LIST\x00", "\ufeffHELP", "日本語のテキスト",
               "Ελληνικά", "=?utf-8?q?LIST?=")
_SENDERS = ("fuzz@example.net", "fuzz2@example.net", "Fuzz <fuzz3@example.net>", "nobody", "",
            "=?utf-8?q?Evil=0D=0A?= <fuzz4@example.net>", "fuzz5@example.net (comment", "<>",
            "\"quoted\\\" name\" <fuzz6@example.net>", "fuzz7@[127.0.0.1]", "a@b@c", "fuzz8@example.net\x00")
_ENCODED_WORDS = ("=?utf-8?q?a=0D=0Ab?=", "=?utf-8?b?4oCo?=", "=?utf-8?q?=00?=", "=?iso-8859-1?q?caf=E9?=",
                  "=?x-bogus?q?x?=", "=?utf-8?b?===?=", "=?utf-8?q?=C2=85?=", "=?utf-16?b?//5MAEkAUwBUAA==?=",
                  "=?utf-8?q?" + "a" * 200 + "?=", "=?utf-8*en?q?x?=", "=??q?x?=", "=?utf-8?x?y?=")


class Fuzzer:
    """Random, broken MIME from one ``random.Random``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def text(self, lines: int | None = None) -> str:
        count = lines if lines is not None else self.rng.randint(0, 12)
        return "\n".join(self.rng.choice(_TEXT_LINES) for _ in range(count)) + "\n"

    def junk(self, size: int) -> bytes:
        return bytes(self.rng.getrandbits(8) for _ in range(size))

    def encode_text(self, text: str, charset: str, encoding: str) -> bytes:
        """``text`` in ``charset`` (or a wrong one) under ``encoding``, perhaps broken."""
        target = charset.strip("\x00") if self.chance(0.7) else self.rng.choice(_CHARSETS)
        try:
            data = text.encode(target or "utf-8", "replace")
        except (LookupError, UnicodeError, ValueError):  # unknown, or not a text codec
            data = text.encode("utf-8", "surrogateescape")
        if self.chance(0.1):
            data = data.replace(b"\n", b"\x00\n")
        if encoding == "base64":
            encoded = base64.encodebytes(data)
            if self.chance(0.3):  # truncated, padding wrong, invalid characters
                encoded = encoded[: self.rng.randint(0, len(encoded))] + self.rng.choice([b"", b"=", b"!!*", b"===="])
            return encoded
        if encoding == "quoted-printable":
            encoded = quopri.encodestring(data)
            if self.chance(0.3):
                encoded += self.rng.choice([b"=ZZ", b"=", b"=\r", b"=0", b"=E2=80"])
            return encoded
        if encoding == "x-uuencode":
            return b"begin 644 x\r\n" + self.junk(30) + b"\r\nend\r\n"
        return data

    def headers(self, content_type: str, encoding: str) -> list[str]:
        lines = [f"Content-Type: {content_type}"]
        if encoding:
            lines.append(f"Content-Transfer-Encoding: {encoding}")
        if self.chance(0.1):
            lines.append(f"Content-Disposition: attachment; filename*=utf-8''{self.rng.choice(['%E2%80%A8', '%00', 'x%ZZ'])}")
        if self.chance(0.05):
            lines.append("No-Colon-Header-Line")
        return lines

    def entity(self, depth: int) -> bytes:
        """A MIME entity (its headers, a blank line, its body) ``depth`` levels down."""
        kinds = ["text"] * 5 + ["binary", "message"] + (["multipart"] * 4 if depth < 6 else [])
        kind = self.rng.choice(kinds)
        if kind == "text":
            charset = self.rng.choice(_CHARSETS)
            encoding = self.rng.choice(_ENCODINGS)
            subtype = self.rng.choice(["plain", "plain", "html", "enriched", "x-unknown"])
            params = f'; charset="{charset}"' if charset or self.chance(0.5) else ""
            head = self.headers(f"text/{subtype}{params}", encoding)
            body = self.encode_text(self.text(), charset, encoding)
        elif kind == "binary":
            encoding = self.rng.choice(["base64", "binary", "8bit", ""])
            data = self.junk(self.rng.randint(0, 3000))
            head = self.headers(self.rng.choice(["application/octet-stream", "image/png", "application/pgp-signature",
                                                 "application/pgp-encrypted", "audio/x-wav"]), encoding)
            body = base64.encodebytes(data) if encoding == "base64" else data
        elif kind == "message":
            head = self.headers(self.rng.choice(["message/rfc822", "message/delivery-status", "message/global"]),
                                self.rng.choice(["", "7bit", "base64"]))
            inner = "\r\n".join(self.top_headers()) + "\r\n"
            body = inner.encode("utf-8", "surrogateescape") + self.entity(depth + 1)
        else:
            return self.multipart(depth)
        return "\r\n".join(head).encode("utf-8", "surrogateescape") + b"\r\n\r\n" + body

    def multipart(self, depth: int) -> bytes:
        boundary = self.rng.choice([f"b{depth}-{self.rng.getrandbits(32):x}", "", "a" * 80, "--", " spaced ",
                                    f"b{depth}", "=_?*", "x" * 200])
        subtype = self.rng.choice(_SUBTYPES)
        if self.chance(0.1):
            content_type = f"multipart/{subtype}"  # no boundary at all
        else:
            content_type = f'multipart/{subtype}; boundary="{boundary}"'
            if subtype == "signed":
                content_type += '; protocol="application/pgp-signature"; micalg=pgp-sha256'
        used = boundary if self.chance(0.85) else boundary + "X"  # parts under another boundary
        parts = [self.entity(depth + 1) for _ in range(self.rng.randint(0, 5))]
        body = b"preamble " + self.junk(self.rng.randint(0, 20)) + b"\r\n" if self.chance(0.3) else b""
        for part in parts:
            body += f"--{used}\r\n".encode("utf-8", "surrogateescape") + part + b"\r\n"
        if self.chance(0.8):
            body += f"--{used}--\r\n".encode("utf-8", "surrogateescape")
        if self.chance(0.2):
            body += b"epilogue --" + used.encode("utf-8", "surrogateescape") + b"\r\n"
        head = self.headers(content_type, self.rng.choice(["", "", "7bit", "base64"]))
        return "\r\n".join(head).encode("utf-8", "surrogateescape") + b"\r\n\r\n" + body

    def top_headers(self) -> list[str]:
        """From, To, Subject and a few hostile extras (each line under 1000 characters)."""
        sender = self.rng.choice(_SENDERS)
        lines = [f"From: {sender}", f"To: {JUDGE}"]
        subject = self.rng.choice(["hello", "LIST", "Re: orders", f"SIGNON france@{GAME} s3cret", "",
                                   *_ENCODED_WORDS])
        if self.chance(0.3):
            subject += " " + self.rng.choice(_ENCODED_WORDS)
        lines.append(f"Subject: {subject}")
        if self.chance(0.2):
            lines.append(f"Reply-To: {self.rng.choice(_SENDERS)}")
        if self.chance(0.1):
            lines.append(f"From: {self.rng.choice(_SENDERS)}")  # a second From
        if self.chance(0.1):
            lines.append("X-Nul: a\x00b")
        if self.chance(0.1):
            lines.append("X-Raw-8bit: caf\udce9 \udcff\udcfe")  # raw bytes 0xE9 0xFF 0xFE
        if self.chance(0.05):
            lines.append(" continuation-first")
        if self.chance(0.1):
            lines.append("References: " + " ".join(f"<r{i}@x>" for i in range(self.rng.randint(1, 3000)))
                         .replace("> <", ">\r\n <"))
        if self.chance(0.05):
            lines.append("Auto-Submitted: " + self.rng.choice(["no", "auto-replied", "\x00"]))
        return lines

    def mail(self, index: int) -> Hostile:
        """The ``index``-th fuzzed mail: random headers, then a random entity or a deep chain."""
        headers = self.top_headers()
        headers.append(f"Message-ID: <fuzz-{index}@hostile.test>")
        if self.chance(0.85):
            headers.append("MIME-Version: 1.0")
        if self.chance(0.05):  # thousands of headers
            headers += [f"X-Junk-{i}: {'j' * 50}" for i in range(self.rng.randint(500, 5000))]
        if self.chance(0.05):  # one huge header, folded into lines SMTP accepts
            headers.append("X-Huge: " + "\r\n ".join("h" * 900 for _ in range(self.rng.randint(50, 300))))
        if self.chance(0.06):  # a deep chain: deep()'s body, without its five header lines
            entity = deep(self.rng.randint(20, 2500), f"fuzz-deep-{index}").split(b"\r\n", 5)[5]
        else:
            entity = self.entity(0)
        if self.chance(0.05):
            entity = entity.replace(b"\r\n\r\n", b"\r\n", 1)  # no blank line: the body runs into the headers
        # The entity's own headers (Content-Type ...) continue the mail's.
        raw = "\r\n".join(headers).encode("utf-8", "surrogateescape") + b"\r\n" + entity
        if self.chance(0.05):
            raw = raw.replace(b"\r\n", b"\r", self.rng.randint(1, 20))  # bare CRs
        if self.chance(0.03):
            raw = raw[: self.rng.randint(1, len(raw))]  # cut off anywhere
        sender = "" if self.chance(0.08) else self.rng.choice(["fuzz@example.net", "fuzz2@example.net", "fuzz9@example.net"])
        return Hostile(f"fuzz {index}", raw, sender)


def fuzzed_mails(seed: int, count: int) -> list[Hostile]:
    fuzzer = Fuzzer(random.Random(seed))
    return [fuzzer.mail(index) for index in range(count)]


def hostile_corpus(seed: int = 12, fuzzed: int = 480) -> list[Hostile]:
    """The named cases, then ``fuzzed`` fuzzed mails; every mail's bytes distinct."""
    corpus = named_cases() + fuzzed_mails(seed, fuzzed)
    assert len({mail.raw for mail in corpus}) == len(corpus), "two hostile mails are the same bytes"
    return corpus
