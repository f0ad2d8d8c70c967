"""Tokenizers: how a text is cut into the words that retrieval, highlighting, near-duplicate
grouping and clustering compare. Pure, no Django. A project uses one, chosen by name:

- ``default``: what Goldsmith has always done, for languages written with spaces. A token is a
  run of two or more word characters (``(?u)\\b\\w\\w+\\b``), lower-cased. The built-in
  retrievers keep their own English stop lists with it (bm25s' and scikit-learn's), query-term
  highlighting its own list, and near-duplicate grouping compares character 3-grams inside
  words. A Chinese sentence is one token here, so Chinese finds nothing: use the next two.
- ``zh-words``: Chinese word segmentation with jieba (precise mode without its HMM guesses at
  unknown words, so that a string is cut the same way in a query and in a chunk whatever its
  neighbours; the dictionary ships in the package and is loaded once per process, on first use).
- ``zh-bigrams``: overlapping character bigrams of each Chinese run (a lone Han character is a
  token of its own), as Lucene's CJK analyzer does; interrogatives (如何, 为什么…), polite
  fillers (请问, 一下) and a sentence-final particle (吗, 呢…) are cut out of a run whole first.

In both Chinese tokenizers the text outside Han runs is cut into words that keep English words,
product names, code identifiers and numbers whole (``iPhone15``, ``get_user_id``, ``gpt-4o``,
``node.js``, ``C++``, ``3.14``). A token's text is normalised: NFKC (full-width ``Ａ`` is
``a``), lower-cased, and traditional characters folded to simplified (OpenCC's ``t2s``) when
that keeps the run's length, so that ``token.start``/``token.end`` always index the original
text exactly.

*Terms* are the tokens a retriever indexes: stop words dropped (an English list and a short
Chinese list of particles, pronouns and fillers; negations such as 不 and 没有 are kept), and
interrogatives of one meaning folded to one spelling (如何, 怎样, 怎麼 → 怎么), so that
"如何退款" and "怎么退款" ask the same thing.
"""

from __future__ import annotations

import logging
import re
import unicodedata
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:
    from jieba import Tokenizer as JiebaTokenizer

DEFAULT = "default"
ZH_WORDS = "zh-words"
ZH_BIGRAMS = "zh-bigrams"
TOKENIZERS: tuple[str, ...] = (DEFAULT, ZH_WORDS, ZH_BIGRAMS)
# The character-level baseline the Chinese tokenizers are measured against
# (bench/zh_retrieval_bench.py): each Han character a token. Not offered to projects.
ZH_CHARS = "zh-chars"

# Han characters: the CJK unified ideographs (basic, extensions A to I), compatibility
# ideographs, and 〇. Kana and Hangul are not Han.
HAN = "\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U000323af"
_HAN_SEARCH = re.compile(f"[{HAN}]").search
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff]")
# A word character that is not Han: what a word outside Chinese runs is made of.
WORD_NOT_HAN = rf"[^\W{HAN}]"
# Outside Han runs: a word, with inner joiners that keep identifiers, versions and numbers
# whole (gpt-4o, node.js, 3.14, a+b), and a trailing ++ or # (C++, C#).
_PIECE_RE = re.compile(rf"([{HAN}]+)|({WORD_NOT_HAN}+(?:[.\-+#]{WORD_NOT_HAN}+)*(?:\+\+|#)?)")
_DEFAULT_TOKEN_RE = re.compile(r"(?u)\b\w\w+\b")

# English function words, not worth indexing or highlighting (Goldsmith's own list: importing
# scikit-learn's for it cost every server process 1.2 s on its first annotation page).
_ENGLISH_STOP_WORDS = """
    a about above after again against all almost also am among an and any are aren as at be
    because been before being below between both but by can cannot could couldn did didn do
    does doesn doing don down during each either else ever every few for from further get gets
    got had hadn has hasn have haven having he her here hers herself him himself his how however
    i if in into is isn it its itself just least less many may me might more most much must
    my myself neither no nor not now of off often on once one only or other ought our ours
    ourselves out over own per rather same shall shan she should shouldn since so some still
    such than that the their theirs them themselves then there these they this those though
    through thus to too under until up upon us very via was wasn we were weren
    what whatever when where whether which while who whom whose why will with within without
    won would wouldn yet you your yours yourself yourselves
"""
ENGLISH_STOP_WORDS = frozenset(_ENGLISH_STOP_WORDS.split())

