"""Closed answers read from text: numbers with units, dates, yes/no, choices.

Pure module (the standard library only). What is supported is deliberately explicit, so a
score can say why it is what it is (docs/formats.md, "Answers: what the rules read"):

- **Numbers**: digits with an optional sign, thousand separators (``1,234``) and decimals
  (``3.5``); English number words from zero to the millions (``seven``, ``twenty-one``,
  ``two hundred``); Chinese numerals (``七``, ``十四``, ``两百``, ``三万``) when a unit follows.
- **Units** after the number (or a currency sign before it). Units of one dimension convert
  where the conversion is exact and unambiguous: seconds, minutes, hours, days and weeks;
  months and years (12); grams and kilograms; millimetres to kilometres. Business days, months
  and days, and KB/MB/GB/TB (1000 or 1024?) do not convert into one another. Percent: ``%``,
  ``percent``, ``百分之``. Currencies: $, USD, dollars; €, EUR; £, GBP; ¥, 元, 块, RMB, CNY;
  日元, JPY. Chinese units: 天, 日, 周, 星期, 礼拜, 小时, 钟头, 分钟, 秒, 个月, 年, 工作日,
  公斤, 千克, 克, 公里, 千米, 米, 厘米, 毫米. So "7 days" = "7 天" = "one week" = "seven days".
- **A number answer** (:func:`number_answer`) reads a Chinese year of its own (``1420年``, with
  no month after it) as the number 1420: "which year..." is asked with a number answer in
  Chinese, so the year is the answer's number, not a date it cannot match.
- **Dates**: ISO (``2024-03-05``, also with ``/`` or ``.``), ``5/3/2024`` (both day/month
  readings when both are valid), English (``March 5, 2024``, ``5 March 2024``, ``Mar 5th 2024``,
  ``March 2024``), Chinese (``2024年3月5日``, ``2024年3月5号``, ``二〇二四年三月五日``,
  ``2024年3月``). A date may lack its day (and month): it then equals any date in it.
- **Yes/no**: yes, yeah, yep, true, correct, right / no, nope, false, incorrect; 是, 是的, 对,
  对的, 可以, 能, 有, 会, 没错, 正确 / 否, 不, 不是, 不对, 不可以, 不能, 没有, 没, 不会, 错.
- **Choices**: a response picks a choice when, after normalisation (NFKC, case-folded, outer
  punctuation and spaces dropped), it equals the choice or names it as a whole phrase, and names
  no other choice.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import Literal, NamedTuple

# --------------------------------------------------------------------------------------------
# Units: alias → (unit, dimension, factor to the dimension's base unit)

_UNIT_TABLE: dict[str, tuple[str, str, float]] = {
    "second": ("second", "time", 1.0),
    "minute": ("minute", "time", 60.0),
    "hour": ("hour", "time", 3600.0),
    "day": ("day", "time", 86400.0),
    "week": ("week", "time", 604800.0),
    "business day": ("business day", "business day", 1.0),
    "month": ("month", "month", 1.0),
    "year": ("year", "month", 12.0),
    "percent": ("percent", "percent", 1.0),
    "usd": ("usd", "usd", 1.0),
    "eur": ("eur", "eur", 1.0),
    "gbp": ("gbp", "gbp", 1.0),
    "cny": ("cny", "cny", 1.0),
    "jpy": ("jpy", "jpy", 1.0),
    "mg": ("mg", "mass", 0.001),
    "g": ("g", "mass", 1.0),
    "kg": ("kg", "mass", 1000.0),
    "mm": ("mm", "length", 0.001),
    "cm": ("cm", "length", 0.01),
    "m": ("m", "length", 1.0),
    "km": ("km", "length", 1000.0),
    "kb": ("kb", "kb", 1.0),
    "mb": ("mb", "mb", 1.0),
    "gb": ("gb", "gb", 1.0),
    "tb": ("tb", "tb", 1.0),
}

_EN_UNITS: dict[str, str] = {
    "seconds": "second", "second": "second", "secs": "second", "sec": "second",
    "minutes": "minute", "minute": "minute", "mins": "minute", "min": "minute",
    "hours": "hour", "hour": "hour", "hrs": "hour", "hr": "hour",
    "days": "day", "day": "day", "calendar days": "day", "calendar day": "day",
    "business days": "business day", "business day": "business day",
    "working days": "business day", "working day": "business day",
    "weeks": "week", "week": "week", "wks": "week", "wk": "week",
    "months": "month", "month": "month",
    "years": "year", "year": "year", "yrs": "year", "yr": "year",
    "percent": "percent", "per cent": "percent", "pct": "percent", "%": "percent",
    "usd": "usd", "dollars": "usd", "dollar": "usd",
    "eur": "eur", "euros": "eur", "euro": "eur",
    "gbp": "gbp", "pounds": "gbp",
    "rmb": "cny", "cny": "cny", "yuan": "cny",
    "jpy": "jpy", "yen": "jpy",
    "kilograms": "kg", "kilogram": "kg", "kilos": "kg", "kg": "kg",
    "grams": "g", "gram": "g", "g": "g", "mg": "mg",
    "kilometers": "km", "kilometres": "km", "kilometer": "km", "kilometre": "km", "km": "km",
    "meters": "m", "metres": "m", "meter": "m", "metre": "m", "m": "m",
    "cm": "cm", "mm": "mm",
    "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb",
}  # fmt: skip
_ZH_UNITS: dict[str, str] = {
    "天": "day", "日": "day", "工作日": "business day", "个工作日": "business day",
    "周": "week", "週": "week", "个星期": "week", "星期": "week", "个礼拜": "week", "礼拜": "week",
    "个小时": "hour", "小时": "hour", "个钟头": "hour", "钟头": "hour", "分钟": "minute",
    "秒钟": "second", "秒": "second", "个月": "month", "年": "year",
    "元": "cny", "块钱": "cny", "块": "cny", "日元": "jpy", "美元": "usd", "欧元": "eur",
    "英镑": "gbp", "公斤": "kg", "千克": "kg", "克": "g", "毫克": "mg", "公里": "km",
    "千米": "km", "厘米": "cm", "毫米": "mm", "米": "m",
}  # fmt: skip
_PREFIX_UNITS = {"$": "usd", "€": "eur", "£": "gbp", "¥": "cny", "￥": "cny"}


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_EN_UNIT_RE = _alternation([w for w in _EN_UNITS if w != "%"])
_ZH_UNIT_RE = _alternation(list(_ZH_UNITS))

# --------------------------------------------------------------------------------------------
# Number words

_EN_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_EN_SCALE = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_EN_WORD = _alternation([*_EN_SMALL, *_EN_SCALE])
_EN_NUMBER_WORDS = rf"(?:{_EN_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{_EN_WORD}))*"

_ZH_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
    "八": 8, "九": 9,
}  # fmt: skip
_ZH_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_ZH_BIG_UNITS = {"万": 10_000, "亿": 100_000_000}
_ZH_NUM = "零〇一二两三四五六七八九十百千万亿"


def en_words_value(text: str) -> float | None:
    """``"twenty-one"`` → 21, ``"two hundred and five"`` → 205; None when not a number."""
    total = current = 0
    seen = False
    for word in re.split(r"[\s-]+", text.lower()):
        if word in ("", "and"):
            continue
        if word in _EN_SMALL:
            current += _EN_SMALL[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _EN_SCALE:
            total += max(current, 1) * _EN_SCALE[word]
            current = 0
        else:
            return None
        seen = True
    return float(total + current) if seen else None


def zh_numeral_value(text: str) -> float | None:
    """Chinese numerals: ``十四`` → 14, ``一百零五`` → 105, ``三万`` → 30000, ``二〇二四`` → 2024
    (digit by digit when no 十/百/千/万/亿 appears); None when not a number."""
    if not text or any(c not in _ZH_NUM for c in text):
        return None
    if not any(c in _ZH_SMALL_UNITS or c in _ZH_BIG_UNITS for c in text):
        return float(int("".join(str(_ZH_DIGITS[c]) for c in text)))
    total = section = digit = 0
    for c in text:
        if c in _ZH_DIGITS:
            digit = _ZH_DIGITS[c]
        elif c in _ZH_SMALL_UNITS:
            section += (digit or 1) * _ZH_SMALL_UNITS[c]
            digit = 0
        else:
            total += (section + digit) * _ZH_BIG_UNITS[c]
            section = digit = 0
    return float(total + section + digit)


# --------------------------------------------------------------------------------------------
# Quantities


class Quantity(NamedTuple):
    """A number read from text: its ``value``, canonical ``unit`` (None: none given), the
    unit's ``dimension`` and the value in the dimension's base unit (``base``), and the text
    it was read from (``surface``), which reasons quote."""

    value: float
    unit: str | None
    surface: str
    start: int
    end: int

    @property
    def dimension(self) -> str | None:
        return None if self.unit is None else _UNIT_TABLE[self.unit][1]

    @property
    def base(self) -> float:
        return self.value if self.unit is None else self.value * _UNIT_TABLE[self.unit][2]

    def same_as(self, other: Quantity, tolerance: float = 0.0) -> bool:
        """Equal value in the same dimension (converted), within a relative ``tolerance``; a
        number without a unit compares by value with any unit."""
        if self.unit is not None and other.unit is not None:
            if self.dimension != other.dimension:
                return False
            a, b = self.base, other.base
        else:
            a, b = self.value, other.value
        return close(a, b, tolerance)

    def comparable(self, other: Quantity) -> bool:
        """Both carry a unit of the same dimension (so a different value contradicts)."""
        return self.unit is not None and self.dimension == other.dimension


def close(a: float, b: float, tolerance: float = 0.0) -> bool:
    """``|a − b| ≤ max(tolerance·|b|, 1e-9·max(1, |b|))``: exact up to float noise by default."""
    return abs(a - b) <= max(tolerance * abs(b), 1e-9 * max(1.0, abs(b)))


_DIGITS = r"[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_UNIT = (
    rf"(?P<unit>\s?%|\s?(?:{_ZH_UNIT_RE})|\s+(?:{_EN_UNIT_RE})(?![A-Za-z])"
    rf"|(?:{_EN_UNIT_RE})(?![A-Za-z]))?"
)
# Three passes, each run only when the text can hold its kind of number (a pattern with one
# alternation of every number word, scanned at every position, cost 50 times more). The digit
# pattern starts with a digit or a sign, so the regular expression engine skips ahead to one;
# what may stand before the number (no letter or digit; a currency sign) is checked after.
_DIGIT_RE = re.compile(
    rf"(?P<digits>[-−0-9][0-9]*(?:,[0-9]{{3}})*(?:\.[0-9]+)?){_UNIT}", re.IGNORECASE
)
# The same on lower-cased text, case-sensitive: a pattern that starts with a plain character set
# lets the engine skip to the next digit at C speed (IGNORECASE turns that off).
_DIGIT_LOWER_RE = re.compile(rf"(?P<digits>[-−0-9][0-9]*(?:,[0-9]{{3}})*(?:\.[0-9]+)?){_UNIT}")
_WORDS_RE = re.compile(rf"(?<![A-Za-z])(?P<words>{_EN_NUMBER_WORDS})\b{_UNIT}", re.IGNORECASE)
_ZH_RE = re.compile(rf"(?P<zh>[{_ZH_NUM}]+)(?=\s?(?:{_ZH_UNIT_RE})){_UNIT}")
_ZH_PERCENT_RE = re.compile(rf"百分之(?P<n>[{_ZH_NUM}]+|\d+(?:\.\d+)?)")
_ASCII_WORD = re.compile(r"[a-z]+")
_NUMBER_WORDS = frozenset([*_EN_SMALL, *_EN_SCALE])
_ZH_NUM_SET = frozenset(_ZH_NUM)
_ASCII_SPACES = str.maketrans({chr(c): " " for c in range(128) if not chr(c).isalnum()})
# The same for ASCII text as bytes: bytes.translate is a table lookup, ten times faster.
_BYTE_SPACES = bytes(c if chr(c).isalnum() else 32 for c in range(256))
# ASCII digits as "0", everything else as a space: "0000" in the result finds a year at C speed.
_BYTE_DIGITS_AS_ZERO = bytes(48 if 48 <= c <= 57 else 32 for c in range(256))


def _ascii_words(lower: str) -> list[str]:
    """The words of lower-cased text, every character but letters and digits a space."""
    if lower.isascii():
        return lower.encode().translate(_BYTE_SPACES).decode().split()
    return lower.translate(_ASCII_SPACES).split()


_NOT_BEFORE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,")


def quantities(text: str, *, bare_words: bool = True) -> tuple[Quantity, ...]:
    """Every number in ``text`` (dates excluded: they are read by :func:`dates` and their
    characters skipped here), with its unit when one follows (or a currency sign precedes).
    ``bare_words=False`` keeps English number words only when a unit follows them ("seven
    days", not "one of them"). Remembered per text (the last 65,536)."""
    return _quantities(text, bare_words)


@lru_cache(maxsize=1 << 16)
def _quantities(text: str, bare_words: bool) -> tuple[Quantity, ...]:
    # Cheap sieves first (substring searches run at C speed; a regular expression scanning
    # the whole text costs ten times more), then the exact test.
    ascii_text = text.isascii()
    if ascii_text:  # where the first digit stands, by one table lookup per character
        digit_at = text.encode().translate(_BYTE_DIGITS_AS_ZERO).find(b"0")
        digits = digit_at >= 0
    else:
        digits = any(d in text for d in "0123456789")
    lower = text.lower()
    # One split and one set test: 31 substring searches for the number words cost four times
    # more than this exact test on a text that holds none.
    words = not _NUMBER_WORDS.isdisjoint(_ascii_words(lower))
    han = not ascii_text and not _ZH_NUM_SET.isdisjoint(text)
    if not (digits or words or han):
        return ()
    masked = _mask(text, [(d.start, d.end) for d in dates(text)])
    out: list[Quantity] = []
    if han:
        for m in _ZH_PERCENT_RE.finditer(masked):
            n = m.group("n")
            v = zh_numeral_value(n) if n[0] in _ZH_NUM else float(n)
            if v is not None:
                out.append(Quantity(v, "percent", m.group(), m.start(), m.end()))
    lowered = masked.lower()
    digit_re, digit_text = (
        (_DIGIT_LOWER_RE, lowered) if len(lowered) == len(masked) else (_DIGIT_RE, masked)
    )
    # A number of the digit pattern starts with a digit or a sign: in ASCII text, not before
    # the first of them (masking dates only turns characters into spaces).
    first = 0
    if ascii_text and digits:
        dash = lowered.find("-")
        first = digit_at if dash < 0 else min(digit_at, dash)
    passes = [
        (p, scanned, kind, pos)
        for p, scanned, kind, pos, on in (
            (digit_re, digit_text, "digits", first, digits),
            (_WORDS_RE, masked, "words", 0, words),
            (_ZH_RE, masked, "zh", 0, han),
        )
        if on
    ]
    for pattern, scanned, kind, pos in passes:
        taken = [(q.start, q.end) for q in out]
        for m in pattern.finditer(scanned, pos):
            start = m.start()
            if (
                kind == "digits"
                and start
                and scanned[start - 1] in _NOT_BEFORE
                and scanned[start] not in "-−"
            ):  # inside a word or a longer number: q12f3
                continue
            if taken and any(s < m.end() and start < e for s, e in taken):
                continue
            q = _quantity(m, bare_words, masked, kind)
            if q is not None:
                out.append(q)
    return tuple(sorted(out, key=lambda q: q.start))


def _quantity(m: re.Match[str], bare_words: bool, text: str, kind: str) -> Quantity | None:
    """The quantity a match of the ``kind`` pass (``digits``, ``words``, ``zh``) reads."""
    start = m.start()
    digits = m.group("digits") if kind == "digits" else None
    prefix = None
    if digits is not None:
        if digits[0] in "-−" and (
            len(digits) == 1
            or not digits[1].isdigit()
            or (start and text[start - 1] in _NOT_BEFORE)
        ):  # a lone sign, or a dash between two numbers (5-7 days): the number after it
            digits, start = digits[1:], start + 1
            if not digits or not digits[0].isdigit():
                return None
        elif start and text[start - 1] in _NOT_BEFORE:  # inside a word or a longer number
            return None
        at = start - 1 if start and text[start - 1] != " " else start - 2
        if at >= 0 and text[at] in _PREFIX_UNITS:
            prefix, start = text[at], at
    raw_unit = m.group("unit")
    unit = _unit_of(raw_unit.strip().lower(), prefix) if raw_unit else _unit_of("", prefix)
    if digits is not None:
        value: float | None = float(digits.replace(",", "").replace("−", "-"))
    elif kind == "words":
        if unit is None and not bare_words:
            return None
        value = en_words_value(m.group("words"))
    else:
        value = zh_numeral_value(m.group("zh"))
    if value is None or (unit == "year" and value >= 1000):  # 2024年 is a year, not a duration
        return None
    return Quantity(value, unit, text[start : m.end()].strip(), start, m.end())


def number_answer(text: str) -> tuple[Quantity, ...]:
    """The numbers a number answer states: :func:`quantities`, and each Chinese year standing
    alone (``1420年``, ``公元1420年``: a date with a year only, written with 年) as a number
    without a unit, so "1420年" equals "1420" and "1420年" (docs/formats.md)."""
    found = list(quantities(text))
    for d in dates(text) if "年" in text else ():
        if d.surface.endswith("年") and all(m is None for _, m, _ in d.readings):
            found.append(Quantity(float(d.readings[0][0]), None, d.surface, d.start, d.end))
    return tuple(sorted(found, key=lambda q: q.start))


@lru_cache(maxsize=1 << 10)
def _unit_of(raw: str, prefix: str | None) -> str | None:
    if prefix:
        return _PREFIX_UNITS[prefix]
    if not raw:
        return None
    if raw == "%":
        return "percent"
    raw = " ".join(raw.split())
    return _EN_UNITS.get(raw) or _ZH_UNITS.get(raw)


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    chars = list(text)
    for s, e in spans:
        chars[s:e] = " " * (e - s)
    return "".join(chars)


def describe(q: Quantity) -> str:
    """How a reason quotes a quantity: the text it was read from."""
    return q.surface


# --------------------------------------------------------------------------------------------
# Dates

_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH_RE = _alternation(list(_MONTHS))
_MONTH_KEYS = frozenset(_MONTHS)
_ORD = r"(?:st|nd|rd|th)?"
_ZH_Y = r"(\d{4}|[〇零一二三四五六七八九]{4})"
_ZH_MD = rf"(\d{{1,2}}|[{_ZH_NUM}]{{1,3}})"
_DATE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # Numeric forms start with a plain character set, so the engine skips to a digit at C
    # speed; that no digit touches them on either side is checked after the match.
    ("ymd", re.compile(r"([0-9]{4})[-/.]([0-9]{1,2})[-/.]([0-9]{1,2})")),
    ("dmy_or_mdy", re.compile(r"([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})")),
    ("zh", re.compile(rf"{_ZH_Y}年{_ZH_MD}月(?:{_ZH_MD}[日号])?")),
    ("zh_year", re.compile(rf"{_ZH_Y}年(?!\s*{_ZH_MD}月)")),
    ("mdy", re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}}){_ORD},?\s+(\d{{4}})\b", re.I)),
    ("dmy", re.compile(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b", re.I)),
    ("my", re.compile(rf"\b({_MONTH_RE})\.?,?\s+(\d{{4}})\b", re.I)),
]

# The English forms again, for ASCII text: matched case-sensitively on the lower-cased text
# and without their leading \b, so that the engine skips at C speed to a character that can
# start one (a month's first letter, a digit) instead of trying the pattern at every position;
# the boundary is checked after the match (see _at_word_starts). Same matches, same spans.
_ASCII_DATE_PATTERNS: dict[str, re.Pattern[str]] = {
    "mdy": re.compile(rf"({_MONTH_RE})\.?\s+(\d{{1,2}}){_ORD},?\s+(\d{{4}})\b"),
    "dmy": re.compile(rf"(\d{{1,2}}){_ORD}\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b"),
    "my": re.compile(rf"({_MONTH_RE})\.?,?\s+(\d{{4}})\b"),
}
_ASCII_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _at_word_starts(pattern: re.Pattern[str], text: str, pos: int) -> Iterator[re.Match[str]]:
    """What ``finditer`` of ``\b`` + ``pattern`` yields on ASCII ``text`` (whose patterns start
    with a word character) from ``pos``: a match not at a word's start is dropped and the
    search resumes one character after its start, where the ``\b`` pattern would have."""
    while (m := pattern.search(text, pos)) is not None:
        start = m.start()
        if start and text[start - 1] in _ASCII_WORD_CHARS:
            pos = start + 1
            continue
        yield m
        pos = m.end()


DateValue = tuple[int, int | None, int | None]


class DateMention(NamedTuple):
    """A date read from text: its possible readings (two for an ambiguous ``5/3/2024``), each
    ``(year, month or None, day or None)``, and the text it was read from."""

    readings: tuple[DateValue, ...]
    surface: str
    start: int
    end: int

    def same_as(self, other: DateMention) -> bool:
        """Some reading of each agrees on every field both give."""
        return any(_agree(a, b) for a in self.readings for b in other.readings)


def _agree(a: DateValue, b: DateValue) -> bool:
    return all(x == y for x, y in zip(a, b, strict=True) if x is not None and y is not None)


def _num(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    v = zh_numeral_value(text)
    return None if v is None else int(v)


def _valid(y: int | None, m: int | None, d: int | None) -> bool:
    if y is None or not 1 <= y <= 9999:
        return False
    if m is not None and not 1 <= m <= 12:
        return False
    if d is not None:
        if m is None or not 1 <= d <= 31:
            return False
        days = [31, 29 if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0 else 28]
        days += [31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return d <= days[m - 1]
    return True


_FOUR_DIGITS = re.compile(r"[0-9][0-9][0-9][0-9]").search  # \d{4} scans 3 times slower


def dates(text: str) -> tuple[DateMention, ...]:
    """Every date in ``text`` (see the module docstring for the forms), in order. Remembered
    per text (the last 65,536)."""
    return _dates(text)


@lru_cache(maxsize=1 << 16)
def _dates(text: str) -> tuple[DateMention, ...]:
    found: list[DateMention] = []
    # Every form has a 4-digit year or 年. In ASCII text, where the first digit and the first
    # 4 digits stand is known from one table lookup per character: no match of a numeric form
    # starts before them, so the patterns are searched from there.
    ascii_text = text.isascii()
    year_at = digit_at = month_at = 0
    if ascii_text:
        marks = text.encode().translate(_BYTE_DIGITS_AS_ZERO)
        year_at = marks.find(b"0000")
        if year_at < 0:
            return ()
        digit_at = marks.find(b"0")
    elif "年" not in text and _FOUR_DIGITS(text) is None:
        return ()
    lower = text.lower()
    # Whole words: "mar" is in "market".
    months = _MONTH_KEYS.intersection(_ascii_words(lower))
    month_words = bool(months)
    if ascii_text and months:  # a month form starts at its month's word, or at a digit
        month_at = min(lower.find(m) for m in months)
    starts = {"ymd": year_at, "dmy_or_mdy": digit_at, "dmy": digit_at, "mdy": month_at}
    starts["my"] = month_at
    for kind, pattern in _DATE_PATTERNS:
        if kind.startswith("zh") and "年" not in text:
            continue
        if kind in ("mdy", "dmy", "my") and not month_words:
            continue
        if kind == "dmy_or_mdy" and "/" not in text:
            continue
        fast = _ASCII_DATE_PATTERNS.get(kind) if ascii_text else None
        pos = starts.get(kind, 0)
        matches = pattern.finditer(text, pos) if fast is None else _at_word_starts(fast, lower, pos)
        for m in matches:
            if kind in ("ymd", "dmy_or_mdy") and (
                (m.start() and text[m.start() - 1].isdigit())
                or (m.end() < len(text) and text[m.end()].isdigit())
            ):
                continue
            if any(f.start < m.end() and m.start() < f.end for f in found):
                continue
            g = m.groups()
            cands: list[tuple[int | None, int | None, int | None]]
            if kind == "ymd":
                cands = [(int(g[0]), int(g[1]), int(g[2]))]
            elif kind == "dmy_or_mdy":
                a, b, y = int(g[0]), int(g[1]), int(g[2])
                cands = [(y, a, b), (y, b, a)]
            elif kind == "zh":
                cands = [(_num(g[0]), _num(g[1]), None if g[2] is None else _num(g[2]))]
            elif kind == "zh_year":
                cands = [(_num(g[0]), None, None)]
            elif kind == "mdy":
                cands = [(int(g[2]), _MONTHS[g[0].lower()], int(g[1]))]
            elif kind == "dmy":
                cands = [(int(g[2]), _MONTHS[g[1].lower()], int(g[0]))]
            else:
                cands = [(int(g[1]), _MONTHS[g[0].lower()], None)]
            readings: tuple[DateValue, ...] = tuple(
                dict.fromkeys(
                    (y, mo, d) for y, mo, d in cands if y is not None and _valid(y, mo, d)
                )
            )
            if readings:
                found.append(DateMention(readings, text[m.start() : m.end()], m.start(), m.end()))
    return tuple(sorted(found, key=lambda d: d.start))


def iso(d: DateMention) -> str:
    """The first reading as ``2024-03-05`` (or ``2024-03`` / ``2024``)."""
    y, m, day = d.readings[0]
    return f"{y:04d}" + ("" if m is None else f"-{m:02d}") + ("" if day is None else f"-{day:02d}")


# --------------------------------------------------------------------------------------------
# Yes / no

Polarity = Literal["yes", "no"]
_LOWER_WORDS = re.compile(r"[a-z]+").findall
_EN_YES = frozenset({"yes", "yeah", "yep", "true", "correct", "right", "affirmative"})
_EN_NO = frozenset({"no", "nope", "false", "incorrect", "negative"})
_ZH_POLARITY: list[tuple[str, Polarity]] = sorted(
    [
        ("是", "yes"), ("是的", "yes"), ("对", "yes"), ("对的", "yes"), ("可以", "yes"),
        ("能", "yes"), ("有", "yes"), ("会", "yes"), ("没错", "yes"), ("正确", "yes"),
        ("否", "no"), ("不", "no"), ("不是", "no"), ("不对", "no"), ("不可以", "no"),
        ("不能", "no"), ("没有", "no"), ("没", "no"), ("不会", "no"), ("错", "no"),
        ("错误", "no"),
    ],
    key=lambda p: len(p[0]),
    reverse=True,
)  # fmt: skip


def polarity(text: str) -> Polarity | None:
    """Yes or no: the first word when it is one (``Yes, within 7 days`` → yes; ``不可以`` → no),
    else the one polarity of the yes/no words standing alone in the text; None when there is
    none, or both."""
    t = unicodedata.normalize("NFKC", text).strip().lower()
    if not t.isascii():  # (the Chinese words are not ASCII)
        for word, pol in _ZH_POLARITY:
            if t.startswith(word):
                return pol
    words = _LOWER_WORDS(t)
    if words and words[0] in _EN_YES:
        return "yes"
    if words and words[0] in _EN_NO:
        return "no"
    found: set[Polarity] = {"yes" for w in words if w in _EN_YES}
    found |= {"no" for w in words if w in _EN_NO}
    return found.pop() if len(found) == 1 else None


# --------------------------------------------------------------------------------------------
# Choices

_EDGE = re.compile(r"^[\W_]+|[\W_]+$")


def normalise_choice(text: str) -> str:
    """NFKC, case-folded, spaces collapsed, punctuation at both ends dropped."""
    t = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return _EDGE.sub("", t)


def chosen(response: str, choices: tuple[str, ...]) -> tuple[str, ...]:
    """The choices ``response`` names: the one it equals (normalised), else each one named as a
    whole phrase and not only inside a longer named choice."""
    norm = normalise_choice(response)
    for c in choices:
        if normalise_choice(c) == norm:
            return (c,)
    spans: list[tuple[int, int, str]] = []
    for c in choices:
        n = normalise_choice(c)
        if not n:
            continue
        pat = re.escape(n) if not n.isascii() else rf"(?<!\w){re.escape(n)}(?!\w)"
        spans.extend((m.start(), m.end(), c) for m in re.finditer(pat, norm))
    kept = {
        c
        for s, e, c in spans
        if not any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, _ in spans)
    }
    return tuple(c for c in choices if c in kept)
