"""Goldsmith's file formats, one module per format (docs/formats.md describes each).

- `detect`: which format a file is in, and qrels or runs read from a file of any format;
- `trec`: TREC qrels and runs (readers and writers, trec_eval's order), topics files;
- `jsonl`: JSONL runs and qrels, and the field checks every JSON Lines reader uses;
- `goldset`: the native golden set (header, queries, reader, writer, content hash), what its
  grades, splits and labels may be, and its CSV export;
- `beir`: BEIR folders and zips (reader and streamed writer), the Cranfield converter;
- `labels`: the labels CSV that `goldsmith agreement` reads;
- `diff`: what changed between two golden sets;
- `spreadsheets`: the one CSV writer, safe to open in a spreadsheet;
- `common`: small pieces several formats share.

Pure package: numpy and the standard library, no Django. Every reader reports a malformed file
with :class:`FormatError`.
"""

from __future__ import annotations

from pathlib import Path

from goldsmith.text import Text


class FormatError(ValueError):
    """A malformed input file; ``str()`` is ``FILE:LINE: message`` (a `goldsmith.text.Text`
    where the reader says why, so that an app can say it in its reader's language).

    FILE is the path the reader was given (``ZIP:MEMBER`` for a file inside a zip) until
    :meth:`named` puts the name a person knows the file by in its place: an upload is read from
    a server-side temporary copy, whose path is never shown (``annotation.services.uploads``)."""

    def __init__(self, path: str | Path, line: int, message: str) -> None:
        self.path, self.line, self.message = str(path), line, message
        super().__init__(f"{self.path}:{line}: {message}")

    def named(self, path: str | Path, name: str) -> FormatError:
        """This error with the file at `path` shown as `name` (a zip's member kept:
        ``beir.zip:qrels/test.tsv``), in its message too; itself when it names another file."""
        at = str(path)
        own = self.path == at or self.path.startswith(at + ":")
        if not own and at not in self.message:
            return self
        shown = name + self.path[len(at) :] if own else self.path
        message = self.message
        if isinstance(message, Text):  # keep it translatable: rename in its values
            values = {
                key: str(value).replace(at, name)
                if isinstance(value, str | Path) and not isinstance(value, Text)
                else value
                for key, value in message.values.items()
            }
            return FormatError(shown, self.line, Text(message.template, **values))
        return FormatError(shown, self.line, message.replace(at, name))
