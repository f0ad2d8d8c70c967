"""A BEIR zip of a few MB whose qrels/test.tsv or corpus.jsonl unpacks to a 1 GiB line took
2.2 GB in a web process. Uploads are bounded while they stream: a zip is refused from its
directory when a member expands too much (GOLDSMITH_UPLOAD_MAX_ZIP_RATIO) or the members
declare too much in all (GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES), and no line is read further
than GOLDSMITH_UPLOAD_MAX_LINE_BYTES; a zip holding a member twice, members sharing bytes,
another archive, an encrypted member or an unreadable method is refused too. Each answer
names the member (and the line), and nothing is stored."""

from __future__ import annotations

import io
import json
import os
import re
import struct
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import GoldenSetVersion
from tests.conftest import REPO

GIB = 1 << 30
QUERIES = b'{"_id": "q1", "text": "one"}\n{"_id": "q2", "text": "two"}\n'
CORPUS = b'{"_id": "c1", "text": "a"}\n{"_id": "c2", "text": "b"}\n'
QRELS = b"query-id\tcorpus-id\tscore\nq1\tc1\t2\nq2\tc2\t1\n"


# Each hostile member: its first line, and the start and end of its second line, 1 GiB long.
HOSTILE = {
    "qrels/test.tsv": (b"query-id\tcorpus-id\tscore\n", b"q1\tc1", b"\t2\n"),
    "corpus.jsonl": (b'{"_id": "c1", "text": "a"}\n', b'{"_id": "c3", "text": "', b'"}\n'),
}


@pytest.fixture(scope="module", params=list(HOSTILE))
def hostile(request, tmp_path_factory) -> tuple[Path, str]:
    """A zip of ~5 MB whose member unpacks to a good first line and a second of 1 GiB."""
    member = request.param
    first, start, end = HOSTILE[member]
    path = tmp_path_factory.mktemp("bomb") / "hostile.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("beir/queries.jsonl", QUERIES)
        if member != "qrels/test.tsv":
            zf.writestr("beir/qrels/test.tsv", QRELS)
        with zf.open(f"beir/{member}", "w", force_zip64=True) as out:
            out.write(first + start)
            block = b"a" * (1 << 20)
            for _ in range(GIB // len(block)):
                out.write(block)
            out.write(end)
    assert path.stat().st_size < 8 << 20
    return path, member


def import_zip(client, project, content: bytes, name: str = "beir.zip"):
    return client.post(
        f"/api/v1/projects/{project.pk}/goldsets/import/",
        {"format": "beir", "file": SimpleUploadedFile(name, content)},
        format="multipart",
    )


def refusal(response) -> str:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    assert not GoldenSetVersion.objects.exists()
    return response.json()["file"][0]


def test_the_hostile_zip_is_refused_from_its_directory(hostile, personas, api_client_for):
    path, member = hostile
    message = refusal(import_zip(api_client_for(personas.alice), personas.project,
                                 path.read_bytes(), "hostile.zip"))  # fmt: skip
    first, start, end = HOSTILE[member]
    size = len(first) + len(start) + GIB + len(end)
    assert re.search(
        rf"beir/{member}:1: unpacks to {size:,} bytes from [\d,]+ \(\d+ times its size\); "
        r"at most 100 times \(GOLDSMITH_UPLOAD_MAX_ZIP_RATIO\)$",
        message,
    ), message


CHILD = """
import json, os, resource, sys
import django
django.setup()
from annotation.services.goldsets import goldset_load
from pathlib import Path
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    goldset_load(fmt="beir", path=Path(sys.argv[1]))
    error = None
except ValueError as e:
    error = str(e)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"error": error, "before_kib": before, "after_kib": after}))
"""


def test_reading_it_line_by_line_holds_one_bounded_line(hostile):
    """With the directory checks opened wide, the reader streams into the 1 GiB line and stops
    at GOLDSMITH_UPLOAD_MAX_LINE_BYTES (16 MiB): the process's peak memory grows by a few tens
    of MB (2.2 GB before), measured by getrusage in a fresh process."""
    path, member = hostile
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        GOLDSMITH_UPLOAD_MAX_ZIP_RATIO="1000000",
        GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES=str(4 * GIB),
    )
    env.pop("GOLDSMITH_UPLOAD_MAX_LINE_BYTES", None)
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["error"] == (
        f"{path}:{member}:2: the line is longer than 16,777,216 bytes "
        "(GOLDSMITH_UPLOAD_MAX_LINE_BYTES)"
    )
    growth_mib = (out["after_kib"] - out["before_kib"]) / 1024
    assert growth_mib < 80, f"peak RSS grew by {growth_mib:.0f} MiB"


