"""The Cranfield collection imports as BEIR-style data with the grade mapping its PROVENANCE.md
recommends (1,2 → 2; 3,4 → 1; -1 → dropped): 225 queries and 1,612 graded pairs."""

from __future__ import annotations

from annotation.models import Chunk, GoldenJudgment, GoldenSetVersion
from goldsmith.formats.beir import cranfield_to_beir
from tests.conftest import require_shared_data


def test_cranfield_gives_225_queries_and_1612_graded_pairs(personas, tmp_path, run_command):
    raw = require_shared_data("cranfield")
    counts = cranfield_to_beir(raw, tmp_path / "cranfield")
    assert counts == {"documents": 1400, "queries": 225, "qrels": 1837}

    out = run_command(
        "import_goldset",
        "--project",
        "Acme Support",
        "--format",
        "beir",
        tmp_path / "cranfield",
        "--label",
        "cranfield",
        "--grade-map",
        "1:2,2:2,3:1,4:1,-1:drop",
    )

    version = GoldenSetVersion.objects.get(project=personas.project, label="cranfield")
    assert (version.query_count, version.judgment_count) == (225, 1612)
    # The hash the former ways of hashing gave (see
    # tests/engine/test_frozen_versions_keep_their_content_hash.py): stored versions still verify.
    assert version.content_hash == (
        "sha256:aad2a44b36221da1b2b3a3630d94c603465ab8a272e465253a1d621508800105"
    )
    assert "imported cranfield: 225 queries, 1612 judgments" in out
    # 128 + 387 raw grades 1 and 2 are relevant; 734 + 363 grades 3 and 4 partially relevant.
    assert version.counts["grades"] == {"0": 0, "1": 1097, "2": 515}
    # qrels qid 3 is the third query of cran.qry (.I 004), not .I 3.
    third = version.items.get(query_id="3")
    assert third.text.startswith("what problems of heat conduction in composite slabs")
    # Doc 995 is empty yet judged (grade 3 → 1) for qid 125; it comes with its corpus row.
    assert (
        GoldenJudgment.objects.get(
            item__version=version, item__query_id="125", chunk_id="995"
        ).grade
        == 1
    )
    assert Chunk.objects.filter(project=personas.project).count() == 1400
