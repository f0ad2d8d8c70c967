"""Words for the codes annotation's pages show: a page never shows a stored code (a sampling
strategy, an allocation, a field name) where a reader expects a word. One table per kind, read
by the forms' choices and by the templates (`annotation_tags.sampling_word`)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from goldsmith.intake import sampling

STRATEGY_WORDS = {
    sampling.UNIFORM: gettext_lazy("uniform"),
    sampling.STRATIFIED: gettext_lazy("stratified"),
    sampling.FREQUENCY: gettext_lazy("frequency"),
    sampling.CLUSTER: gettext_lazy("cluster"),
    sampling.FEEDBACK: gettext_lazy("feedback"),
}
ALLOCATION_WORDS = {
    sampling.PROPORTIONAL: gettext_lazy("proportional"),
    sampling.EQUAL: gettext_lazy("equal"),
}
# What a stratified sample may be stratified by (annotation.services.sampling.BY_FIELDS), and
# the strata the frequency and feedback strategies make.
FIELD_WORDS = {
    "category": gettext_lazy("category"),
    "band": gettext_lazy("frequency band"),
    "cluster": gettext_lazy("intent cluster"),
    "feedback": gettext_lazy("feedback"),
    "head": gettext_lazy("head"),
    "torso": gettext_lazy("torso"),
    "tail": gettext_lazy("tail"),
    "negative": gettext_lazy("negative feedback"),
    "other": gettext_lazy("other"),
    "all": gettext_lazy("all"),
}
_SAMPLING_WORDS = {**FIELD_WORDS, **STRATEGY_WORDS, **ALLOCATION_WORDS}


def sampling_word(code: str) -> str:
    """The word for a sampling code; a code without one (a category a log names) as it is."""
    return _SAMPLING_WORDS.get(code, code)
