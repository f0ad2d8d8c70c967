"""Personal-data scrubbing for query logs: pure, no Django.

Each kind of personal data is replaced by a typed placeholder (``<EMAIL>``, ``<PHONE>``,
``<CARD>``, ``<IBAN>``, ``<IP>``, ``<NATIONAL_ID>``, or ``<NAME>`` for a project-defined pattern
called ``name``). Kinds are applied in a fixed order (e-mail, IBAN, national id, card, IP,
phone, then project patterns), so a placeholder never contains anything a later pass could match.

What is *not* personal data, and is left alone on purpose: versions (``3.11.2``), years
(``2024``), dates (``2024-01-15``), quantities (``10,000 rows``, ``1.5 GB``), ports, times,
Unix timestamps (``1700000000``), ISBNs, order numbers.
A phone number needs a phone-like shape: a leading ``+``/``00``, a trunk ``0`` with separators,
a bracketed area code, or the North-American 3-3-4 / 3-4 grouping; plain digit runs count only
when they are 10-11 digits long and start with 0, or 11 digits long and start with 1 (common
local/mobile forms). Mainland China: mobile numbers ``1[3-9]x xxxx xxxx`` (with or without
``+86``/``0086``/``(+86)``, spaces or dashes) and landlines ``0`` + area code + 7-8 digits.
A card number must pass the Luhn check and start as payment cards start (3-6, or 2221-2720 with
16 digits); an IBAN the ISO 13616 mod-97 check; a resident id number of mainland China
(``NATIONAL_ID``, 18 characters) a known region, a real birth date and its ISO 7064 check
character, so that an 18-digit order number is left alone.

Chinese is written without spaces, and a Han character is a word character to ``re``: inside
``我的邮箱是jane@example.com谢谢`` no ``\\b`` bounds the address. A text holding Han characters is
therefore matched through a copy in which each Han character is a NUL (same length, not a word
character, in no pattern), and the matches are replaced in the text itself. A text without Han
characters is matched directly, at no extra cost.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date

from goldsmith.intake.tokenizers import HAN, has_han

EMAIL = "EMAIL"
IBAN = "IBAN"
NATIONAL_ID = "NATIONAL_ID"
CARD = "CARD"
IP = "IP"
PHONE = "PHONE"
BUILTIN_KINDS: tuple[str, ...] = (EMAIL, IBAN, NATIONAL_ID, CARD, IP, PHONE)

_EMAIL_RE = re.compile(
    r"(?<![\w.+-])[\w.+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b"
)
# Obfuscated forms people type to dodge filters: "jane at example dot com", "jane[at]example.com".
_EMAIL_OBFUSCATED_RE = re.compile(
    r"\b[\w.+-]{1,64}\s*(?:\[at\]|\(at\)|\{at\})\s*[A-Za-z0-9-]+"
    r"(?:\s*(?:\.|\[dot\]|\(dot\)|\s+dot\s+)\s*[A-Za-z0-9-]+)+\b"
    r"|\b[\w.+-]{1,64}\s+at\s+[A-Za-z0-9-]+(?:\s+dot\s+[A-Za-z0-9-]+)+\b",
    re.IGNORECASE,
)
_IBAN_RE = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b", re.I)
# Resident id number: region (6), birth date (8), sequence (3), check character; optionally
# written 6 8 4 with spaces.
_NATIONAL_ID_RE = re.compile(r"(?<!\d)[1-9]\d{5} ?(?:18|19|20)\d{6} ?\d{3}[\dXx](?![\dXx])")
_CARD_RE = re.compile(r"(?<![\d.,+])\d(?:[ -]?\d){12,18}(?![\d.,]\d)")
_IPV4_RE = re.compile(
    r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
    r"(?![\d]|\.\d)"
)
_H = r"[0-9A-Fa-f]{1,4}"
_IPV6_RE = re.compile(
    rf"(?<![\w:])(?:(?:{_H}:){{7}}{_H}|(?:{_H}:){{1,6}}:(?:{_H}(?::{_H}){{0,5}})?|::(?:{_H}:){{0,6}}{_H})"
    r"(?![\w:])"
)
_HAS_DIGIT = re.compile(r"\d").search
# Anything that could be personal data has one of these; the rest skips the full passes. A run
# of 7+ digits/separators covers phones, cards, IBAN digits and IPv4; ':' groups cover IPv6.
_SUSPECT = re.compile(
    r"@|\d[\d\s().\-/]{5,}\d|[0-9A-Fa-f]{0,4}:[0-9A-Fa-f]{0,4}:|[\[({]at[\])}]|\bat\b.+\bdot\b",
    re.IGNORECASE,
).search
_SEP = r"[ .\-/]"
_CN_AREA = r"(?:10|2\d|[3-9]\d\d)"  # 010 Beijing, 02x the largest cities, 0xxx elsewhere
_PHONE_RE = re.compile(
    "|".join(
        [
            # Mainland China mobile: 138 1234 5678, 138-1234-5678, +86 13812345678, (+86)138….
            r"(?<![\d+])(?:(?:\+|00)86[ -]?|\(\+?86\)[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}(?!\d)",
            # Mainland China landline: 010-88886666, (0755)86001234, +86 21 6123 4567.
            rf"(?<![\d+])(?:(?:\+|00)86[ -]?0?{_CN_AREA}|0{_CN_AREA}|\(0{_CN_AREA}\))"
            r"[ -]?[2-9]\d{2,3}[ -]?\d{4}(?!\d)",
            # International: +CC or 00CC, optional (0) or bracketed area code, then groups.
            rf"(?<![\w+])(?:\+|\b00)\d{{1,3}}(?:{_SEP}?\(0?\d{{1,4}}\))?(?:{_SEP}?\d{{1,5}}){{1,6}}\b",
            # Bracketed area code: (555) 123-4567, (020) 7946 0958.
            rf"(?<!\w)\(\d{{2,5}}\){_SEP}?\d{{2,4}}(?:{_SEP}?\d{{2,4}}){{1,3}}\b",
            # North-American 3-3-4 and 3-4 with a separator, optionally preceded by 1-.
            rf"(?<![\w.\-/])(?:1{_SEP})?\d{{3}}{_SEP}\d{{3}}{_SEP}\d{{4}}\b(?![.\-/]\d)",
            r"(?<![\w.\-/:])\d{3}-\d{4}\b(?![.\-/:]\d)",
            # Trunk-prefix local numbers: 020 7946 0958, 06 12 34 56 78, 0171/1234567.
            rf"(?<![\w.\-/:])0\d{{1,4}}(?:{_SEP}\d{{2,8}}){{1,4}}\b(?![.\-/:]\d)",
            # Unseparated local/mobile numbers: 0612345678, 07946095812, 15551234567 (ten
            # digits starting with 1 are a Unix timestamp, not a phone).
            r"(?<![\w.,])(?:0\d{9,10}|1\d{10})\b(?![.,]\d)",
        ]
    )
)
# Two-digit codes of the provinces, municipalities and regions that begin a resident id.
_CN_REGIONS = frozenset(
    ("11", "12", "13", "14", "15", "21", "22", "23", "31", "32", "33", "34", "35", "36", "37",
     "41", "42", "43", "44", "45", "46", "50", "51", "52", "53", "54", "61", "62", "63", "64",
     "65", "71", "81", "82", "83", "91")
)  # fmt: skip
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_HAN_RE = re.compile(f"[{HAN}]")


def luhn_valid(digits: str) -> bool:
    """The Luhn (mod 10) check used by payment card numbers."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def iban_valid(candidate: str) -> bool:
    """ISO 13616: move the first four characters to the end, letters to 10..35, mod 97 == 1."""
    compact = candidate.replace(" ", "").upper()
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    try:
        number = int("".join(str(int(ch, 36)) for ch in rearranged))
    except ValueError:
        return False
    return number % 97 == 1


