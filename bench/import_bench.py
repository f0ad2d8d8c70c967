"""Import benchmark: a 1,000,000-line query log and a 200,000-chunk corpus into PostgreSQL.

Usage:
  .venv/bin/python bench/import_bench.py \
      --database-url postgres://postgres@127.0.0.1:5432/gs_bench \
      [--lines 1000000] [--chunks 200000] [--out bench/out] [--language zh]

Generates seeded inputs once (under bench/out/, git-ignored), recreates the benchmark database,
then runs `manage.py import_querylog` and `manage.py import_corpus` as separate processes under
/usr/bin/time -v, and prints wall time, lines (chunks) per second and peak RSS as Markdown.
The query log has Zipf-distributed repeats over ~150k question shapes, categories, feedback,
user and session ids, and e-mail addresses / phone numbers in about 1 % of the lines, so the
scrubber does real work. The corpus is 20,000 documents of 10 chunks of ~500 characters.

``--language zh``: the same sizes in Chinese, mixed with English product names and numbers as
in annotation/demo_data/zh_collection (whose sentences and queries it recombines): a query log of
questions about 20 products in ~150k shapes (some in traditional characters, mobile numbers
and e-mail addresses in about 1 % of the lines), and chunks of ~320 characters. The project is
Chinese from its first import (detected: zh-bigrams), so the corpus's search index is the
Chinese one (`annotation.services.search`).

The corpus's import is done when its chunks are stored (poolable, and searchable without the
index); the search index is built after, by the command here (by a worker for an upload). The
second table gives the two apart: seconds to stored (the import record's creation to its end)
and seconds of the search index build that follows.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np
from benchlib import ROOT, production, run_timed

SEED = 20241130
TOPICS = ["json", "pathlib", "asyncio", "datetime", "regex", "logging", "csv", "sqlite3",
          "subprocess", "threading", "unittest", "typing", "itertools", "collections", "socket",
          "zipfile", "argparse", "decimal", "random", "urllib"]  # fmt: skip
VERBS = ["parse", "read", "write", "sort", "filter", "merge", "split", "convert", "validate",
         "format", "compress", "encode", "decode", "cache", "retry", "debug", "test", "log",
         "schedule", "stream"]  # fmt: skip
OBJECTS = ["a file", "a list", "a dict", "a string", "dates", "a csv row", "bytes", "a url",
           "a config", "large files", "nested data", "unicode text", "a queue", "a socket",
           "a process", "a zip archive", "timestamps", "a decimal", "a generator",
           "paths"]  # fmt: skip
SHAPES = ["how do I {v} {o} with {t}", "{t} {v} {o} example", "why does {t} fail to {v} {o}",
          "best way to {v} {o} in python {ver}", "{v} {o} using {t} without errors",
          "{t}: {v} {o} faster", "how to {v} {o} in {t} on windows",
          "can {t} {v} {o} asynchronously", "{v} {o} {t} python {ver} vs {ver2}"]  # fmt: skip
# A query log line's text and its own fields from its rank and its shape.
Question = Callable[[int, int], tuple[str, dict[str, object]]]
FEEDBACK = ["", "", "", "", "", "", "", "thumbs_down", "no_click", "thumbs_up", "escalation"]


def write_querylog(
    path: Path, lines: int, seed: int, n_shapes: int, question: Question, marks: tuple[str, ...]
) -> None:
    """Zipf-distributed repeats over ``n_shapes`` question shapes (ranks over 150,000 drawn
    again uniformly), 50,000 users, sessions of 5,000 lines. ``question(rank, rank % n_shapes)``
    gives a line's text and its own fields; ``marks``, what its text may get: a repeat's number
    ``{n}``, then (0.5 % of the lines each) the user's e-mail address ``{u}`` or a phone number
    (``{u4}``, ``{u9}``: the user's number modulo 10,000 and 9,999)."""
    case, mail, phone = marks
    rng = np.random.default_rng(seed)
    ranks = rng.zipf(1.15, size=lines)
    ranks = np.where(ranks > 150_000, rng.integers(1, 150_000, size=lines), ranks)
    users = rng.integers(0, 50_000, size=lines)
    pii = rng.random(lines)
    start = 1_700_000_000
    with path.open("w", encoding="utf-8") as out:
        for i in range(lines):
            r, user = int(ranks[i]), users[i]
            text, fields = question(r, r % n_shapes)
            if r > n_shapes:
                text += case.format(n=r // n_shapes)
            if pii[i] < 0.005:
                text += mail.format(u=user)
            elif pii[i] < 0.01:
                text += phone.format(u4=user % 10000, u9=user % 9999)
            record = {
                "query": text,
                "timestamp": start + i * 2,
                "user": f"u{user}",
                "session": f"u{user}-{i // 5000}",
                **fields,
                "feedback": FEEDBACK[(r + i) % len(FEEDBACK)],
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def write_corpus(path: Path, texts: Iterable[str], step: int, title: str) -> None:
    """Chunks of 10 per document, their offsets ``step`` characters apart."""
    with path.open("w", encoding="utf-8") as out:
        for i, text in enumerate(texts):
            record = {"id": f"c{i}", "doc_id": f"d{i // 10}", "text": text, "position": i % 10,
                      "start": (i % 10) * step, "end": (i % 10) * step + len(text),
                      "title": f"{title} {i // 10}"}  # fmt: skip
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def make_querylog(path: Path, lines: int, seed: int = SEED) -> None:
    n_shapes = len(SHAPES) * len(TOPICS) * len(VERBS) * len(OBJECTS) // 2  # ~18k bases

    def question(r: int, base: int) -> tuple[str, dict[str, object]]:
        text = SHAPES[r % len(SHAPES)].format(
            v=VERBS[base % 20],
            o=OBJECTS[(base // 20) % 20],
            t=TOPICS[(base // 400) % 20],
            ver=f"3.{8 + r % 5}",
            ver2=f"3.{7 + r % 3}.{r % 10}",
        )
        return text, {"category": TOPICS[(base // 400) % 20]}

    marks = (" (case {n})", " mail me at dev{u}@example.com", " or call +44 20 7946 {u4:04d}")
    write_querylog(path, lines, seed, n_shapes, question, marks)


def make_corpus(path: Path, chunks: int, seed: int = SEED) -> None:
    rng = np.random.default_rng(seed + 1)
    stems = ("data", "file", "path", "loop", "task", "time", "text")
    words = np.array([f"{t}{i}" for t in stems for i in range(300)] + TOPICS + VERBS)
    texts = (" ".join(words[rng.integers(0, len(words), size=75)]) for _ in range(chunks))
    write_corpus(path, texts, 520, "Document")


ZH = ROOT / "annotation" / "demo_data" / "zh_collection"
ZH_ASKS = ["{p} {a}", "{p}{a}吗", "请问{p}{a}", "{p} {a}怎么办", "{a} {p}", "{p}的{a}是多少",
           "如何{a} {p}", "{p} {a}？", "{p}  {a} 急", "咨询一下{p}{a}"]  # fmt: skip
ZH_ASPECTS = ["保修期多久", "怎么退款", "退货要运费吗", "什么时候发货", "充电要多久",
              "续航几天", "固件怎么升级", "连不上蓝牙", "恢复出厂设置", "防水吗", "换屏多少钱",
              "配件在哪买", "发票怎么开", "以旧换新", "价格", "怎么收费", "可以试用吗",
              "忘记密码", "两步验证", "返回 429", "AccessKey 在哪", "自动备份", "导出数据",
              "注销账号", "SLA 多少", "有哪些地域", "升级套餐", "错误码 401", "發票怎麼開",
              "退貨運費"]  # fmt: skip


def _zh_products() -> list[str]:
    """The collection's 20 product names, each also without spaces and by its kind."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("zh_collection", ZH / "make_collection.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    names = []
    for _slug, name, kind in [*module.DEVICES, *module.SERVICES]:
        names += [name, name.replace(" ", ""), kind]
    return names


def make_querylog_zh(path: Path, lines: int, seed: int = SEED) -> None:
    products = _zh_products()
    n_shapes = len(ZH_ASKS) * len(ZH_ASPECTS) * len(products)

    def question(r: int, base: int) -> tuple[str, dict[str, object]]:
        text = ZH_ASKS[base % len(ZH_ASKS)].format(
            p=products[(base // len(ZH_ASKS)) % len(products)],
            a=ZH_ASPECTS[(base // (len(ZH_ASKS) * len(products))) % len(ZH_ASPECTS)],
        )
        return text, {}

    marks = ("（订单 {n}）", "，邮箱dev{u}@example.com", "，电话138{u4:04d}{u9:04d}")
    write_querylog(path, lines, seed, n_shapes, question, marks)


def make_corpus_zh(path: Path, chunks: int, seed: int = SEED) -> None:
    rng = np.random.default_rng(seed + 1)
    sentences = [
        piece + "。"
        for line in (ZH / "corpus.jsonl").open(encoding="utf-8")
        for piece in json.loads(line)["text"].split("。")
        if piece
    ]
    sentences += ["退貨運費由買家承擔，質量問題除外。", "電子發票會在訂單完成後發送到郵箱。"]
    picks = rng.integers(0, len(sentences), size=(chunks, 8))

    def texts() -> Iterator[str]:
        for row in picks:
            text = ""
            for j in row:
                text += sentences[j]
                if len(text) >= 300:
                    break
            yield text

    write_corpus(path, texts(), 330, "文档")


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system), peak RSS (MB) and stdout of a command run
    under /usr/bin/time -v. CPU time is what the process itself used: on a busy machine it is
    the fairer figure (PostgreSQL's own work is not in it)."""
    t = run_timed(cmd, cwd=ROOT, env=env)
    indexed = re.search(r"search index of project \d+: (\d+) vectors in ([\d.]+)s", t.stderr)
    note = f" (search index: {indexed[1]} vectors in {indexed[2]} s)" if indexed else ""
    return t.wall_s, t.cpu_s, t.peak_rss_mib, t.stdout.strip() + note


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True, help="postgres://…/DBNAME (recreated)")
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--chunks", type=int, default=200_000)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    parser.add_argument("--language", choices=["en", "zh"], default="en")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    zh = args.language == "zh"
    suffix = "_zh" if zh else ""
    log_path = args.out / f"querylog_{args.lines}{suffix}.jsonl"
    corpus_path = args.out / f"corpus_{args.chunks}{suffix}.jsonl"
    makers = (make_querylog_zh, make_corpus_zh) if zh else (make_querylog, make_corpus)
    for path, make, size in ((log_path, makers[0], args.lines),
                             (corpus_path, makers[1], args.chunks)):  # fmt: skip
        if not path.exists():
            print(f"generating {path} …", file=sys.stderr)
            make(path, size)

    db = args.database_url.rsplit("/", 1)
    admin = f"--maintenance-db={db[0]}/postgres"
    subprocess.run(["dropdb", "--if-exists", admin, db[1]], check=False)
    subprocess.run(["createdb", admin, db[1]], check=True)
    env = dict(os.environ, DATABASE_URL=args.database_url, DJANGO_SETTINGS_MODULE="config.settings")
    production(env)
    env.setdefault("GOLDSMITH_VAR_DIR", str(args.out / "var"))
    manage = [sys.executable, "manage.py"]

    def shell(code: str) -> str:
        """The last line ``manage.py shell -c code`` printed."""
        done = subprocess.run([*manage, "shell", "-c", code], cwd=ROOT, env=env, check=True,
                              capture_output=True, text=True)  # fmt: skip
        return done.stdout.strip().splitlines()[-1]

    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([*manage, "create_project", "--name", "Bench", "--lead", "bench"],
                   cwd=ROOT, env=env, check=True, capture_output=True)  # fmt: skip

    rows = []
    wall, cpu, peak, out = timed([*manage, "import_querylog", "--project", "Bench",
                                  str(log_path), "--quiet"], env)  # fmt: skip
    report = json.loads(
        shell("from annotation.models import QueryLog; import json; "
              "l = QueryLog.objects.latest('id'); print(json.dumps({'report': l.report, "
              "'scrubbed': l.scrubbed}))")
    )  # fmt: skip
    rows.append(("query log", args.lines, "lines", wall, cpu, peak, out, report))
    stages = []
    for name in ("corpus", "corpus re-import (unchanged)"):
        wall, cpu, peak, out = timed([*manage, "import_corpus", "--project", "Bench",
                                      str(corpus_path), "--quiet"], env)  # fmt: skip
        rows.append((name, args.chunks, "chunks", wall, cpu, peak, out, None))
        # The import is done when its chunks are stored (its record's created → finished);
        # the command then builds the search index (a worker does, for an upload).
        stored = float(
            shell("from annotation.models import CorpusImport; "
                  "r = CorpusImport.objects.latest('id'); "
                  "print((r.finished_at - r.created_at).total_seconds())")
        )  # fmt: skip
        index = re.search(r"search index: \d+ vectors in ([\d.]+) s", out)
        stages.append((name, stored, float(index[1]) if index else 0.0))

    print(
        "| import | items | wall (s) | items/s (wall) | CPU (s) | items/s (CPU) | peak RSS (MB) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, n, unit, wall, cpu, peak, _out, _report in rows:
        print(f"| {name} | {n:,} {unit} | {wall:.1f} | {n / wall:,.0f} | {cpu:.1f} | "
              f"{n / cpu:,.0f} | {peak:.0f} |")  # fmt: skip
    print("\n| corpus import | stored (s) | chunks/s stored | search index after (s) |")
    print("|---|---:|---:|---:|")
    for name, stored, index in stages:
        print(f"| {name} | {stored:.1f} | {args.chunks / stored:,.0f} | {index:.1f} |")
    for name, *_rest, out, report in rows:
        print(f"\n{name}: {out}")
        if report:
            print(f"phases, wall (s): {report['report'].get('seconds')}")
            print(f"phases, CPU (s): {report['report'].get('cpu_seconds')}")
            print(f"scrubbed: {report['scrubbed']}")


if __name__ == "__main__":
    main()
