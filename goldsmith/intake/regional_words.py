"""The Taiwan and Hong Kong words a Chinese query's de-duplication key reads as mainland words
(`goldsmith.intake.tokenizers.fold_variants`), built here from the installed OpenCC's own
dictionaries and jieba's, never committed: `make install` writes it beside this module
(``python -m goldsmith.intake.regional_words``), and a process that finds it missing or built
from another OpenCC builds it once (about 6 s of CPU) and keeps it.

The table: every entry of OpenCC's TWPhrasesRev and HKPhrasesRev (the words that OpenCC's
``tw2sp`` and ``hk2sp`` turn into mainland words: 軟體 → 软件, 螢幕 → 屏幕, 記憶體 → 内存), but
for three kinds: a word of one character (埠 → 端口 would rewrite 商埠), an entry whose mainland
word is the word's own characters (預設 → 預設), and a word whose characters read as simplified
are a common mainland word, one jieba counts `COMMON` times or more (查詢 → 查询 is the mainland
word of the same meaning, where OpenCC writes 查找; likewise 執行, 儲存, 指標, 資料, 影片, 新增,
核心, 類比, 區域性). A word left out is written as its own characters (but for one character),
and so is every word of jieba's dictionary, typed in OpenCC's traditional characters, that holds
a word of the table and would be misread by it (尼日利亞 is not 尼日爾 + 利亞), so that the
longest match keeps it whole."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

TABLE = Path(__file__).with_name("zh_regional_words.tsv")
COMMON = 100  # a word jieba counts this often is a common mainland word (its top ~33,000)
HEADER = "# OpenCC {version}: built by goldsmith.intake.regional_words, do not edit or commit\n"


def _converter(name: str) -> Callable[[str], str]:
    import opencc

    convert: Callable[[str], str] = opencc.OpenCC(name).convert
    return convert


def opencc_dictionary(name: str) -> list[tuple[str, list[str]]]:
    """One of OpenCC's installed dictionaries (``TWPhrasesRev``…) as (key, values), read with
    the opencc_dict tool its package ships."""
    import opencc

    clib = Path(opencc.__file__).parent / "clib"
    env = {**os.environ, "LD_LIBRARY_PATH": str(clib / "lib64")}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"{name}.txt"
        source = clib / "share" / "opencc" / f"{name}.ocd2"
        tool = clib / "bin" / "opencc_dict"
        command = [str(tool), "-i", str(source), "-o", str(out), "-f", "ocd2", "-t", "text"]
        try:
            subprocess.run(command, check=True, env=env, capture_output=True)
        except (OSError, subprocess.CalledProcessError) as error:
            raise RuntimeError(
                f"cannot read OpenCC's {name} dictionary with {tool} ({error}): the Chinese "
                "fold's table of Taiwan and Hong Kong words is built from it; install OpenCC "
                "1.4.2 or newer from PyPI (the package that ships that tool)"
            ) from error
        rows = [line.split("\t") for line in out.read_text("utf-8").splitlines()]
    return [(key, values.split(" ")) for key, values in rows]


@cache
def jieba_words() -> list[tuple[str, int]]:
    """jieba's dictionary as (word, frequency), the most frequent first."""
    import jieba

    rows = [
        line.split()[:2]
        for line in (Path(jieba.__file__).parent / "dict.txt").open(encoding="utf-8")
    ]
    return sorted(((word, int(n)) for word, n in rows), key=lambda row: -row[1])


def regional_words() -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """The table's words (word as typed → mainland word), and the entries left out with their
    reason."""
    t2s, hk2t, tw2t = _converter("t2s"), _converter("hk2t"), _converter("tw2t")
    common = {word for word, n in jieba_words() if n >= COMMON}
    kept: dict[str, str] = {}
    left: dict[str, tuple[str, str]] = {}
    for name in ("TWPhrasesRev", "HKPhrasesRev"):  # Taiwan's first where both have a word
        for key, values in opencc_dictionary(name):
            typed, mainland = tw2t(hk2t(key)), t2s(values[0])
            if typed in kept or typed in left:
                continue
            if len(typed) == 1:
                left[typed] = (mainland, "one character")
            elif t2s(typed) == mainland:
                left[typed] = (mainland, "the same word")
            elif t2s(typed) in common:
                left[typed] = (mainland, f"{t2s(typed)} is a common mainland word")
            else:
                kept[typed] = mainland
    return dict(sorted(kept.items())), left


def protected_words(kept: dict[str, str], left: dict[str, tuple[str, str]]) -> dict[str, str]:
    """jieba's words of two characters or more, typed in simplified or in OpenCC's traditional
    characters, that their characters read right and the table would misread (a word of it
    inside a longer one: 尼日 in 尼日利亞, 塔吉克 in 塔吉克族): each as the simplified word,
    keyed by its text after the variant steps (hk2t, tw2t), so that the longest match keeps it
    whole."""
    t2s, s2t = _converter("t2s"), _converter("s2t")
    hk2t, tw2t = _converter("hk2t"), _converter("tw2t")
    rows = {**kept, **{t: t2s(t) for t, (_, why) in left.items() if why != "one character"}}
    pattern = re.compile("|".join(map(re.escape, sorted(rows, key=len, reverse=True))))

    def batch(convert: Callable[[str], str], texts: list[str]) -> list[str]:
        return convert("\n".join(texts)).split("\n")

    words = [w for w, _ in jieba_words() if len(w) > 1]
    words = [w for w, same in zip(words, batch(t2s, words), strict=True) if w == same]
    out: dict[str, str] = {}
    for typed_forms in (words, batch(s2t, words)):
        normal = batch(tw2t, batch(hk2t, typed_forms))
        for word, norm in zip(words, normal, strict=True):
            if norm in rows or norm in out or t2s(norm) != word:
                continue  # not misread by the table (its characters give another word)
            pieces = pattern.sub(lambda m: "\0" + rows[m.group()] + "\0", norm).split("\0")
            if "".join(p if i % 2 else t2s(p) for i, p in enumerate(pieces)) != word:
                out[norm] = word
    return out


def build() -> dict[str, str]:
    """The table from the installed OpenCC and jieba: word as typed → mainland word."""
    kept, left = regional_words()
    t2s = _converter("t2s")
    # A word left out is read by its characters; written here too (but for one character) so
    # that a shorter word inside it is not matched in it: 軟體動物 stays 软体动物, not 软件动物.
    rows = {**kept, **{t: t2s(t) for t, (_, why) in left.items() if why != "one character"}}
    rows.update(protected_words(kept, left))
    return dict(sorted(rows.items()))


def _header() -> str:
    import opencc

    return HEADER.format(version=opencc.__version__)


def write(path: Path = TABLE) -> dict[str, str]:
    """Build the table and write it to ``path`` (whole, or not at all)."""
    rows = build()
    text = _header() + "".join(f"{typed}\t{mainland}\n" for typed, mainland in rows.items())
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
    return rows


def load(path: Path = TABLE) -> dict[str, str]:
    """The table as ``make install`` wrote it; built (and kept, where the folder is writable)
    when it is missing or was built from another OpenCC."""
    try:
        with path.open(encoding="utf-8") as table:
            if table.readline() == _header():
                return dict(line.rstrip("\n").split("\t") for line in table)
    except FileNotFoundError:
        pass
    try:
        return write(path)
    except OSError:  # a read-only installation: build it for this process only
        return build()


if __name__ == "__main__":
    if not TABLE.exists() or TABLE.open(encoding="utf-8").readline() != _header():
        print(f"built {TABLE.name}: {len(write())} words")
