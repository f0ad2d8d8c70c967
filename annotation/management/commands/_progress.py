"""Progress lines for import commands, on stderr (a carriage-return line on a terminal)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO


def progress_printer(stream: TextIO = sys.stderr) -> Callable[[str, int, int], None]:
    tty = stream.isatty()

    def show(phase: str, done: int, total: int) -> None:
        share = f"{100 * done / total:5.1f}%" if total else "     "
        line = f"{phase:<10} {share}  {done / 1e6:8.1f} of {total / 1e6:.1f} MB"
        stream.write(("\r" + line) if tty else line + "\n")
        stream.flush()

    return show
