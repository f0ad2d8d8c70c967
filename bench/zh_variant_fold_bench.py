"""Variant folding of Chinese queries (`goldsmith.intake.tokenizers.fold_variants`), measured on
jieba's dictionary, on the pairs of tests/data/zh_variants/pairs.tsv and on the dedupe of
query logs with traditional forms. `--write-table` writes the table of Taiwan and Hong Kong
words the fold reads as mainland words (`goldsmith.intake.regional_words`, built from the
installed OpenCC; `make install` builds it too) and says what it left out.

Usage:
  PYTHONPATH=. .venv/bin/python bench/zh_variant_fold_bench.py [--write-table]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goldsmith.intake.regional_words import TABLE, jieba_words, regional_words, write

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "tests" / "data" / "zh_variants" / "pairs.tsv"
DEMO_LOG = ROOT / "annotation" / "demo_data" / "zh_collection" / "querylog.csv"
TOP = 20_000


def write_table() -> None:
    kept, left = regional_words()
    rows = write()
    print(f"wrote {TABLE.relative_to(ROOT)}: {len(rows)} rows, {len(kept)} words, {len(left)} out")
    for reason in ("common mainland word", "one character", "the same word"):
        out = [f"{t}→{m}" for t, (m, r) in left.items() if r.endswith(reason)]
        print(f"  left out, {reason}: {len(out)}: {' '.join(out[:60])}")


@cache
def _variant_converters() -> tuple[Callable[[str], str], Callable[[str], str]]:
    import opencc

    return opencc.OpenCC("hk2t").convert, opencc.OpenCC("tw2t").convert


def variant_steps(text: str) -> str:
    """`text` with Hong Kong's and Taiwan's variant characters as OpenCC's standard ones, as
    the fold reads a traditional run before it looks for the table's words."""
    hk2t, tw2t = _variant_converters()
    return tw2t(hk2t(text))


def round_trip() -> Callable[[str], str]:
    """The fold before 2026-12-02: each Han run through OpenCC hk2s → s2twp → tw2sp."""
    import opencc

    from goldsmith.intake.tokenizers import _HAN_RUN_RE, _account_zhang

    steps = [opencc.OpenCC(name).convert for name in ("hk2s", "s2twp", "tw2sp")]

    def run(match) -> str:  # type: ignore[no-untyped-def]
        text = match.group()
        for step in steps:
            text = step(text)
        return _account_zhang(text)

    return lambda text: _HAN_RUN_RE.sub(run, text)


def characters_only() -> Callable[[str], str]:
    """Traditional characters to simplified ones, no regional words (OpenCC hk2t, tw2t, t2s)."""
    import opencc

    from goldsmith.intake.tokenizers import _account_zhang

    steps = [opencc.OpenCC(name).convert for name in ("hk2t", "tw2t", "t2s")]

    def fold(text: str) -> str:
        for step in steps:
            text = step(text)
        return _account_zhang(text)

    return fold


def folds() -> dict[str, Callable[[str], str]]:
    from goldsmith.intake.tokenizers import fold_variants

    return {"new": fold_variants, "characters": characters_only(), "round trip": round_trip()}


def simplified_words(top: int | None) -> list[str]:
    """jieba's words (the `top` most frequent, or all) that OpenCC t2s leaves as they are."""
    import opencc

    t2s = opencc.OpenCC("t2s").convert
    words = [word for word, _ in jieba_words()[:top]]
    return [w for w in words if t2s(w) == w]


def measure_words(top: int | None) -> None:
    """Simplified words the fold changes; the same words typed in traditional characters (those
    of them that OpenCC t2s changes: traditional input) that fold back to the word."""
    import opencc

    from goldsmith.intake.tokenizers import _account_zhang

    t2s = opencc.OpenCC("t2s").convert
    words = simplified_words(top)
    label = f"top {top:,}" if top else "all"
    print(f"\njieba's words ({label}) that t2s leaves as they are: {len(words):,}")
    typed = {}
    for name in ("s2t", "s2hk", "s2tw"):
        convert = opencc.OpenCC(name).convert
        typed[name] = [(w, t) for w in words if t2s(t := convert(w)) != t]
    for name, fold in folds().items():
        started = time.perf_counter()
        changed = [w for w in words if fold(w) != w]
        zhang = sum(fold(w) == _account_zhang(w) for w in changed)
        line = f"  {name:>10}: simplified words changed {len(changed):,} ({zhang} of them 帐 → 账)"
        for conv_name, pairs_typed in typed.items():
            back = sum(fold(t) == _account_zhang(w) for w, t in pairs_typed)
            line += f"; {conv_name} {back:,}/{len(pairs_typed):,} back"
        print(line + f" ({time.perf_counter() - started:.1f} s)")
        if changed:
            shown = [w for w in changed if fold(w) != _account_zhang(w)]
            print("      e.g. " + " ".join(f"{w}→{fold(w)}" for w in shown[:25]))
    kept = regional_words()[0]
    new, chars = folds()["new"], characters_only()
    for conv_name, pairs_typed in typed.items():
        regional = [(w, t, new(t)) for w, t in pairs_typed
                    if new(t) != _account_zhang(w) and chars(t) == _account_zhang(w)]  # fmt: skip
        other = [(w, t, new(t)) for w, t in pairs_typed
                 if new(t) != _account_zhang(w) and chars(t) != _account_zhang(w)]  # fmt: skip
        print(f"      {conv_name}, new fold, not back: {len(regional)} read as regional words "
              f"({sum(any(k in variant_steps(t) for k in kept) for _, t, _ in regional)} by "
              f"a word of the table), {len(other)} missed by the characters too; e.g. "
              + " ".join(f"{w}>{t}>{f}" for w, t, f in regional[:30]))  # fmt: skip