def national_id_valid(candidate: str) -> bool:
    """A mainland resident id number: a known region, a real birth date not in the future, and
    the ISO 7064 MOD 11-2 check character (0-9 or X) over the first 17 digits."""
    compact = candidate.replace(" ", "").upper()
    if len(compact) != 18 or compact[:2] not in _CN_REGIONS:
        return False
    try:
        born = date(int(compact[6:10]), int(compact[10:12]), int(compact[12:14]))
    except ValueError:
        return False
    if born.year < 1900 or born > date.today():
        return False
    total = sum(int(d) * w for d, w in zip(compact[:17], _ID_WEIGHTS, strict=True))
    return "10X98765432"[total % 11] == compact[17]


def _digit_count(text: str) -> int:
    return sum(1 for ch in text if ch.isdigit())


@dataclass(frozen=True)
class ScrubResult:
    text: str
    counts: dict[str, int]


@dataclass
class Scrubber:
    """Replaces personal data by typed placeholders and counts what it replaced.

    `patterns` maps an extra kind (upper-cased into the placeholder) to a regular expression,
    e.g. ``{"TICKET": r"\\bTCK-\\d{6}\\b"}``.
    """

    patterns: dict[str, str] = field(default_factory=dict)
    totals: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._extra: list[tuple[str, re.Pattern[str]]] = []
        for name, pattern in self.patterns.items():
            kind = re.sub(r"[^A-Z0-9_]", "_", name.strip().upper()) or "CUSTOM"
            try:
                self._extra.append((kind, re.compile(pattern)))
            except re.error as error:
                raise ValueError(
                    f"pattern {name!r} is not a valid regular expression: {error}"
                ) from None

    def scrub(self, text: str) -> ScrubResult:
        counts: Counter[str] = Counter()
        out = self.scrub_into(text, counts)
        self.totals.update(counts)
        return ScrubResult(out, dict(counts))

    def scrub_into(self, text: str, counts: Counter[str]) -> str:
        """Scrub `text`, adding what was replaced to `counts` (not to `totals`)."""
        # Fast path: most queries hold no '@', no "at … dot", no long run of digits and
        # separators and no hex-colon group; they skip the full passes.
        if _SUSPECT(text) is not None:
            # Matched in `seen`, replaced in `text` (see the module docstring).
            seen = _HAN_RE.sub("\x00", text) if has_han(text) else text
            if "@" in text:
                text, seen = _sub(_EMAIL_RE, EMAIL, text, seen, counts)
            text, seen = _sub(_EMAIL_OBFUSCATED_RE, EMAIL, text, seen, counts)
            if _HAS_DIGIT(text) is not None:
                text, seen = _sub(_IBAN_RE, IBAN, text, seen, counts, iban_valid)
                text, seen = _sub(
                    _NATIONAL_ID_RE, NATIONAL_ID, text, seen, counts, national_id_valid
                )
                text, seen = _sub(_CARD_RE, CARD, text, seen, counts, _card_valid)
                text, seen = _sub(_IPV4_RE, IP, text, seen, counts)
                if ":" in text:
                    text, seen = _sub(_IPV6_RE, IP, text, seen, counts, _ipv6_plausible)
                text, seen = _sub(_PHONE_RE, PHONE, text, seen, counts, _phone_plausible)
        for kind, pattern in self._extra:
            text, _ = _sub(pattern, kind, text, text, counts)
        return text