# Chinese function words that carry no topic: structural particles, sentence-final particles,
# pronouns, conjunctions and prepositions, polite fillers. Negations (不, 没, 没有), modal
# verbs (能, 可以, 要) and interrogatives are kept: they change what a question asks.
_CHINESE_STOP_WORDS = """
    的 地 得 之 了 着 过 吗 呢 吧 啊 呀 嘛 哦 哟 啦 呗 么 和 与 及 或 而 且 并 就 都 也 还 又 把
    被 给 让 对 从 向 于 在 是 为 以 其 此 该 这 那 这个 那个 这些 那些 这里 那里 我 你 您 他
    她 它 我们 你们 他们 她们 它们 咱们 自己 请 请问 麻烦 一下 一个 个
"""
CHINESE_STOP_WORDS = frozenset(_CHINESE_STOP_WORDS.split())

# Interrogatives folded to one spelling per meaning (after traditional → simplified folding).
INTERROGATIVES: dict[str, str] = {
    "怎么": "怎么",
    "怎样": "怎么",
    "怎么样": "怎么",
    "如何": "怎么",
    "咋": "怎么",
    "咋样": "怎么",
    "为什么": "为什么",
    "为何": "为什么",
    "为啥": "为什么",
    "什么": "什么",
    "啥": "什么",
    "哪里": "哪里",
    "哪儿": "哪里",
}
QUESTION_WORDS = frozenset(INTERROGATIVES.values())

# zh-bigrams cuts these out of a Han run whole before pairing the rest (longest first), and a
# sentence-final particle at the end of a run.
_BIGRAM_CUTS = sorted(
    [*INTERROGATIVES, "怎麼", "為什麼", "請問", "请问", "麻烦", "一下"], key=len, reverse=True
)
_BIGRAM_CUT_RE = re.compile("|".join(_BIGRAM_CUTS) + "|[吗呢吧啊呀嘛]$")


class Token(NamedTuple):
    """A token's normalised text and where it stands in the original text (``text[start:end]``)."""

    text: str
    start: int
    end: int


def has_han(text: str) -> bool:
    return not text.isascii() and _HAN_SEARCH(text) is not None


def is_han_token(token: str) -> bool:
    """Whether a token of a Chinese tokenizer is Chinese (tokens never mix Han and other)."""
    if not token:
        return False
    c = token[0]  # compared, not searched: this runs for every token of a query log
    return (
        "\u4e00" <= c <= "\u9fff"
        or "\u3400" <= c <= "\u4dbf"
        or "\uf900" <= c <= "\ufaff"
        or "\U00020000" <= c <= "\U000323af"
        or c == "\u3007"
    )


def chinese_term(token: str) -> str | None:
    """A Chinese token as a term: None for a stop word, one spelling for an interrogative."""
    if token in CHINESE_STOP_WORDS:
        return None
    return INTERROGATIVES.get(token, token)


@cache
def _traditional() -> Callable[[str], re.Match[str] | None]:
    """Search for a character that OpenCC ``t2s`` changes on its own (found once, in one call
    over every BMP Han character): a text without one is simplified already."""
    import opencc

    convert = opencc.OpenCC("t2s").convert
    chars = [
        chr(c)
        for a, b in ((0x3400, 0x4DC0), (0x4E00, 0xA000), (0xF900, 0xFB00))
        for c in range(a, b)
    ]
    changed = "".join(
        c for c, s in zip(chars, convert("\n".join(chars)).split("\n"), strict=True) if c != s
    )
    return re.compile(f"[{re.escape(changed)}]").search


