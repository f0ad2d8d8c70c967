"""Small pieces several formats share: a JSON line as every writer writes it, UTF-8 decoding
that names the line, id columns, the size of streamed pieces. Pure module, no Django."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from goldsmith.formats import FormatError
from goldsmith.text import say

PIECE_LINES = 8192  # lines per yielded piece: big enough to be fast, small enough to be flat


def dumps(obj: Any) -> str:
    """One JSON line as every writer writes it (UTF-8, no NaN)."""
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def decode_utf8(where: str | Path, data: bytes, first_line: int = 1) -> str:
    """`data` decoded; invalid UTF-8 is a FormatError naming its line and byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = first_line + data.count(b"\n", 0, e.start)
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise FormatError(
            where, line, say("invalid UTF-8 at byte %(column)s", column=column)
        ) from None


def bytes_array(items: list[bytes]) -> NDArray[np.bytes_]:
    return np.array(items, dtype=np.bytes_) if items else np.zeros(0, dtype="S1")
