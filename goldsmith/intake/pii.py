"""Personal-data scrubbing for query logs: pure, no Django.

Each kind of personal data is replaced by a typed placeholder (``<EMAIL>``, ``<PHONE>``,
``<CARD>``, ``<IBAN>``, ``<IP>``, or ``<NAME>`` for a project-defined pattern called ``name``).
Kinds are applied in a fixed order (e-mail, IBAN, card, IP, phone, then project patterns), so a
placeholder never contains anything a later pass could match.

What is *not* personal data, and is left alone on purpose: versions (``3.11.2``), years
(``2024``), dates (``2024-01-15``), quantities (``10,000 rows``, ``1.5 GB``), ports, times.
A phone number needs a phone-like shape: a leading ``+``/``00``, a trunk ``0`` with separators,
a bracketed area code, or the North-American 3-3-4 / 3-4 grouping; plain digit runs count only
when they are 10-11 digits long and start with 0 or 1 (common local/mobile forms).
A card number must pass the Luhn check, an IBAN the ISO 13616 mod-97 check.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

EMAIL = "EMAIL"
IBAN = "IBAN"
CARD = "CARD"
IP = "IP"
PHONE = "PHONE"
BUILTIN_KINDS: tuple[str, ...] = (EMAIL, IBAN, CARD, IP, PHONE)

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
_PHONE_RE = re.compile(
    "|".join(
        [
            # International: +CC or 00CC, optional (0) or bracketed area code, then groups.
            rf"(?<![\w+])(?:\+|\b00)\d{{1,3}}(?:{_SEP}?\(0?\d{{1,4}}\))?(?:{_SEP}?\d{{1,5}}){{1,6}}\b",
            # Bracketed area code: (555) 123-4567, (020) 7946 0958.
            rf"(?<!\w)\(\d{{2,5}}\){_SEP}?\d{{2,4}}(?:{_SEP}?\d{{2,4}}){{1,3}}\b",
            # North-American 3-3-4 and 3-4 with a separator, optionally preceded by 1-.
            rf"(?<![\w.\-/])(?:1{_SEP})?\d{{3}}{_SEP}\d{{3}}{_SEP}\d{{4}}\b(?![.\-/]\d)",
            r"(?<![\w.\-/:])\d{3}-\d{4}\b(?![.\-/:]\d)",
            # Trunk-prefix local numbers: 020 7946 0958, 06 12 34 56 78, 0171/1234567.
            rf"(?<![\w.\-/:])0\d{{1,4}}(?:{_SEP}\d{{2,8}}){{1,4}}\b(?![.\-/:]\d)",
            # Unseparated local/mobile numbers: 0612345678, 07946095812, 15551234567.
            r"(?<![\w.,])[01]\d{9,10}\b(?![.,]\d)",
        ]
    )
)


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

    def scrub_text(self, text: str) -> str:
        """Scrub and add to `totals`; the fast path used by imports."""
        return self.scrub_into(text, self.totals)

    def scrub_into(self, text: str, counts: Counter[str]) -> str:
        """Scrub `text`, adding what was replaced to `counts` (not to `totals`)."""
        # Fast path: most queries hold no '@', no "at … dot", no long run of digits and
        # separators and no hex-colon group; they skip the full passes.
        if _SUSPECT(text) is not None:
            if "@" in text:
                text = _sub(_EMAIL_RE, EMAIL, text, counts)
            text = _sub(_EMAIL_OBFUSCATED_RE, EMAIL, text, counts)
            has_digit = _HAS_DIGIT(text) is not None
        else:
            has_digit = False
        if has_digit:
            text = _sub(_IBAN_RE, IBAN, text, counts, iban_valid)
            text = _sub(_CARD_RE, CARD, text, counts, _card_valid)
            text = _sub(_IPV4_RE, IP, text, counts)
            if ":" in text:
                text = _sub(_IPV6_RE, IP, text, counts, _ipv6_plausible)
            text = _sub(_PHONE_RE, PHONE, text, counts, _phone_plausible)
        for kind, pattern in self._extra:
            text = _sub(pattern, kind, text, counts)
        return text


def _card_valid(match: str) -> bool:
    digits = re.sub(r"\D", "", match)
    return 13 <= len(digits) <= 19 and luhn_valid(digits)


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
    counts: Counter[str],
    accept: Callable[[str], bool] | None = None,
) -> str:
    placeholder = f"<{kind}>"
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
    return result


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