@cache
def _t2s() -> Callable[[str], str]:
    """OpenCC's ``t2s`` converter, called only on a text holding a character that ``t2s``
    changes on its own: most Chinese text is simplified already, and skipping the call makes
    it five times cheaper."""
    import opencc

    convert: Callable[[str], str] = opencc.OpenCC("t2s").convert
    traditional = _traditional()

    def convert_traditional(text: str) -> str:
        return convert(text) if traditional(text) is not None else text

    return convert_traditional


def to_simplified(text: str) -> str:
    """Traditional characters and phrases as simplified ones (OpenCC ``t2s``): 怎麼 → 怎么.
    Text without Han characters is returned as it is, without loading OpenCC."""
    return _t2s()(text) if has_han(text) else text


# 帳 is one character in Taiwan and Hong Kong for both an account and a curtain; mainland usage
# writes the account 账 and the curtain 帐 (通用规范汉字表), and OpenCC folds both to 帐. These
# are the curtain words; 帐 anywhere else reads as an account (到账, 账户, 转账, 对账).
_CURTAIN_WORDS = ("帐篷", "帐幕", "帐幔", "帐子", "帐钩", "帐中", "帐下", "帐前", "帐外", "帐内")
_CURTAIN_BEFORE = ("蚊", "营", "罗", "纱", "幔", "帷", "军", "床", "幄", "牙", "锦", "圆", "毡")
_ZHANG_RE = re.compile("帐")