def measure_mixed(top: int) -> None:
    """A simplified word beside a traditional one in one run: the word must stay as typed."""
    from goldsmith.intake.tokenizers import _account_zhang, fold_variants

    words = simplified_words(top)
    bad = []
    for w in words:
        for typed, want in ((w + "運費", w + "运费"), ("運費" + w, "运费" + w),
                            (w + "軟體", w + "软件"), ("帳號" + w, "账号" + w)):  # fmt: skip
            want = _account_zhang(want)  # 帐 is the account 账 in any script
            if fold_variants(typed) != want:
                bad.append((typed, fold_variants(typed), want))
    print(f"\nmixed runs (a simplified word of the top {top:,} beside 運費/軟體/帳號, "
          f"{4 * len(words):,} runs): {len(bad)} not as wanted")  # fmt: skip
    for typed, got, want in bad[:30]:
        print(f"      {typed} → {got} (wanted {want})")


def pairs() -> list[tuple[str, str, str]]:
    rows = [line.split("\t") for line in PAIRS.read_text("utf-8").splitlines()]
    return [(k, a, b) for k, a, b in (r for r in rows if r[0] in ("same", "apart"))]


def keyed_by(fold: Callable[[str], str]) -> Callable[[str], str]:
    """`normalize_query` of a Chinese project, with `fold` in place of `fold_variants`."""
    from goldsmith.intake import normalize

    def key(text: str) -> str:
        with mock.patch.object(normalize, "fold_variants", fold):
            return normalize.normalize_query(text, chinese=True)

    return key


def measure_pairs() -> None:
    print(f"\npairs of {PAIRS.relative_to(ROOT)}:")
    for name, fold in folds().items():
        key = keyed_by(fold)
        same = [(a, b) for k, a, b in pairs() if k == "same"]
        apart = [(a, b) for k, a, b in pairs() if k == "apart"]
        merged = [(a, b) for a, b in same if key(a) == key(b)]
        wrong = [(a, b) for a, b in apart if key(a) == key(b)]
        missed = " ".join(f"{a}/{b}" for a, b in same if key(a) != key(b))
        print(f"  {name:>10}: same {len(merged)}/{len(same)} merged, "
              f"apart {len(wrong)}/{len(apart)} merged; not merged: {missed}")  # fmt: skip


def measure_mainland_pairs(top: int) -> None:
    """Pairs of different mainland words that the round trip gave one key (查询 and 查找): as
    two queries each ("查询怎么用", "查找怎么用"), how many pairs each fold merges."""
    rewritten = round_trip()
    pairs_ = [(w, rewritten(w)) for w in simplified_words(top) if rewritten(w) != w]
    pairs_ = [(a, b) for a, b in pairs_ if "帐" not in a]  # 帐户 and 账户 are one word
    print(f"\nmainland pairs the round trip merges ({len(pairs_)} of the top {top:,}, 帐 aside):")
    for name, fold in folds().items():
        key = keyed_by(fold)
        merged = [(a, b) for a, b in pairs_ if key(a + "怎么用") == key(b + "怎么用")]
        print(f"  {name:>10}: {len(merged)} merged" + (
            ": " + " ".join(f"{a}={b}" for a, b in merged[:12]) if merged else ""))  # fmt: skip


def log_keys(queries: Iterable[str], fold: Callable[[str], str]) -> dict[str, set[str]]:
    from goldsmith.intake.normalize import display_text

    key = keyed_by(fold)
    keys: dict[str, set[str]] = {}
    for query in queries:
        text = display_text(query)
        keys.setdefault(key(text), set()).add(text)
    return keys


def measure_log(name: str, queries: list[str]) -> None:
    print(f"\ndedupe of {name} ({len(queries):,} lines, {len(set(queries)):,} distinct texts):")
    for fold_name, fold in folds().items():
        keys = log_keys(queries, fold)
        merged = [sorted(texts) for texts in keys.values() if len(texts) > 1]
        print(f"  {fold_name:>10}: {len(keys):,} keys; {len(merged):,} keys merge several texts")
        if fold_name != "characters":
            for texts in merged[:12]:
                print("      " + " = ".join(texts))
    new, chars = log_keys(queries, folds()["new"]), log_keys(queries, folds()["characters"])
    by_chars = {frozenset(t) for t in chars.values()}
    extra = [sorted(t) for t in new.values() if frozenset(t) not in by_chars and len(t) > 1]
    print(f"  merged by the new fold and not by characters alone: {len(extra)}")
    for texts in extra[:20]:
        print("      " + " = ".join(texts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write-table", action="store_true")
    args = parser.parse_args()
    if args.write_table:
        write_table()
        return
    kept, left = regional_words()
    print(f"regional words: {len(kept)} kept, {len(left)} left out")
    measure_words(TOP)
    measure_words(None)
    measure_mixed(TOP)
    measure_pairs()
    measure_mainland_pairs(TOP)
    with DEMO_LOG.open(encoding="utf-8") as handle:
        measure_log(str(DEMO_LOG.relative_to(ROOT)), [r["query"] for r in csv.DictReader(handle)])
    sys.path.insert(0, str(ROOT / "bench"))
    from import_bench import make_querylog_zh

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.jsonl"
        make_querylog_zh(path, 200_000)
        with path.open(encoding="utf-8") as handle:
            queries = [json.loads(line)["query"] for line in handle]
    measure_log("bench/import_bench.py's Chinese log, 200,000 lines", queries)


if __name__ == "__main__":
    main()
