"""Bounds on what an uploaded file may hold, checked while it streams. Pure: no Django.

A BEIR zip of about 1 MB can unpack to a line of 1 GiB; read a line at a time as Python
reads lines (to the next newline, however far), it took 2.2 GB in a web process. So:

- a line is read at most `max_line_bytes` far: a longer one is refused at its number, and a
  reader never holds more than one line of that size;
- a zip is checked from its directory before anything is unpacked: what its members declare
  in all (`max_unpacked_bytes`), how much one member expands (`max_zip_ratio` times its
  compressed size, for members above `RATIO_FLOOR`: small files compress as they like), and
  no member twice, no two members sharing compressed bytes (an "overlapping" zip bomb), no
  archive inside, no encryption or compression method Python cannot read. Python's
  `zipfile` stops a member at its declared size (and fails its CRC check there), so the
  declared sizes bound what is unpacked.

The app passes the settings GOLDSMITH_UPLOAD_MAX_LINE_BYTES, GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES
and GOLDSMITH_UPLOAD_MAX_ZIP_RATIO; the defaults here are theirs.
"""

from __future__ import annotations

import functools
import itertools
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

from goldsmith.text import say

RATIO_FLOOR = 1 << 20  # members unpacking to less than 1 MiB may have any ratio
ARCHIVES = (".zip", ".gz", ".tgz", ".tar", ".bz2", ".xz", ".7z", ".rar", ".zst", ".lz4")
READABLE_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)
# A zip's local file header is at least this long: members closer together share bytes.
LOCAL_HEADER = 30


@dataclass(frozen=True)
class UploadLimits:
    """Longest line; bytes a zip may unpack to in all; expansion of one member."""

    max_line_bytes: int = 16 << 20
    max_unpacked_bytes: int = 1 << 30
    max_zip_ratio: int = 100


def line_too_long(limit: int) -> str:
    return say(
        "the line is longer than %(limit)s bytes (GOLDSMITH_UPLOAD_MAX_LINE_BYTES)",
        limit=f"{limit:,}",
    )


def unpacks_too_much(size: int, limit: int) -> str:
    return say(
        "the zip unpacks to %(size)s bytes or more; at most %(limit)s "
        "(GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES)",
        size=f"{size:,}",
        limit=f"{limit:,}",
    )


def zip_refusal(zf: zipfile.ZipFile, limits: UploadLimits) -> tuple[str, str] | None:
    """(member, reason) for the first thing in `zf`'s directory that it refuses, else None."""
    infos = [i for i in zf.infolist() if not i.is_dir()]
    for name, n in Counter(i.filename for i in infos).items():
        if n > 1:
            return name, say("the zip holds this member %(n)s times", n=n)
    for info in infos:
        if info.filename.lower().endswith(ARCHIVES):
            return info.filename, say("an archive inside the zip: put its files in the zip itself")
        if info.flag_bits & 0x1:
            return info.filename, say("the member is encrypted")
        if info.compress_type not in READABLE_METHODS:
            method = info.compress_type
            return info.filename, say(
                "compression method %(method)s cannot be read (use deflate)", method=method
            )
        if info.file_size > RATIO_FLOOR and info.file_size > limits.max_zip_ratio * max(
            info.compress_size, 1
        ):
            ratio = info.file_size / max(info.compress_size, 1)
            return info.filename, say(
                "unpacks to %(size)s bytes from %(compressed)s (%(ratio)s times its size); "
                "at most %(limit)s times (GOLDSMITH_UPLOAD_MAX_ZIP_RATIO)",
                size=f"{info.file_size:,}",
                compressed=f"{info.compress_size:,}",
                ratio=f"{ratio:,.0f}",
                limit=f"{limits.max_zip_ratio:,}",
            )
    total = sum(i.file_size for i in infos)
    if total > limits.max_unpacked_bytes:
        biggest = max(infos, key=lambda i: i.file_size)
        return biggest.filename, unpacks_too_much(total, limits.max_unpacked_bytes)
    by_offset = sorted(zf.infolist(), key=lambda i: i.header_offset)
    for a, b in itertools.pairwise(by_offset):
        if a.header_offset + LOCAL_HEADER + a.compress_size > b.header_offset:
            return b.filename, say(
                "the member overlaps %(other)r (one block read twice)", other=a.filename
            )
    return None


def bounded_lines(
    stream: IO[bytes], max_line_bytes: int, fail: Callable[[int, str], Exception]
) -> Iterator[bytes]:
    """The lines of a binary stream (each with its newline), none read further than
    `max_line_bytes` (newline not counted): a longer line raises ``fail(line, reason)``."""
    lines = iter(functools.partial(stream.readline, max_line_bytes + 1), b"")
    for line, raw in enumerate(lines, 1):
        if len(raw) > max_line_bytes and raw[-1:] != b"\n":
            raise fail(line, line_too_long(max_line_bytes))
        yield raw
