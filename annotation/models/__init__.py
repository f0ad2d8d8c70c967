"""Annotation models, one module per part of the human process."""

from .corpus import Chunk, Document
from .health import WorkerPing
from .projects import ApiToken, Membership, Project, Role
from .queries import Query

__all__ = ["ApiToken", "Chunk", "Document", "Membership", "Project", "Query", "Role", "WorkerPing"]
