from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from annotation.models.accounts import acting_user
from annotation.wording import with_article


class Role(models.TextChoices):
    LEAD = "lead", gettext_lazy("Lead")
    ANNOTATOR = "annotator", gettext_lazy("Annotator")
    VIEWER = "viewer", gettext_lazy("Viewer")


class TieRule(models.TextChoices):
    """What a one-grade tie gets in a query that is not otherwise flagged (the values of
    `goldsmith.agreement.TIE_RULES`; docs/design.md "Agreement conventions")."""

    LOWER = "lower", gettext_lazy("Lower grade (tie → lower)")
    HIGHER = "higher", gettext_lazy("Higher grade (tie → higher)")
    LEAD = "lead", gettext_lazy("A lead decides")


class KappaWeights(models.TextChoices):
    """Which kappa the flag rule compares with the threshold (the values of
    `goldsmith.agreement.KAPPA_WEIGHTS`; docs/design.md "Which kappa flags a query")."""

    UNWEIGHTED = "unweighted", gettext_lazy("Cohen's kappa, every disagreement alike")
    LINEAR = "linear", gettext_lazy("Linearly weighted kappa, one grade apart counts half")
    AC1 = (
        "ac1",
        gettext_lazy(
            "Gwet's AC1, which stays high when people agree that most chunks are not relevant"
        ),
    )
    AC2_LINEAR = (
        "ac2_linear",
        gettext_lazy("Gwet's AC2 with linear weights: AC1 where one grade apart counts half"),
    )


class Tokenizer(models.TextChoices):
    """How the project's texts are cut into words (`goldsmith.intake.tokenizers`)."""

    DEFAULT = "default", gettext_lazy("Words between spaces (English and most languages)")
    ZH_WORDS = "zh-words", gettext_lazy("Chinese words (jieba)")
    ZH_BIGRAMS = "zh-bigrams", gettext_lazy("Chinese character pairs")


class TokenizerOrigin(models.TextChoices):
    """Who chose the tokenizer: nobody yet (the first import detects it), the first import,
    or a lead (then imports never change it)."""

    DEFAULT = "default", gettext_lazy("Not chosen yet")
    DETECTED = "detected", gettext_lazy("Detected on import")
    LEAD = "lead", gettext_lazy("Chosen by a lead")


class Project(models.Model):
    """A golden-set project: its corpus, queries, annotators and versions."""

    name = models.CharField(max_length=120, unique=True)
    description = models.TextField(blank=True)
    annotators_per_query = models.PositiveSmallIntegerField(default=2)
    kappa_threshold = models.FloatField(default=0.6)
    # Annotators may finish a query once the stop estimate says 95 % of its relevant candidates
    # are found (goldsmith.judging_order); off until the judging-effort benchmark holds.
    stopping_allowed = models.BooleanField(default=False)
    tie_rule = models.CharField(max_length=8, choices=TieRule.choices, default=TieRule.LOWER)
    kappa_weights = models.CharField(
        max_length=12, choices=KappaWeights.choices, default=KappaWeights.UNWEIGHTED
    )
    # A flagged query first goes to one more annotator (docs/design.md "Escalation").
    escalate = models.BooleanField(default=False)
    # Annotators write reference answers and key facts after grading (AnswerDraft); a lead
    # merges them into the query's answer key. Off: only a lead sets answer keys.
    annotators_write_answers = models.BooleanField(default=False)
    tokenizer = models.CharField(
        max_length=16, choices=Tokenizer.choices, default=Tokenizer.DEFAULT
    )
    tokenizer_origin = models.CharField(
        max_length=16, choices=TokenizerOrigin.choices, default=TokenizerOrigin.DEFAULT
    )
    # Salt for hashing user/session ids from query logs; never shown or exported.
    hash_salt = models.CharField(max_length=64, default=secrets.token_hex, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # Archived: out of the project lists and the navigation, everything kept; a lead restores
    # it (annotation.services.projects.project_archive / project_restore).
    archived_at = models.DateTimeField(null=True, blank=True)
    archived_by = acting_user()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    @property
    def search_kind(self) -> str:
        """The corpus search index this project's tokenizer calls for: "english" (PostgreSQL's
        English words) or "chinese" (character bigrams; `annotation.services.search`)."""
        return "english" if self.tokenizer == Tokenizer.DEFAULT else "chinese"


class Membership(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "user"], name="membership_unique_user")
        ]
        ordering = ["project", "role", "user__username"]

    def __str__(self) -> str:
        return f"{self.user} is {with_article(self.role)} of {self.project}"


def token_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ApiToken(models.Model):
    """A token for CI clients. Only its sha256 is stored; the key is shown once at creation."""

    PREFIX_LENGTH = 8

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=PREFIX_LENGTH, editable=False)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Refused from this moment on; no expiry when empty.
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and not self.has_expired

    @property
    def has_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()
