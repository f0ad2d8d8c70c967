"""Template filters of annotation's pages: the words for codes a page shows."""

from __future__ import annotations

from django import template

from annotation.views.words import sampling_word as _sampling_word

register = template.Library()


@register.filter
def sampling_word(code: str) -> str:
    """A sampling strategy, allocation, stratification field or stratum in the reader's words."""
    return str(_sampling_word(code))
