"""The answer scorers' shortcuts (issue 13's speed work) give what the plain rules give, on
random texts: the fact rule with the probes searched in all the texts at once instead of a set
of each text's words, SQuAD's normalisation by byte tables instead of its regular expression,
dates and numbers searched from their first possible place with month forms matched on the
lower-cased text, and the shared per-verdict fact checks. Each reference below is the code as
it was before the speed work."""

from __future__ import annotations

import re
import string

from hypothesis import example, given, settings
from hypothesis import strategies as st

from goldsmith.answers import scoring as S
from goldsmith.answers import text as T
from goldsmith.answers import values as V
from goldsmith.answers.model import AnswerKey, Context, KeyFact, StagedQuery

# Pieces that reach every branch: words, stop words, articles, numbers with and without units,
# number words, dates of every form (months in any case, inside words too), Chinese, control
# characters, underscores, dashes and full-width forms.
PIECES = [
    "refund", "Refund", "period", "days", "the", "The", "a", "An", "of", "and", "is", "7",
    "7 days", "seven days", "one week", "14 days", "2 weeks", "-5 kg", "5-7 days", "1,234",
    "3.5", "50%", "$5", "twenty-one", "two hundred and five", "q12f3", "x2024", "2024",
    "2024-03-05", "5/3/2024", "March 5, 2024", "march 5th, 2024", "5 March 2024", "5th of may 2024",
    "MAY 2023", "Mar. 2024", "mar", "market", "marched 5, 2024", "xmarch 5, 2024", "_may 2024",
    "Sept 9 2024", "退款", "七天", "7天", "2024年3月5日", "２０２４", "ﬁne", "École", "node.js",
    "\x01", "\x1c", "\x7f", "\t", "\n", "_", "-", "—", ".", ",", "!", "'", " ",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=14).flatmap(
    lambda parts: st.sampled_from(["", " ", " ", "-", ". "]).map(lambda sep: sep.join(parts))
)


# --- References: the plain rules, as the code stood before the speed work ----------------


def reference_squad_normalise(text: str) -> str:
    text = text.lower().translate(str.maketrans(dict.fromkeys(string.punctuation)))
    text = re.sub(r"\b(a|an|the)\b", " ", text, flags=re.UNICODE)
    return " ".join(text.split())


def reference_fact_in(fact: str, texts: list[str], threshold: float, tokenizer: str) -> T.FactMatch:
    profile = T.TextProfile(fact, tokenizer)
    others = [T.TextProfile(t, tokenizer) for t in texts]
    for t in others:
        if profile.normal.strip() and profile.normal in t.normal:
            return T.FactMatch(True, "containment", 1.0)
    words, pieces = profile.keys
    n = len(words) + len(pieces)
    best = 0.0
    for t in others:
        present = frozenset(t.normal.split())
        found = len([w for w in words if w in present]) + len([p for p in pieces if p in t.normal])
        share = found / n if n else 0.0
        best = max(best, share)
        numbers_ok = all(any(q.same_as(p) for p in t.numbers) for q in profile.numbers)
        if share + 1e-12 >= threshold and (
            numbers_ok and all(any(d.same_as(e) for e in t.dates) for d in profile.dates)
        ):
            return T.FactMatch(True, "overlap", share)
    return T.FactMatch(False, None, best)


def reference_dates(text: str) -> tuple[V.DateMention, ...]:
    found: list[V.DateMention] = []
    if "年" not in text and re.search("[0-9]{4}", text) is None:
        return ()
    lower = text.lower()
    month_words = any(m in lower for m in V._MONTH_KEYS) and not V._MONTH_KEYS.isdisjoint(
        V._ascii_words(lower)
    )
    for kind, pattern in V._DATE_PATTERNS:
        if kind.startswith("zh") and "年" not in text:
            continue
        if kind in ("mdy", "dmy", "my") and not month_words:
            continue
        if kind == "dmy_or_mdy" and "/" not in text:
            continue
        for m in pattern.finditer(text):
            if kind in ("ymd", "dmy_or_mdy") and (
                (m.start() and text[m.start() - 1].isdigit())
                or (m.end() < len(text) and text[m.end()].isdigit())
            ):
                continue
            if any(f.start < m.end() and m.start() < f.end for f in found):
                continue
            g = m.groups()
            if kind == "ymd":
                cands = [(int(g[0]), int(g[1]), int(g[2]))]
            elif kind == "dmy_or_mdy":
                cands = [(int(g[2]), int(g[0]), int(g[1])), (int(g[2]), int(g[1]), int(g[0]))]
            elif kind == "zh":
                cands = [(V._num(g[0]), V._num(g[1]), None if g[2] is None else V._num(g[2]))]
            elif kind == "zh_year":
                cands = [(V._num(g[0]), None, None)]
            elif kind == "mdy":
                cands = [(int(g[2]), V._MONTHS[g[0].lower()], int(g[1]))]
            elif kind == "dmy":
                cands = [(int(g[2]), V._MONTHS[g[1].lower()], int(g[0]))]
            else:
                cands = [(int(g[1]), V._MONTHS[g[0].lower()], None)]
            readings = tuple(
                dict.fromkeys(c for c in cands if c[0] is not None and V._valid(*c))  # type: ignore[arg-type]
            )
            if readings:
                found.append(V.DateMention(readings, m.group(), m.start(), m.end()))
    return tuple(sorted(found, key=lambda d: d.start))