def _account_zhang(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        at = match.start()
        if text.startswith(_CURTAIN_WORDS, at) or (at and text[at - 1] in _CURTAIN_BEFORE):
            return "帐"
        return "账"

    return _ZHANG_RE.sub(one, text)


@cache
def _variants() -> Callable[[str], str]:
    """One Han run in mainland spelling and usage. A run that OpenCC ``t2s`` leaves as it is
    (it holds no traditional character and no traditional phrase such as 瞭解) is kept as
    typed: a simplified word is never rewritten into another (查询 stays 查询, not the 查找 of
    OpenCC's round trip through Taiwan's words). Another run is read by phrase: Hong Kong's and
    Taiwan's variant characters as OpenCC's standard ones (``hk2t``, ``tw2t``), the Taiwan and
    Hong Kong words of `goldsmith.intake.regional_words` as their mainland words, the longest
    first (軟體 → 软件, 線上 → 在线, 記憶體 → 内存: OpenCC's ``tw2sp``/``hk2sp`` words, less those
    whose characters read as a common mainland word, 查詢 → 查询 and not 查找), the rest by
    OpenCC ``t2s`` (phrases, then characters)."""
    import opencc

    from goldsmith.intake import regional_words

    hk2t, tw2t, t2s = (opencc.OpenCC(name).convert for name in ("hk2t", "tw2t", "t2s"))
    words = regional_words.load()
    regional = re.compile("|".join(map(re.escape, sorted(words, key=len, reverse=True))))
    traditional = _traditional()

    @lru_cache(maxsize=1 << 16)
    def convert(run: str) -> str:
        if traditional(run) is not None or t2s(run) != run:
            run = tw2t(hk2t(run))
            pieces, last = [], 0
            for match in regional.finditer(run):
                pieces += [t2s(run[last : match.start()]), words[match.group()]]
                last = match.end()
            run = "".join([*pieces, t2s(run[last:])])
        return _account_zhang(run) if "帐" in run else run

    return convert


_HAN_RUN_RE = re.compile(f"[{HAN}]+")


def fold_variants(text: str) -> str:
    """A Chinese text in one spelling of mainland usage, for matching only (the stored text
    keeps what was typed): each Han run holding a traditional character converted by phrase to
    mainland usage, as OpenCC's Hong Kong and Taiwan to mainland conversions do (see
    ``_variants``; 軟體 → 软件, 新疆運費 → 新疆运费), a run in simplified characters kept as
    typed (软体 stays 软体), and in both 帐 outside the curtain words read as the account 账
    (到帳 → 到账, where OpenCC writes 到帐). Texts and runs are remembered (the last 65,536 of
    each per process): query logs repeat them. The length may change (記憶體 → 内存): never use
    it for offsets."""
    return text if text.isascii() else _fold_text(text)


@lru_cache(maxsize=1 << 16)
def _fold_text(text: str) -> str:
    if not has_han(text):
        return text
    convert = _variants()
    return _HAN_RUN_RE.sub(lambda m: convert(m.group()), text)


@cache
def _jieba() -> JiebaTokenizer:
    """jieba's segmenter with its bundled dictionary, loaded once per process. jieba logs its
    loading to stderr at DEBUG level (its import sets that level): its logger is turned down
    to warnings before the dictionary is loaded."""
    with warnings.catch_warnings():  # jieba imports pkg_resources, which may warn
        warnings.simplefilter("ignore", DeprecationWarning)
        import jieba

    logging.getLogger("jieba").setLevel(logging.WARNING)
    segmenter = jieba.Tokenizer()
    segmenter.initialize()
    return segmenter


def _normal(piece: str) -> str:
    """A token's text: NFKC, lower-cased (full-width forms become ASCII)."""
    if piece.isascii():
        return piece.lower()
    return unicodedata.normalize("NFKC", piece).lower()


class Tokenizer(ABC):
    """Cuts text into tokens; see the module docstring for the three kinds."""

    name: str

    @abstractmethod
    def tokenize(self, text: str) -> list[Token]:
        """Every token of `text` with its offsets, in order, stop words included."""

    def tokens(self, text: str) -> list[str]:
        """Every token's normalised text, in order, stop words included."""
        return [token.text for token in self.tokenize(text)]

    @abstractmethod
    def terms(self, text: str) -> list[str]:
        """The tokens a retriever indexes: stop words out, interrogatives folded."""

    @abstractmethod
    def query_terms(self, text: str) -> list[str]:
        """The distinct words of a query worth highlighting, in order of appearance."""

    @abstractmethod
    def highlight(self, text: str, terms: list[str]) -> list[tuple[str, bool]]:
        """`text` cut into (piece, is_query_term) segments; the pieces join into `text`."""


class DefaultTokenizer(Tokenizer):
    """Today's behaviour, unchanged (see the module docstring)."""

    name = DEFAULT

    def tokenize(self, text: str) -> list[Token]:
        return [
            Token(m.group().lower(), m.start(), m.end()) for m in _DEFAULT_TOKEN_RE.finditer(text)
        ]

    def tokens(self, text: str) -> list[str]:
        return _DEFAULT_TOKEN_RE.findall(text.lower())

    def terms(self, text: str) -> list[str]:
        return [t for t in self.tokens(text) if t not in ENGLISH_STOP_WORDS]

    def query_terms(self, text: str) -> list[str]:
        """Two letters or more, no stop words."""
        return list(dict.fromkeys(self.terms(text)))

    def highlight(self, text: str, terms: list[str]) -> list[tuple[str, bool]]:
        """Whole-word, case-insensitive matches of the terms, the longest first."""
        if not terms:
            return [(text, False)]
        pattern = re.compile(
            r"\b(" + "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)) + r")\b",
            re.IGNORECASE,
        )
        return _segments(text, [(m.start(), m.end()) for m in pattern.finditer(text)])


