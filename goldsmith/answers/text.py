"""Text rules of the answer scorers: answer F1 and text exact match as SQuAD v2.0 and CMRC 2018
compute them, and the rule that decides whether a key fact is stated in a text.

Pure module. ``tokenizer`` is a tokenizer name or ``auto`` (the default):

- ``auto``: a pair of texts either of which holds a Han character or a CJK or full-width
  punctuation mark of CMRC 2018's list (，。《》（）...) is scored as the CMRC 2018 evaluation
  script scores it (``cmrc2018_evaluate.py``, v5): lower-cased and stripped, its punctuation
  list removed, cut into single Han characters (U+4E00–U+9FA5) and, between them, runs of
  other characters cut into words as NLTK's ``word_tokenize`` cuts them; F1 is
  character-level on the longest common *substring* of the two cuts; exact match compares the
  texts after the punctuation removal.
  No traditional/simplified folding: 臺灣 against 台湾 scores 0, as in CMRC. Any other pair is
  scored as the official SQuAD v2.0 script (lower-case, ASCII punctuation and the articles
  a/an/the removed, split on white space; token F1 on the shared words).
- ``squad``: the SQuAD rule for every pair.
- a project tokenizer name (``zh-words``, ``zh-bigrams``, ...): token F1 on that tokenizer's
  words (NFKC, traditional folded to simplified, punctuation dropped): the project's own
  normalisation, asked for by naming it, not a peer's.

With several reference answers F1 and exact match are the maximum over them, as both scripts
take it; SQuAD leaves out references that normalise to nothing unless all do.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple

from goldsmith.answers import values
from goldsmith.intake.tokenizers import (
    ENGLISH_STOP_WORDS,
    get_tokenizer,
    has_han,
    is_han_token,
    to_simplified,
)

AUTO = "auto"
SQUAD = "squad"

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)


_DROP_PUNCTUATION = str.maketrans(dict.fromkeys(string.punctuation))
# For containment, every ASCII character that is not a letter or a digit becomes a space, and
# upper-case letters lower-case ones: one table lookup per byte does both (for ASCII text).
_BYTE_SPACES = bytes(
    (ord(chr(c).lower()) if chr(c).isalnum() else 32) if c < 128 else c for c in range(256)
)


# For ASCII text, SQuAD's steps as bytes: upper case lowered and punctuation deleted in one
# table lookup. What is left is letters, digits and white space, unless a control character
# that is not white space (\x00-\x08, \x0e-\x1b, \x7f) stands in it: without one, the
# words the article pattern sees (runs of word characters) are exactly the white-space
# separated ones, so removing the articles is dropping the words "a", "an" and "the".
_BYTE_LOWER = bytes(c + 32 if 65 <= c <= 90 else c for c in range(256))
_BYTE_PUNCTUATION = string.punctuation.encode()
_BYTE_NOT_CONTROL = bytes(c for c in range(256) if not (c < 9 or 13 < c < 28 or c == 127))
_ARTICLE_WORDS = frozenset(("a", "an", "the"))


def _squad_words(text: str) -> list[str]:
    """``squad_normalise(text).split()``."""
    if text.isascii():
        kept = text.encode().translate(_BYTE_LOWER, _BYTE_PUNCTUATION)
        if not kept.translate(None, _BYTE_NOT_CONTROL):
            return [w for w in kept.decode().split() if w not in _ARTICLE_WORDS]
    text = text.lower().translate(_DROP_PUNCTUATION)
    return _ARTICLES.sub(" ", text).split()


def squad_normalise(text: str) -> str:
    """The official SQuAD v2.0 ``normalize_answer``: lower-case, ASCII punctuation removed,
    articles removed, white space collapsed."""
    return " ".join(_squad_words(text))


def _is_word(token: str) -> bool:
    return any(unicodedata.category(c)[0] in "LN" for c in token)


def answer_tokens(text: str, tokenizer: str = AUTO, *, chinese: bool | None = None) -> list[str]:
    """The tokens token F1 counts. ``chinese`` (default: ``text`` holds Han characters) picks
    ``zh-words`` under ``auto``; the scorers pass one choice for both texts of a pair."""
    if tokenizer == SQUAD or (
        tokenizer == AUTO and not (has_han(text) if chinese is None else chinese)
    ):
        return _squad_words(text)
    name = "zh-words" if tokenizer == AUTO else tokenizer
    norm = unicodedata.normalize("NFKC", text)
    return [t for t in get_tokenizer(name).tokens(norm) if _is_word(t)]


def token_f1(prediction: str, reference: str, tokenizer: str = AUTO) -> float:
    """F1 of ``prediction`` against one ``reference`` under ``tokenizer`` (see the module
    docstring): CMRC 2018's for a Chinese pair under ``auto``, else token F1 as SQuAD v2.0's
    ``compute_f1`` (shared tokens counted with multiplicity; precision over the prediction's
    tokens, recall over the reference's; 1.0 when both have no token, 0.0 when one has none)."""
    if tokenizer == AUTO and is_cmrc_pair(prediction, reference):
        return cmrc_f1(prediction, reference)
    chinese = has_han(prediction) or has_han(reference)
    pred = answer_tokens(prediction, tokenizer, chinese=chinese)
    gold = answer_tokens(reference, tokenizer, chinese=chinese)
    if not pred or not gold:
        return float(pred == gold)
    counts: dict[str, int] = {}
    for t in gold:
        counts[t] = counts.get(t, 0) + 1
    same = 0
    for t in pred:  # the size of the multiset intersection, as Counter(pred) & Counter(gold)
        left = counts.get(t, 0)
        if left:
            counts[t] = left - 1
            same += 1
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def text_exact_match(prediction: str, reference: str, tokenizer: str = AUTO) -> float:
    """1.0 when ``prediction`` equals ``reference`` after the pair's normalisation, else 0.0:
    CMRC 2018's ``calc_em_score`` for a Chinese pair under ``auto``, SQuAD v2.0's
    ``compute_exact`` (``normalize_answer`` of both equal) otherwise; under a project
    tokenizer, the same tokens in the same order."""
    if tokenizer == AUTO and is_cmrc_pair(prediction, reference):
        return cmrc_exact_match(prediction, reference)
    if tokenizer in (AUTO, SQUAD):
        return float(_squad_words(prediction) == _squad_words(reference))
    chinese = has_han(prediction) or has_han(reference)
    same = answer_tokens(prediction, tokenizer, chinese=chinese) == answer_tokens(
        reference, tokenizer, chinese=chinese
    )
    return float(same)


def best_over_references(
    score: Callable[[str, str, str], float],
    prediction: str,
    references: Sequence[str],
    tokenizer: str = AUTO,
) -> tuple[float, int]:
    """(the best ``score(prediction, reference, tokenizer)`` over ``references``, the index of
    the first reference that gives it). SQuAD leaves out the references that normalise to
    nothing unless all do; CMRC keeps every reference; both take the maximum."""
    candidates = list(enumerate(references))
    if len(candidates) > 1 and tokenizer in (AUTO, SQUAD):
        kept = [
            (i, r)
            for i, r in candidates
            if (tokenizer == AUTO and is_cmrc_pair(prediction, r)) or _squad_words(r)
        ]
        candidates = kept or candidates[:1]
    best, at = -1.0, 0
    for i, ref in candidates:
        value = score(prediction, ref, tokenizer)
        if value > best:
            best, at = value, i
    return max(best, 0.0), at


# --------------------------------------------------------------------------------------------
# CMRC 2018

# The punctuation list of cmrc2018_evaluate.py (its "……" is two characters and never equals
# the one character it is compared with, so "…" is not removed, as there).
CMRC_PUNCTUATION = frozenset("-:_*^/\\~`+=，。：？！“”；’《》·、「」（）－～『』")
# What makes a text without Han Chinese for ``auto``: the CJK and full-width marks of that list
# (，。《》（）...), not the curly quotes and middle dot English text uses too (“”’·).
_CMRC_FULL_WIDTH = frozenset(c for c in CMRC_PUNCTUATION if ord(c) >= 0x3000)
# A run of ASCII letters, digits and white space is cut by word_tokenize at the white space,
# unless it holds one of the words the Treebank rules split (cannot → can not, gonna → gon na).
_PLAIN_RUN = re.compile(r"[a-z0-9\s]*").fullmatch
_TREEBANK_SPLITS = ("cannot", "gimme", "gonna", "gotta", "lemme", "wanna", "whaddya", "whatcha")


def is_cmrc_pair(prediction: str, reference: str) -> bool:
    """Whether ``auto`` scores the pair by CMRC 2018's rule: one of the texts holds a Han
    character or a CJK or full-width punctuation mark of CMRC's list (，。《》（）...)."""
    return _cmrc_text(prediction) or _cmrc_text(reference)


def _cmrc_text(text: str) -> bool:
    return not text.isascii() and (has_han(text) or not _CMRC_FULL_WIDTH.isdisjoint(text))


@lru_cache(maxsize=1)
def _word_tokenize() -> Callable[[str], list[str]]:
    """NLTK's Treebank word tokenizer, imported the first time a run needs it (importing NLTK
    costs about a second). ``word_tokenize`` splits into sentences with the Punkt model first;
    that model is a data download, so a run is tokenized as one line (``preserve_line``)."""
    from nltk.tokenize.destructive import NLTKWordTokenizer

    tokenize: Callable[[str], list[str]] = NLTKWordTokenizer().tokenize
    return tokenize


def _latin_words(run: str) -> list[str]:
    if run.isascii() and _PLAIN_RUN(run) and not any(w in run for w in _TREEBANK_SPLITS):
        return run.split()
    return _word_tokenize()(run)


def cmrc_segments(text: str) -> list[str]:
    """``mixed_segmentation(text, rm_punc=True)`` of CMRC 2018: lower-cased and stripped, the
    punctuation list left out, each Han character (U+4E00–U+9FA5) one segment, and each run of
    other characters between them cut into words by NLTK's ``word_tokenize``."""
    out: list[str] = []
    run: list[str] = []
    for ch in text.lower().strip():
        if ch in CMRC_PUNCTUATION:
            continue
        if "\u4e00" <= ch <= "\u9fa5":
            if run:
                out.extend(_latin_words("".join(run)))
                run = []
            out.append(ch)
        else:
            run.append(ch)
    if run:
        out.extend(_latin_words("".join(run)))
    return out


def longest_common_substring(a: Sequence[str], b: Sequence[str]) -> int:
    """The length of the longest run of consecutive segments that ``a`` and ``b`` share."""
    best = 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                current[j] = n = previous[j - 1] + 1
                if n > best:
                    best = n
        previous = current
    return best


def cmrc_f1(prediction: str, reference: str) -> float:
    """CMRC 2018's F1 for one reference: with ``L`` the longest common substring of the two
    :func:`cmrc_segments`, 0 when ``L`` is 0, else 2PR / (P + R) with P = L / |prediction| and
    R = L / |reference| (so two texts with no segment score 0, unlike SQuAD)."""
    gold, pred = cmrc_segments(reference), cmrc_segments(prediction)
    common = longest_common_substring(gold, pred)
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def cmrc_strip(text: str) -> str:
    """``remove_punctuation`` of CMRC 2018: lower-cased, stripped, its punctuation list out."""
    return "".join(c for c in text.lower().strip() if c not in CMRC_PUNCTUATION)


def cmrc_exact_match(prediction: str, reference: str) -> float:
    """CMRC 2018's exact match for one reference: :func:`cmrc_strip` of both equal."""
    return float(cmrc_strip(prediction) == cmrc_strip(reference))


# --------------------------------------------------------------------------------------------
# Is a fact stated in a text?

_SPACE_PUNCT = re.compile(r"[\W_]+", re.UNICODE)


def contain_normalise(text: str) -> str:
    """For containment: NFKC, case-folded, every run of punctuation and white space one space.
    Traditional Chinese is folded to simplified as the tokenizers do."""
    if text.isascii():
        return " " + " ".join(text.encode().translate(_BYTE_SPACES).decode().split()) + " "
    t = unicodedata.normalize("NFKC", text).casefold()
    return " " + " ".join(_SPACE_PUNCT.sub(" ", to_simplified(t)).split()) + " "


class TextProfile:
    """A text prepared once for many fact checks: its containment form, and, computed when a
    check first needs them, its words, its content terms and the numbers and dates it states."""

    __slots__ = ("_dates", "_keys", "_numbers", "_words", "normal", "text", "tokenizer")

    def __init__(self, text: str, tokenizer: str = AUTO) -> None:
        self.text, self.tokenizer = text, tokenizer
        self.normal = contain_normalise(text)
        self._words: frozenset[str] | None = None
        self._keys: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self._numbers: tuple[values.Quantity, ...] | None = None
        self._dates: tuple[values.DateMention, ...] | None = None

    @property
    def words(self) -> frozenset[str]:
        """The words of the containment form (what a one-word term is looked up in)."""
        if self._words is None:
            self._words = frozenset(self.normal.split())
        return self._words

    @property
    def keys(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The distinct content terms (stop words out), as they are looked up in another
        text: ``(words, pieces)``. A term that is one word of the containment form is looked
        up among that text's words; any other (a Chinese word, found anywhere, or a term
        the containment form cuts in two, ``node.js``) as a piece of its containment form.
        English text with the default tokenizer takes its terms from the containment form
        itself (words of two characters or more, stop words out), as the tokenizer would."""
        if self._keys is None:
            self._keys = _keys(self.text, self.normal, self.tokenizer)
        return self._keys

    @property
    def numbers(self) -> tuple[values.Quantity, ...]:
        if self._numbers is None:
            self._numbers = values.quantities(self.text, bare_words=False)
        return self._numbers

    @property
    def dates(self) -> tuple[values.DateMention, ...]:
        if self._dates is None:
            self._dates = values.dates(self.text)
        return self._dates


def _keys(text: str, normal: str, tokenizer: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """:attr:`TextProfile.keys` of ``text``, whose containment form is ``normal``."""
    words: list[str] = []
    pieces: list[str] = []
    if text.isascii() and tokenizer in (AUTO, SQUAD, "default"):
        words = [w for w in normal.split() if len(w) > 1 and w not in ENGLISH_STOP_WORDS]
    else:
        for term in _terms(text, tokenizer):
            key = contain_normalise(term)
            if is_han_token(term):
                pieces.append(key.strip())
            elif key.count(" ") == 2:  # " word ": one word
                words.append(key.strip())
            elif key.strip():
                pieces.append(key)
    return tuple(dict.fromkeys(words)), tuple(dict.fromkeys(pieces))


def _terms(text: str, tokenizer: str) -> list[str]:
    name = ("zh-words" if has_han(text) else "default") if tokenizer in (AUTO, SQUAD) else tokenizer
    return get_tokenizer(name).terms(unicodedata.normalize("NFKC", text))


@lru_cache(maxsize=1 << 15)
def profile(text: str, tokenizer: str = AUTO) -> TextProfile:
    """The :class:`TextProfile` of ``text`` (remembered: a context is checked against every
    fact of its query)."""
    return TextProfile(text, tokenizer)


class FactMatch(NamedTuple):
    """Whether a fact is stated in a text and by which rule: ``containment`` (the normalised
    fact is inside the normalised text) or ``overlap`` (the share of the fact's terms found in
    the text, ``overlap``, reached the threshold and every number and date of the fact is
    stated too); ``rule`` None when it is not found, with ``overlap`` the best share seen."""

    found: bool
    rule: str | None
    overlap: float


# The scorers check many facts against the same few texts, so they prepare both sides once,
# as plain strings and tuples (which the cyclic garbage collector does not track: with
# objects that hold sets, collections took a quarter of a run's scoring time).


@lru_cache(maxsize=1 << 15)
def normal_form(text: str) -> str:
    """:func:`contain_normalise` of ``text``, remembered (a context is checked against every
    fact of its query, and popular chunks are the contexts of many queries)."""
    return contain_normalise(text)


FactTerms = tuple[str, str, tuple[str, ...]]
"""A fact prepared for :func:`find_fact`: ``(text, normal, probes)``, its text, its
containment form and its probes, the content terms of :attr:`TextProfile.keys` as substrings
of a text's containment form: each one-word term between spaces (``" refund "``: a word of
that form is exactly a run between two spaces), then the pieces as they are. A plain tuple of
strings, which the cyclic garbage collector stops tracking (a named tuple it tracks for good)."""


@lru_cache(maxsize=1 << 15)
def fact_terms(text: str, tokenizer: str = AUTO) -> FactTerms:
    """The :data:`FactTerms` of a fact's ``text`` (remembered: context recall and fact
    coverage check the same facts)."""
    normal = normal_form(text)
    if text.isascii() and tokenizer in (AUTO, SQUAD, "default"):  # _keys' English words
        padded = [f" {w} " for w in normal.split() if len(w) > 1 and w not in ENGLISH_STOP_WORDS]
        return text, normal, tuple(dict.fromkeys(padded))
    words, pieces = _keys(text, normal, tokenizer)
    return text, normal, _probes(words, pieces)


def _probes(words: tuple[str, ...], pieces: tuple[str, ...]) -> tuple[str, ...]:
    """Each word between spaces, then the pieces. A term that normalises to nothing (``_``)
    leaves an empty word, which no set of words holds: it becomes two line breaks, which no
    containment form and no ``TextSet.joined`` holds (no form is empty)."""
    return (*[f" {w} " if w else "\n\n" for w in words], *pieces)


class TextSet:
    """Texts prepared for :func:`find_fact`: the ``texts``, their containment forms
    (``normals``) and those forms joined by line breaks (``joined``), which no form and no
    probe holds, so a probe is in ``joined`` exactly when it is in one of the forms."""

    __slots__ = ("joined", "normals", "texts")

    def __init__(self, texts: Iterable[str], normals: Iterable[str] | None = None) -> None:
        self.texts = tuple(texts)
        self.normals = tuple(map(normal_form, self.texts) if normals is None else normals)
        self.joined = "\n".join(self.normals)


def find_fact(fact: FactTerms, texts: TextSet, threshold: float) -> FactMatch:
    """Is ``fact`` stated in any of ``texts``? The rule of :func:`fact_in` on prepared texts:
    containment in any text first; then, text by text in order, the share of the fact's probes
    found, the first text whose share reaches ``threshold`` and that states the fact's numbers
    and dates deciding. A probe absent from all the texts (one search of ``joined``) is not
    looked for in each."""
    text, normal, probes = fact
    joined = texts.joined
    if normal in joined and normal.strip():
        return _CONTAINED
    n = len(probes)
    live = [p for p in probes if p in joined]
    normals = texts.normals
    if len(normals) == 1:  # joined is that text's form: the probes left are the ones found
        share = len(live) / n if n else 0.0
        if share + 1e-12 >= threshold and _states_values(text, texts.texts[0]):
            return FactMatch(True, "overlap", share)
        return FactMatch(False, None, share)
    if not live and threshold > 1e-12:  # every text's share is 0, below the threshold
        return _NOWHERE
    best = 0.0
    for i, form in enumerate(normals):
        share = len([p for p in live if p in form]) / n if live else 0.0
        best = max(best, share)
        if share + 1e-12 >= threshold and _states_values(text, texts.texts[i]):
            return FactMatch(True, "overlap", share)
    return FactMatch(False, None, best)


_CONTAINED = FactMatch(True, "containment", 1.0)
_NOWHERE = FactMatch(False, None, 0.0)


def fact_in(fact: TextProfile, texts: list[TextProfile], threshold: float) -> FactMatch:
    """Is ``fact`` stated in any of ``texts``? Containment first, then term overlap ≥
    ``threshold`` with every number (same value and unit) and date of the fact present.

    Overlap is the share of the fact's distinct content terms (the project tokenizer's terms:
    stop words out) found in the text: as whole words of its containment form, and a Chinese
    word anywhere in it (Chinese has no spaces), as query-term highlighting does. The texts are
    never tokenized: a context costs one normalisation (see :func:`find_fact`)."""
    words, pieces = fact.keys
    terms = (fact.text, fact.normal, _probes(words, pieces))
    prepared = TextSet([t.text for t in texts], [t.normal for t in texts])
    return find_fact(terms, prepared, threshold)


def _states_values(fact: str, text: str) -> bool:
    """Every number (same value, unit converted) and every date of ``fact`` is in ``text``."""
    numbers = values.quantities(fact, bare_words=False)
    if numbers:
        said = values.quantities(text, bare_words=False)
        if not all(any(q.same_as(p) for p in said) for q in numbers):
            return False
    dates = values.dates(fact)
    if dates:
        stated = values.dates(text)
        return all(any(d.same_as(e) for e in stated) for d in dates)
    return True
