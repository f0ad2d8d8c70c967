"""Annotation models, one module per part of the human process."""

from .corpus import Chunk, ChunkSearch, CorpusImport, Document, ImportStatus, SearchBacklog
from .goldsets import FrozenVersionError, GoldenItem, GoldenJudgment, GoldenSetVersion
from .health import WorkerPing
from .judging import (
    Assignment,
    Candidate,
    CandidateSource,
    Guideline,
    Judgment,
    PoolSource,
    QueryAgreement,
    QueryAnnotation,
    QueryReview,
    Resolution,
)
from .projects import ApiToken, Membership, Project, Role
from .queries import Query
from .querylogs import LogQuery, QueryLog, ScrubPattern
from .sampling import Sample

__all__ = [
    "ApiToken",
    "Assignment",
    "Candidate",
    "CandidateSource",
    "Chunk",
    "ChunkSearch",
    "CorpusImport",
    "Document",
    "FrozenVersionError",
    "GoldenItem",
    "GoldenJudgment",
    "GoldenSetVersion",
    "Guideline",
    "ImportStatus",
    "Judgment",
    "LogQuery",
    "Membership",
    "PoolSource",
    "Project",
    "Query",
    "QueryAgreement",
    "QueryAnnotation",
    "QueryLog",
    "QueryReview",
    "Resolution",
    "Role",
    "Sample",
    "ScrubPattern",
    "SearchBacklog",
    "WorkerPing",
]