class ChineseTokenizer(Tokenizer):
    """Shared by zh-words and zh-bigrams: they differ in how a Han run is cut.

    Query logs repeat the same Han runs in many distinct queries ("如何退款" after every product
    name), so the cut of a run is remembered (the last 65,536 runs, per process)."""

    def __init__(self) -> None:
        self._cut = lru_cache(maxsize=1 << 16)(self._fold_and_cut)

    @abstractmethod
    def _cut_han(self, run: str) -> list[tuple[str, int]]:
        """A Han run (already folded to simplified) cut into (word, offset in the run)."""

    def _fold_and_cut(self, run: str) -> tuple[tuple[str, int], ...]:
        folded = _t2s()(run)
        if len(folded) != len(run):  # a phrase conversion changed the length: keep it as typed
            folded = run
        return tuple(self._cut_han(folded))

    def tokenize(self, text: str) -> list[Token]:
        tokens: list[Token] = []
        for match in _PIECE_RE.finditer(text):
            start = match.start()
            run = match.group(1)
            if run is None:
                tokens.append(Token(_normal(match.group(2)), start, match.end()))
                continue
            tokens.extend(
                Token(word, start + offset, start + offset + len(word))
                for word, offset in self._cut(run)
            )
        return tokens

    def tokens(self, text: str) -> list[str]:
        words: list[str] = []
        for match in _PIECE_RE.finditer(text):
            run = match.group(1)
            if run is None:
                words.append(_normal(match.group(2)))
            else:
                words.extend(word for word, _ in self._cut(run))
        return words

    def terms(self, text: str) -> list[str]:
        out: list[str] = []
        for word in self.tokens(text):
            if is_han_token(word):
                term = chinese_term(word)
                if term is not None:
                    out.append(term)
            elif word not in ENGLISH_STOP_WORDS:
                out.append(word)
        return out

    def query_terms(self, text: str) -> list[str]:
        return list(dict.fromkeys(t for t in self.terms(text) if t not in QUESTION_WORDS))

    def highlight(self, text: str, terms: list[str]) -> list[tuple[str, bool]]:
        """Chinese terms match anywhere (Chinese has no spaces to bound a word); other terms
        match as whole words, case-insensitively. Overlapping matches (bigrams) are merged."""
        if not terms:
            return [(text, False)]
        alternatives = []
        for term in sorted(set(terms), key=len, reverse=True):
            if is_han_token(term):
                alternatives.append(re.escape(term))
            elif term:
                alternatives.append(rf"(?<!{WORD_NOT_HAN}){re.escape(term)}(?!{WORD_NOT_HAN})")
        if not alternatives:
            return [(text, False)]
        pattern = re.compile("(?=(" + "|".join(alternatives) + "))", re.IGNORECASE)
        comparable = _comparable(text)
        spans: list[tuple[int, int]] = []
        for match in pattern.finditer(comparable):
            start, end = match.start(1), match.end(1)
            if spans and start <= spans[-1][1]:
                if end > spans[-1][1]:
                    spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
        return _segments(text, spans)


class ChineseWordTokenizer(ChineseTokenizer):
    name = ZH_WORDS

    def _cut_han(self, run: str) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        offset = 0
        for word in _jieba().cut(run, HMM=False):
            out.append((word, offset))
            offset += len(word)
        return out


class ChineseBigramTokenizer(ChineseTokenizer):
    name = ZH_BIGRAMS

    def _cut_han(self, run: str) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        last = 0
        for match in _BIGRAM_CUT_RE.finditer(run):
            out.extend(_bigrams(run, last, match.start()))
            out.append((match.group(), match.start()))
            last = match.end()
        out.extend(_bigrams(run, last, len(run)))
        return out


class ChineseCharTokenizer(ChineseTokenizer):
    """The baseline: every Han character a token of its own (other words whole)."""

    name = ZH_CHARS

    def _cut_han(self, run: str) -> list[tuple[str, int]]:
        return [(char, i) for i, char in enumerate(run)]


def _bigrams(run: str, start: int, end: int) -> list[tuple[str, int]]:
    if end - start == 1:
        return [(run[start], start)]
    return [(run[i : i + 2], i) for i in range(start, end - 1)]


def _comparable(text: str) -> str:
    """`text` with each character NFKC-normalised and lower-cased where that keeps it one
    character, and folded to simplified where that keeps the length: offsets stay those of
    `text`, so a match in it is a match in the original."""
    if text.isascii():
        return text
    chars = []
    for ch in text:
        normal = unicodedata.normalize("NFKC", ch).lower()
        chars.append(normal if len(normal) == 1 else ch)
    comparable = "".join(chars)
    folded = to_simplified(comparable)
    return folded if len(folded) == len(comparable) else comparable


def _segments(text: str, spans: list[tuple[int, int]]) -> list[tuple[str, bool]]:
    segments: list[tuple[str, bool]] = []
    last = 0
    for start, end in spans:
        if start > last:
            segments.append((text[last:start], False))
        segments.append((text[start:end], True))
        last = end
    if last < len(text):
        segments.append((text[last:], False))
    return segments