def reference_quantities(text: str, bare_words: bool) -> tuple[V.Quantity, ...]:
    digits = any(d in text for d in "0123456789")
    lower = text.lower()
    words = any(w in lower for w in V._NUMBER_WORDS) and not V._NUMBER_WORDS.isdisjoint(
        V._ascii_words(lower)
    )
    han = not text.isascii() and not V._ZH_NUM_SET.isdisjoint(text)
    if not (digits or words or han):
        return ()
    masked = V._mask(text, [(d.start, d.end) for d in reference_dates(text)])
    out: list[V.Quantity] = []
    if han:
        for m in V._ZH_PERCENT_RE.finditer(masked):
            n = m.group("n")
            v = V.zh_numeral_value(n) if n[0] in V._ZH_NUM else float(n)
            if v is not None:
                out.append(V.Quantity(v, "percent", m.group(), m.start(), m.end()))
    lowered = masked.lower()
    same = len(lowered) == len(masked)
    digit_re, digit_text = (V._DIGIT_LOWER_RE, lowered) if same else (V._DIGIT_RE, masked)
    passes = [
        (p, scanned, kind)
        for p, scanned, kind, on in (
            (digit_re, digit_text, "digits", digits),
            (V._WORDS_RE, masked, "words", words),
            (V._ZH_RE, masked, "zh", han),
        )
        if on
    ]
    for pattern, scanned, kind in passes:
        taken = [(q.start, q.end) for q in out]
        for m in pattern.finditer(scanned):
            start = m.start()
            if (
                kind == "digits"
                and start
                and scanned[start - 1] in V._NOT_BEFORE
                and scanned[start] not in "-−"
            ):
                continue
            if taken and any(s < m.end() and start < e for s, e in taken):
                continue
            q = V._quantity(m, bare_words, masked, kind)
            if q is not None:
                out.append(q)
    return tuple(sorted(out, key=lambda q: q.start))


# --- Properties --------------------------------------------------------------------------


@settings(max_examples=600, deadline=None)
@given(texts)
@example("The a\x01an THE, the—end an_a 'a' x")
def test_squad_normalisation_by_byte_tables_equals_the_regular_expression(text):
    assert T.squad_normalise(text) == reference_squad_normalise(text)
    assert T.answer_tokens(text, "squad") == reference_squad_normalise(text).split()


@settings(max_examples=600, deadline=None)
@given(texts)
@example("xmarch 5, 2024 and March 5, 2024; 5 march 2024, Mar. 2024 on 5/3/2024")
@example("marched 5, 2024 12 may 2024 x5 may 2024")
def test_dates_searched_from_their_first_possible_place_equal_a_whole_scan(text):
    V._dates.cache_clear()
    assert V.dates(text) == reference_dates(text)


@settings(max_examples=600, deadline=None)
@given(texts, st.booleans())
@example("a-5 kg and 1,234 days, seven days, -3, 5-7 days in 2024-03-05", True)
def test_numbers_searched_from_the_first_digit_equal_a_whole_scan(text, bare_words):
    V._quantities.cache_clear()
    V._dates.cache_clear()
    assert V.quantities(text, bare_words=bare_words) == reference_quantities(text, bare_words)


@settings(max_examples=600, deadline=None)
@given(
    texts,
    st.lists(texts, max_size=4),
    st.sampled_from([0.3, 0.5, 0.75, 1.0]),
    st.sampled_from(["auto", "squad", "default", "zh-words"]),
)
@example("refund period is 7 days", ["Refund period: seven days.", "x"], 0.6, "auto")
@example("_", [""], 0.3, "zh-words")  # a term that normalises to nothing is found nowhere
def test_the_fact_rule_on_prepared_texts_equals_the_rule_on_word_sets(fact, others, threshold, tok):
    want = reference_fact_in(fact, others, threshold, tok)
    prepared = T.TextSet(others)
    assert T.find_fact(T.fact_terms(fact, tok), prepared, threshold) == want
    profiles = [T.TextProfile(t, tok) for t in others]
    assert T.fact_in(T.TextProfile(fact, tok), profiles, threshold) == want


@settings(max_examples=150, deadline=None)
@given(st.lists(texts, min_size=1, max_size=4), st.lists(texts, max_size=4), texts)
def test_shared_fact_checks_are_equal_to_fresh_ones(facts, contexts, response):
    key = AnswerKey("q", facts=tuple(KeyFact(f) for f in facts))
    run = StagedQuery("q", contexts=tuple(Context(f"c{i}", t) for i, t in enumerate(contexts)))
    for checks in (
        S.context_recall(key, run, 5, S.AnswerSettings())[2],
        S.fact_coverage(key, response, S.AnswerSettings())[2],
    ):
        for c in checks:
            fresh = S.FactCheck(c.index, c.found, c.rule, c.detail)
            assert c == fresh and hash(c) == hash(fresh)
