"""Time `goldsmith.judging_order.similarities` on one annotate page's pool: the 200 first
Cranfield abstracts (English, ~130 words each) and 200 CMRC 2018 paragraphs (Chinese,
character bigrams), as the order builds it on every page load. Best of `--rounds` runs.

    PYTHONPATH=$PWD .venv/bin/python bench/similarities_timing.py [--size 200] [--rounds 20]

`--module FILE` times the `similarities` of another copy of the module instead, for a before
and after on one machine: `git show REV:goldsmith/judging_order.py > /tmp/old.py`, then
`--module /tmp/old.py`.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.benchlib import shared_data
from goldsmith.formats.beir import cranfield_documents
from goldsmith.judging_order import similarities

Similarities = Callable[[list[str]], Any]


def cranfield(n: int) -> list[str]:
    docs = cranfield_documents(shared_data("cranfield") / "cran.all.1400")
    return [str(d["text"]) for _, d in zip(range(n), docs, strict=False)]


def cmrc(n: int) -> list[str]:
    data = json.loads((shared_data("cmrc2018") / "cmrc2018_dev.json").read_text("utf-8"))
    texts = [p["context"] for article in data["data"] for p in article["paragraphs"]]
    return texts[:n]


def loaded(path: str) -> Similarities:
    spec = importlib.util.spec_from_file_location("timed_judging_order", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    found: Similarities = module.similarities
    return found


def best_of(how: Similarities, texts: list[str], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        how(texts)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--module", help="a copy of goldsmith/judging_order.py to time instead")
    args = parser.parse_args()
    how = loaded(args.module) if args.module else similarities
    for name, texts in (("cranfield", cranfield(args.size)), ("cmrc2018", cmrc(args.size))):
        words = sum(len(t) for t in texts) // max(len(texts), 1)
        ms = best_of(how, texts, args.rounds) * 1000
        print(f"{name}: {len(texts)} texts, {words} characters each on average: {ms:.1f} ms")


if __name__ == "__main__":
    main()