def _card_valid(match: str) -> bool:
    """13-19 digits passing Luhn, starting as payment cards start: 3 (Amex, JCB, Diners), 4
    (Visa), 5 (Mastercard, Maestro), 6 (UnionPay, Discover, Maestro), or 2221-2720 (Mastercard,
    16 digits). A number starting with 0, 1, 7, 8 or 9 (a timestamp, an ISBN) is no card."""
    digits = re.sub(r"\D", "", match)
    if not 13 <= len(digits) <= 19:
        return False
    if digits[0] == "2":
        if len(digits) != 16 or not 2221 <= int(digits[:4]) <= 2720:
            return False
    elif digits[0] not in "3456":
        return False
    return luhn_valid(digits)


def _ipv6_plausible(match: str) -> bool:
    # "a::b" style C++ names are not addresses: demand at least three groups and a digit.
    return match.count(":") >= 2 and any(ch.isdigit() for ch in match) and len(match) >= 6


def _phone_plausible(match: str) -> bool:
    digits = _digit_count(match)
    if match.startswith(("+", "00", "(")):
        return 7 <= digits <= 15
    if re.fullmatch(r"\d{3}-\d{4}", match):
        return True
    return 9 <= digits <= 13


def _sub(
    pattern: re.Pattern[str],
    kind: str,
    text: str,
    seen: str,
    counts: Counter[str],
    accept: Callable[[str], bool] | None = None,
) -> tuple[str, str]:
    """Replace what `pattern` matches in `seen` by the kind's placeholder, in `seen` and in
    `text` alike. `seen` is `text` itself, or `text` with each Han character as a NUL: no match
    holds a NUL, so a match in `seen` is the same text at the same place in `text`."""
    placeholder = f"<{kind}>"
    if seen is text:
        found = 0

        def replace(match: re.Match[str]) -> str:
            nonlocal found
            if accept is not None and not accept(match.group(0)):
                return match.group(0)
            found += 1
            return placeholder

        result = pattern.sub(replace, text)
        if found:
            counts[kind] += found
        return result, result
    pieces: list[str] = []
    masked: list[str] = []
    last = 0
    for match in pattern.finditer(seen):
        if accept is not None and not accept(match.group(0)):
            continue
        start, end = match.span()
        pieces += [text[last:start], placeholder]
        masked += [seen[last:start], placeholder]
        last = end
    if not pieces:
        return text, seen
    counts[kind] += len(pieces) // 2
    return "".join([*pieces, text[last:]]), "".join([*masked, seen[last:]])


def scrub(text: str, patterns: dict[str, str] | None = None) -> ScrubResult:
    """One-off scrubbing of a single text (imports keep one `Scrubber` for the whole file)."""
    return Scrubber(patterns=dict(patterns or {})).scrub(text)


def parse_patterns(lines: Iterable[str]) -> dict[str, str]:
    """``NAME=REGEX`` lines (blank lines and ``#`` comments ignored) into a pattern dict."""
    patterns: dict[str, str] = {}
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, regex = line.partition("=")
        if not sep or not name.strip() or not regex:
            raise ValueError(f"pattern line {number}: expected NAME=REGEX, got {line!r}")
        try:
            re.compile(regex)
        except re.error as error:
            raise ValueError(f"pattern line {number}: {name.strip()!r}: {error}") from None
        patterns[name.strip()] = regex
    return patterns