def beir_zip(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about a duplicate name: that is the test
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name, content in members:
                zf.writestr(name, content)
    return buffer.getvalue()


GOOD = [("beir/queries.jsonl", QUERIES), ("beir/corpus.jsonl", CORPUS),
        ("beir/qrels/test.tsv", QRELS)]  # fmt: skip


def central_entry_patched(data: bytes, name: str, offset: int, fmt: str, value: int) -> bytes:
    """`data` with a field of `name`'s central-directory entry set to `value`."""
    at = data.rfind(name.encode(), 0, data.rfind(b"PK\x05\x06")) - 46
    assert data[at : at + 4] == b"PK\x01\x02"
    return (
        data[: at + offset] + struct.pack(fmt, value) + data[at + offset + struct.calcsize(fmt) :]
    )


def test_a_sound_zip_still_imports(personas, api_client_for):
    response = import_zip(api_client_for(personas.alice), personas.project, beir_zip(GOOD))
    assert response.status_code == 201, response.content
    assert response.json()["query_count"] == 2


def test_a_line_over_the_limit_is_named_with_its_member_and_number(
    personas, api_client_for, settings
):
    settings.GOLDSMITH_UPLOAD_MAX_LINE_BYTES = 64
    long = b'{"_id": "c3", "text": "' + b"x" * 64 + b'"}'
    corpus = CORPUS + long + b"\n"
    zipped = beir_zip([*GOOD[:1], ("beir/corpus.jsonl", corpus), GOOD[2]])
    message = refusal(import_zip(api_client_for(personas.alice), personas.project, zipped))
    assert message.endswith(
        "corpus.jsonl:3: the line is longer than 64 bytes (GOLDSMITH_UPLOAD_MAX_LINE_BYTES)"
    )
    settings.GOLDSMITH_UPLOAD_MAX_LINE_BYTES = len(long)  # the newline is not counted
    response = import_zip(api_client_for(personas.alice), personas.project, zipped)
    assert response.status_code == 201, response.content


def test_a_zip_declaring_too_much_is_refused_before_unpacking(personas, api_client_for, settings):
    """The zip itself is within the limit (its text compresses well); what its members declare
    is not, and that is refused from the directory, before anything is unpacked."""
    padding = b"".join(
        b'{"_id": "p%d", "text": "%s"}\n' % (i, b"same words " * 40) for i in range(50)
    )
    members = [GOOD[0], ("beir/corpus.jsonl", CORPUS + padding), GOOD[2]]
    zipped = beir_zip(members)
    total = sum(len(content) for _, content in members)
    limit = len(zipped) + 100
    assert limit < total
    settings.GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES = limit
    message = refusal(import_zip(api_client_for(personas.alice), personas.project, zipped))
    assert message.endswith(
        f"the zip unpacks to {total:,} bytes or more; at most {limit:,} "
        "(GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES)"
    )


def test_an_upload_larger_than_the_limit_is_refused_as_it_streams(
    personas, api_client_for, settings
):
    settings.GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES = 100
    message = refusal(import_zip(api_client_for(personas.alice), personas.project, beir_zip(GOOD)))
    assert message == (
        "beir.zip: the file is larger than 100 bytes (GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES)"
    )


def overlapping() -> bytes:
    """Two members whose directory entries point at the same compressed bytes."""
    data = beir_zip([*GOOD, ("beir/qrels/dev.tsv", QRELS)])
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        offset = zf.getinfo("beir/qrels/test.tsv").header_offset
    return central_entry_patched(data, "beir/qrels/dev.tsv", 42, "<I", offset)


def damaged() -> bytes:
    """A stored (uncompressed) member with one byte changed: its CRC no longer matches."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, content in GOOD:
            zf.writestr(name, content, compress_type=zipfile.ZIP_STORED)
    data = buffer.getvalue()
    assert data.count(b'"text": "a"') == 1
    return data.replace(b'"text": "a"', b'"text": "z"')


REFUSED = {
    "a member twice": (
        lambda: beir_zip([*GOOD, ("beir/qrels/test.tsv", QRELS)]),
        "beir/qrels/test.tsv:1: the zip holds this member 2 times",
    ),
    "an archive inside": (
        lambda: beir_zip([*GOOD, ("beir/more.zip", beir_zip(GOOD))]),
        "beir/more.zip:1: an archive inside the zip: put its files in the zip itself",
    ),
    "two BEIR sets": (
        lambda: beir_zip([*GOOD, ("other/queries.jsonl", QUERIES)]),
        "other/queries.jsonl:1: a second queries.jsonl (after 'beir/queries.jsonl'): "
        "one BEIR set per zip",
    ),
    "overlapping members": (
        overlapping,
        "beir/qrels/dev.tsv:1: the member overlaps 'beir/qrels/test.tsv' (one block read twice)",
    ),
    "an encrypted member": (
        lambda: central_entry_patched(beir_zip(GOOD), "beir/corpus.jsonl", 8, "<H", 1),
        "beir/corpus.jsonl:1: the member is encrypted",
    ),
    "an unreadable method": (
        lambda: central_entry_patched(beir_zip(GOOD), "beir/corpus.jsonl", 10, "<H", 93),
        "beir/corpus.jsonl:1: compression method 93 cannot be read (use deflate)",
    ),
    "a damaged member": (
        damaged,
        "corpus.jsonl:1: the zip is damaged: Bad CRC-32 for file 'beir/corpus.jsonl'",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED), ids=list(REFUSED))
def test_a_zip_with_absurd_members_is_refused_naming_the_member(case, personas, api_client_for):
    build, reason = REFUSED[case]
    message = refusal(import_zip(api_client_for(personas.alice), personas.project, build()))
    assert message.endswith(reason), message
