"""Annotation models, one module per part of the human process."""

from annotation.models.accounts import UserLanguage
from annotation.models.answers import AnswerDraft
from annotation.models.corpus import (
    ChangeKind,
    Chunk,
    ChunkSearch,
    CorpusChange,
    CorpusImport,
    CorpusVersion,
    CorpusVersionOrigin,
    Document,
    FileKind,
    SearchBacklog,
)
from annotation.models.goldsets import (
    FrozenVersionError,
    GoldenItem,
    GoldenJudgment,
    GoldenSetVersion,
)
from annotation.models.health import WorkerPing
from annotation.models.imports import ImportJob, ImportStatus
from annotation.models.judging import (
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
    VisitTime,
)
from annotation.models.machine import MachineGrade, MachineJudge, MachineJudgeKind
from annotation.models.pool_builds import PoolBuild
from annotation.models.projects import (
    ApiToken,
    KappaWeights,
    Membership,
    Project,
    Role,
    TieRule,
    Tokenizer,
    TokenizerOrigin,
)
from annotation.models.queries import Query
from annotation.models.querylogs import LogQuery, QueryLog, ScrubPattern
from annotation.models.refresh import (
    GoldenSetRefresh,
    RefreshCandidate,
    RefreshQuery,
    RefreshState,
)
from annotation.models.sampling import Sample
from annotation.models.stopping import JudgingStop, PoolDeepening, StoppedCandidate

__all__ = [
    "AnswerDraft",
    "ApiToken",
    "Assignment",
    "Candidate",
    "CandidateSource",
    "ChangeKind",
    "Chunk",
    "ChunkSearch",
    "CorpusChange",
    "CorpusImport",
    "CorpusVersion",
    "CorpusVersionOrigin",
    "Document",
    "FileKind",
    "FrozenVersionError",
    "GoldenItem",
    "GoldenJudgment",
    "GoldenSetRefresh",
    "GoldenSetVersion",
    "Guideline",
    "ImportJob",
    "ImportStatus",
    "JudgingStop",
    "Judgment",
    "KappaWeights",
    "LogQuery",
    "MachineGrade",
    "MachineJudge",
    "MachineJudgeKind",
    "Membership",
    "PoolBuild",
    "PoolDeepening",
    "PoolSource",
    "Project",
    "Query",
    "QueryAgreement",
    "QueryAnnotation",
    "QueryLog",
    "QueryReview",
    "RefreshCandidate",
    "RefreshQuery",
    "RefreshState",
    "Resolution",
    "Role",
    "Sample",
    "ScrubPattern",
    "SearchBacklog",
    "StoppedCandidate",
    "TieRule",
    "Tokenizer",
    "TokenizerOrigin",
    "UserLanguage",
    "VisitTime",
    "WorkerPing",
]