# --------------------------------------------------------------------------------------------
# The corpus search box of a Chinese project


class SearchTerm(NamedTuple):
    """One word of a search: `text` (normalised), and whether it is Han (else a word of
    letters and digits)."""

    text: str
    han: bool


def search_terms(tokenizer: Tokenizer, text: str) -> list[SearchTerm]:
    """The words a search for `text` asks for, all of which a chunk must hold: the project
    tokenizer's query terms (stop words and question words out; all its tokens when that
    leaves nothing), Han terms folded to simplified."""
    terms = tokenizer.query_terms(text) or list(dict.fromkeys(tokenizer.tokens(text)))
    return [SearchTerm(term, is_han_token(term)) for term in terms if term]


def search_fold(text: str) -> str:
    """`text` as a Chinese project's search index holds it: NFKC, lower-cased, traditional
    characters folded to simplified, as the Chinese tokenizers fold a token's text."""
    if text.isascii():
        return text.lower()
    return _t2s()(unicodedata.normalize("NFKC", text).lower())


@cache
def search_folded_characters() -> str:
    """A regular-expression bracket of every character that `search_fold` may change in a text
    (a traditional character OpenCC ``t2s`` changes on its own, a character NFKC changes, a
    combining mark NFKC may compose, an upper-case letter beyond ASCII), as ranges. A text
    holding none of them folds to itself lower-cased, so a search may match it by its own
    text; one holding any must be folded first. Only characters beyond ASCII: the bracket needs
    no escape, in Python's syntax as in PostgreSQL's."""
    import opencc

    chars = [chr(c) for c in range(0x80, 0x10000) if not 0xD800 <= c < 0xE000]
    simplified = opencc.OpenCC("t2s").convert("\n".join(chars)).split("\n")
    points = [
        ord(c)
        for c, s in zip(chars, simplified, strict=True)
        if c != s
        or unicodedata.normalize("NFKC", c) != c
        or unicodedata.category(c) == "Mn"
        or c.lower() != c
    ]
    ranges: list[list[int]] = []
    for point in points:
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1][1] = point
        else:
            ranges.append([point, point])
    return "[" + "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in ranges) + "]"


_INSTANCES: dict[str, Tokenizer] = {
    DEFAULT: DefaultTokenizer(),
    ZH_WORDS: ChineseWordTokenizer(),
    ZH_BIGRAMS: ChineseBigramTokenizer(),
    ZH_CHARS: ChineseCharTokenizer(),
}


def get_tokenizer(name: str) -> Tokenizer:
    """The tokenizer called `name` (one of `TOKENIZERS`, or `ZH_CHARS`, the measured baseline);
    a ValueError names the known ones."""
    try:
        return _INSTANCES[name]
    except KeyError:
        known = ", ".join(TOKENIZERS)
        raise ValueError(f"unknown tokenizer {name!r}; use one of {known}") from None


def is_chinese(text: str) -> bool:
    """Whether one text is Chinese: two Han characters or more, at least as many Han characters
    as other words, and kana under a quarter of the Han characters (so Japanese is not)."""
    if text.isascii():
        return False
    han = sum(1 for _ in re.finditer(f"[{HAN}]", text))
    if han < 2:
        return False
    words = sum(1 for _ in re.finditer(rf"{WORD_NOT_HAN}+", text))
    kana = len(_KANA.findall(text))
    return han >= words and kana * 4 < han


def detect_language(texts: Iterable[str], *, sample: int = 2000) -> Literal["zh", "other"]:
    """ "zh" when at least half of the texts (the first `sample` that hold a word character) are
    Chinese by :func:`is_chinese`, else "other". For choosing a project's tokenizer on import:
    "zh" → ``zh-bigrams`` (measured: docs/benchmarks.md, "Chinese retrieval")."""
    seen = chinese = 0
    word = re.compile(r"\w").search
    for text in texts:
        if word(text) is None:
            continue
        seen += 1
        chinese += is_chinese(text)
        if seen >= sample:
            break
    return "zh" if seen and chinese * 2 >= seen else "other"
