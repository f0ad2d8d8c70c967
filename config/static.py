"""Static files as in production, also for `make run` (which keeps DEBUG on)."""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class CollectedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed manifest storage, linking the hashed names even under DEBUG.

    Django links the plain names when DEBUG is on, so that an edited file shows without a new
    collect; `manage.py serve` collects at start, so its pages can link the hashed names, which
    WhiteNoise lets browsers cache for good, as in production."""

    def url(self, name: str | None, force: bool = False) -> str:
        return super().url(name, force=True)
