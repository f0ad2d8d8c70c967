"""Forms of the evaluation app's pages: they parse what a person typed (headers, cut-offs,
drop rules, top-K weights) into the values the services take."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django import forms
from django.utils.text import capfirst, format_lazy
from django.utils.translation import gettext, gettext_lazy

from annotation.models import MachineJudgeKind
from evaluation.models import Answerer, Matching, RetrieverKind, Schedule
from evaluation.selectors.answer_judges import answer_judges_of
from evaluation.selectors.goldsets import versions_of
from goldsmith import bands, metrics
from goldsmith.answers.judge import AnswerJudgeConfig
from goldsmith.judges import JUDGE_SETTINGS, HttpJudgeConfig
from goldsmith.retrievers.http import HTTP_SETTINGS, HttpSetting
from sitewide.i18n import engine_word, localize


def share(label: Any, help_text: Any = "", *, initial: float | None = None) -> forms.FloatField:
    """The field of a setting that is a share, between 0 and 1: optional (empty: a default
    the help text names) unless it has an `initial`."""
    return forms.FloatField(
        required=initial is not None,
        min_value=0,
        max_value=1,
        initial=initial,
        label=label,
        help_text=help_text,
    )


class HeaderLinesField(forms.CharField):
    """Headers as the page shows them: one per line, ``Name: value``."""

    widget = forms.Textarea(attrs={"rows": 2})

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, dict):
            return "\n".join(f"{name}: {text}" for name, text in value.items())
        return value

    def to_python(self, value: Any) -> dict[str, str]:
        headers: dict[str, str] = {}
        for line in str(value or "").splitlines():
            if not line.strip():
                continue
            name, colon, text = line.partition(":")
            if not colon or not name.strip():
                raise forms.ValidationError(
                    gettext("write each header as Name: value, not %(line)r") % {"line": line}
                )
            headers[name.strip()] = text.strip()
        return headers


def given(form: forms.Form, names: Sequence[str]) -> dict[str, Any]:
    """The settings among `names` a judge's form was given (an empty one is left out: the
    engine's default)."""
    return {n: form.cleaned_data[n] for n in names if form.cleaned_data.get(n) not in (None, "")}


def refuse(form: forms.Form, error: Exception) -> None:
    """Put a refusal on the form: an endpoint's (`EndpointInvalid`) on the field it names
    when the form has it (``config.url`` is the form's ``url``), anything else above."""
    field = str(getattr(error, "field", "")).rpartition(".")[2]
    form.add_error(field if field in form.fields else None, localize(error))


def setting_field(setting: HttpSetting, **given: Any) -> forms.Field:
    """The form field of one call setting (bounds, choices and default from the engine's
    list; `given` overrides, e.g. a label in the reader's language). None is required here:
    a form serves every kind, and the service says what an endpoint lacks."""
    common: dict[str, Any] = {
        "label": capfirst(engine_word(setting.label)),
        "help_text": engine_word(setting.help),
        "required": False,
        "initial": setting.default,
        **given,
    }
    if setting.choices:
        return forms.ChoiceField(choices=[(c, engine_word(c)) for c in setting.choices], **common)
    if setting.value_type in (int, float):
        number = forms.IntegerField if setting.value_type is int else forms.FloatField
        return number(min_value=setting.minimum, max_value=setting.maximum, **common)
    if setting.value_type is dict:
        return HeaderLinesField(**common)
    widget = forms.Textarea(attrs={"rows": 2}) if setting.lines else None
    return forms.CharField(widget=widget, **common)


class RetrieverForm(forms.Form):
    """A retriever's fields; the HTTP ones are made from `HTTP_SETTINGS`."""

    name = forms.CharField(max_length=120, label=gettext_lazy("Name"))
    kind = forms.ChoiceField(choices=RetrieverKind.choices, label=gettext_lazy("Kind of retriever"))
    auth_header_name = forms.CharField(
        required=False,
        label=gettext_lazy("Auth header name"),
        help_text=gettext_lazy("e.g. Authorization"),
    )
    auth_header_value = forms.CharField(
        required=False,
        label=gettext_lazy("Auth header value"),
        widget=forms.PasswordInput(render_value=False),
        help_text=gettext_lazy(
            "Stored encrypted, never shown again. Leave empty to keep the stored one."
        ),
    )
    auth_header_env = forms.CharField(
        required=False,
        label=gettext_lazy("Auth header from the workers' environment"),
        help_text=gettext_lazy(
            "…or the name of an environment variable on the workers: GOLDSMITH_SECRET_… "
            "or one listed in GOLDSMITH_RETRIEVER_SECRET_ENV"
        ),
    )
    schedule = forms.ChoiceField(
        choices=Schedule.choices, required=False, label=gettext_lazy("Schedule")
    )
    answerer = forms.ChoiceField(
        choices=Answerer.choices,
        required=False,
        label=gettext_lazy("Answers"),
        help_text=gettext_lazy(
            "Who answers a query the retriever gives no response for; the extractive "
            "baseline picks the best-matching sentence of the top chunks"
        ),
    )
    run_file = forms.FileField(
        required=False,
        label=gettext_lazy("Run file"),
        help_text=gettext_lazy("TREC or JSONL run (kind: run file)"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for setting in HTTP_SETTINGS:
            self.fields[setting.name] = setting_field(setting)

    def http_fields(self) -> list[forms.BoundField]:
        return [self[s.name] for s in HTTP_SETTINGS]

    def http_config(self) -> dict[str, Any]:
        """The HTTP settings given. An empty number or choice is left out (its default when
        adding, the stored value when editing); an empty text is a value ('' is the top level
        of a response, or no score field)."""
        config: dict[str, Any] = {}
        for setting in HTTP_SETTINGS:
            value = self.cleaned_data[setting.name]
            if value is not None and (value != "" or not setting.choices):
                config[setting.name] = value
        return config


class RunForm(forms.Form):
    version = forms.ModelChoiceField(
        queryset=None, empty_label=None, label=gettext_lazy("Golden-set version")
    )
    ks = forms.CharField(
        initial="5 10", label=gettext_lazy("Cut-offs K"), help_text=gettext_lazy("e.g. 5 10 20")
    )
    relevance_threshold = forms.TypedChoiceField(
        choices=[(2, gettext_lazy("2 — strict")), (1, gettext_lazy("1 — lenient"))],
        coerce=int,
        initial=2,
        label=gettext_lazy("Relevant from grade"),
    )
    gain = forms.ChoiceField(
        choices=[("linear", gettext_lazy("linear")), ("exp", gettext_lazy("exponential"))],
        label=gettext_lazy("nDCG gain"),
    )
    matching = forms.ChoiceField(choices=Matching.choices, label=gettext_lazy("Matching"))
    pass_threshold = share(gettext_lazy("Pass threshold"))
    machine_grades = forms.BooleanField(
        required=False,
        initial=True,
        label=gettext_lazy("Count machine grades"),
        help_text=gettext_lazy(
            "grades a machine judge filled where no person graded; unticked, those "
            "chunks count as unjudged"
        ),
    )

    answer_judge = forms.ModelChoiceField(
        queryset=None,
        required=False,
        label=gettext_lazy("Answer judge"),
        empty_label=gettext_lazy("None: the rules score every answer"),
        help_text=gettext_lazy("scores the open answers' correctness when the run finishes"),
    )

    def __init__(self, *args: Any, project: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["version"].queryset = versions_of(project=project)  # type: ignore[attr-defined]  # a ModelChoiceField's queryset, which Field does not declare
        self.fields["answer_judge"].queryset = answer_judges_of(project=project)  # type: ignore[attr-defined]  # as above

    def clean_ks(self) -> list[int]:
        try:
            values = [int(x) for x in self.cleaned_data["ks"].replace(",", " ").split()]
        except ValueError:
            raise forms.ValidationError(gettext("cut-offs are whole numbers, e.g. 5 10")) from None
        if not values:
            raise forms.ValidationError(gettext("give at least one cut-off"))
        return values


_BELOW_FLOOR = gettext_lazy("Below it the verdict is fail and the alarm fires. Empty: the preset's")


class SettingsForm(forms.Form):
    preset = forms.ChoiceField(
        choices=[(p.key, engine_word(p.label)) for p in bands.PRESETS.values()],
        label=gettext_lazy("Preset"),
    )
    pass_threshold = share(gettext_lazy("Pass threshold"), gettext_lazy("Empty: the preset's"))
    min_recall = share(
        gettext_lazy("Recall target"),
        gettext_lazy("Mean Recall@K for a pass verdict. Empty: the preset's"),
    )
    recall_floor = share(gettext_lazy("Recall floor"), _BELOW_FLOOR)
    min_pass_rate = share(
        gettext_lazy("Pass-rate target"),
        gettext_lazy("Share of passing queries for a pass verdict. Empty: the preset's"),
    )
    pass_rate_floor = share(gettext_lazy("Pass-rate floor"), _BELOW_FLOOR)
    headline_k = forms.IntegerField(
        min_value=1,
        max_value=1000,
        initial=5,
        label=gettext_lazy("Headline K"),
        help_text=gettext_lazy(
            "The K of verdicts, baselines and drift (new runs always measure it)"
        ),
    )
    max_recall_drop = share(gettext_lazy("Max recall drop"))
    max_pass_rate_drop = share(gettext_lazy("Max pass-rate drop"))
    webhook_url = forms.URLField(
        required=False, max_length=500, assume_scheme="https", label=gettext_lazy("Webhook URL")
    )
    band_overrides = forms.CharField(
        required=False,
        label=gettext_lazy("Band overrides"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy('JSON, e.g. {"recall": {"good": 0.85, "fair": 0.7}}'),
    )
    topk_scenario = forms.ChoiceField(
        required=False,
        label=gettext_lazy("Top-K scenario"),
        choices=[
            ("", engine_word(metrics.TOPK_SCENARIOS[metrics.DEFAULT_TOPK_SCENARIO].label)),
            *(
                (s.key, engine_word(s.label))
                for s in metrics.TOPK_SCENARIOS.values()
                if s.key != metrics.DEFAULT_TOPK_SCENARIO
            ),
        ],
        help_text=gettext_lazy("The weights of the top-K choice on the run page"),
    )
    topk_weights = forms.CharField(
        required=False,
        label=gettext_lazy("Top-K weight edits"),
        # lazily, in the reader's language (a gettext here would run once, at import)
        help_text=format_lazy(
            gettext_lazy(
                "Laid over the scenario's, e.g. mrr=0.5, recall=0.2 (0 drops a metric; metrics: "
                "{names}). Empty: the scenario's"
            ),
            names=", ".join(metrics.TOPK_FAMILIES),
        ),
    )
    low_recall_cutoff = share(
        gettext_lazy("Low-recall cut-off"),
        gettext_lazy(
            "Runs list the queries whose Recall@K is below it, for diagnosis (apart from "
            "the pass threshold); applies to runs that finish after the change"
        ),
        initial=0.2,
    )

    quadrant_recall_threshold = share(
        gettext_lazy("Quadrants: context recall threshold"),
        gettext_lazy(
            "Context recall at or above it counts as high in the answer diagnosis. Empty: the "
            "run's pass threshold"
        ),
    )
    quadrant_correctness_threshold = share(
        gettext_lazy("Quadrants: answer correctness threshold"),
        gettext_lazy(
            "Answer correctness at or above it counts as high. Empty: the run's pass threshold"
        ),
    )
    max_answer_drop = forms.CharField(
        required=False,
        label=gettext_lazy("Largest answer drops"),
        help_text=gettext_lazy(
            "Drift rules on answer metrics against the baseline, e.g. answer_correctness=0.05, "
            "context_recall@5=0.1. Empty: none"
        ),
    )

    def clean_max_answer_drop(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for part in (self.cleaned_data["max_answer_drop"] or "").split(","):
            if not part.strip():
                continue
            name, _, value = part.partition("=")
            try:
                out[name.strip()] = float(value)
            except ValueError:  # no "=" too: float("") refuses it
                raise forms.ValidationError(
                    gettext("write each rule as metric=drop, not %(part)r") % {"part": part.strip()}
                ) from None
        return out

    def clean_topk_weights(self) -> dict[str, float]:
        try:
            return metrics.parse_topk_weights(self.cleaned_data["topk_weights"] or "")
        except ValueError as error:
            raise forms.ValidationError(localize(error)) from None

    def clean_band_overrides(self) -> dict[str, Any]:
        raw = self.cleaned_data["band_overrides"].strip()
        if not raw:
            return {}
        try:
            value = json.loads(raw)
        except ValueError as error:
            raise forms.ValidationError(gettext("not JSON: %(error)s") % {"error": error}) from None
        if not isinstance(value, dict):
            raise forms.ValidationError(gettext("a JSON object of metric → {good, fair}"))
        return value


JUDGE_DEFAULTS = HttpJudgeConfig(url="")


class JudgeForm(forms.Form):
    name = forms.CharField(max_length=120, label=gettext_lazy("Name"))
    kind = forms.ChoiceField(
        choices=MachineJudgeKind.choices,
        initial=MachineJudgeKind.KEYWORD,
        label=gettext_lazy("Kind of judge"),
    )
    url = forms.CharField(
        required=False,
        label=gettext_lazy("URL (HTTP judges)"),
        help_text=gettext_lazy("receives one chunk per request"),
    )
    body_template = forms.CharField(
        required=False,
        initial=JUDGE_DEFAULTS.body_template,
        widget=forms.Textarea(attrs={"rows": 2}),
        label=gettext_lazy("Body template"),
        help_text=gettext_lazy(
            "JSON whose strings may hold {query}, {query_id}, {chunk}, {chunk_id}"
        ),
    )
    grade_path = forms.CharField(
        required=False, initial=JUDGE_DEFAULTS.grade_path, label=gettext_lazy("Grade path")
    )
    reason_path = forms.CharField(
        required=False, initial=JUDGE_DEFAULTS.reason_path, label=gettext_lazy("Reason path")
    )
    batch_size = setting_field(
        JUDGE_SETTINGS["batch_size"], help_text=gettext_lazy("chunks judged and saved together")
    )
    max_concurrency = setting_field(
        JUDGE_SETTINGS["max_concurrency"], help_text=gettext_lazy("requests at once")
    )
    auth_header_name = forms.CharField(required=False, label=gettext_lazy("Auth header name"))
    auth_header_value = forms.CharField(
        required=False,
        label=gettext_lazy("Auth header value"),
        widget=forms.PasswordInput(render_value=False),
        help_text=gettext_lazy("stored encrypted, never shown again"),
    )

    def http_config(self) -> dict[str, Any]:
        names = ("body_template", "grade_path", "reason_path", "batch_size", "max_concurrency")
        return {"url": self.cleaned_data["url"].strip(), **given(self, names)}


ANSWER_JUDGE_DEFAULTS = AnswerJudgeConfig(url="")


class AnswerJudgeForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        label=gettext_lazy("Name"),
        help_text=gettext_lazy("one word; reports say which numbers this judge gave by it"),
    )
    url = forms.CharField(
        max_length=2000,
        label=gettext_lazy("URL"),
        help_text=gettext_lazy("receives one answer per request"),
    )
    model = forms.CharField(
        required=False,
        max_length=200,
        label=gettext_lazy("Model"),
        help_text=gettext_lazy("the model the judge uses, as you configured it"),
    )
    prompt_version = forms.CharField(
        required=False, max_length=200, label=gettext_lazy("Prompt version")
    )
    temperature = forms.FloatField(
        required=False,
        min_value=0,
        label=gettext_lazy("Temperature"),
        help_text=gettext_lazy(
            "the name, model, prompt version and temperature are kept with every run the judge "
            "scores, so that two runs are compared only under the same judge"
        ),
    )
    body_template = forms.CharField(
        required=False,
        initial=ANSWER_JUDGE_DEFAULTS.body_template,
        label=gettext_lazy("Request body"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy(
            "JSON whose strings may hold {query}, {reference_answer}, {facts}, {response}, "
            "{model}, {prompt_version}, {temperature}; {response} is required"
        ),
    )
    score_path = forms.CharField(
        required=False,
        initial=ANSWER_JUDGE_DEFAULTS.score_path,
        label=gettext_lazy("Score path"),
        help_text=gettext_lazy("where the answer holds the score, from 0 to 1"),
    )
    reason_path = forms.CharField(
        required=False, initial=ANSWER_JUDGE_DEFAULTS.reason_path, label=gettext_lazy("Reason path")
    )
    timeout = setting_field(
        JUDGE_SETTINGS["timeout"], label=gettext_lazy("Timeout"), help_text=gettext_lazy("seconds")
    )
    max_concurrency = setting_field(
        JUDGE_SETTINGS["max_concurrency"], label=gettext_lazy("Requests at once"), help_text=""
    )
    retries = setting_field(
        JUDGE_SETTINGS["retries"],
        label=gettext_lazy("Retries"),
        help_text=gettext_lazy("after a timeout, HTTP 429 or a server error"),
    )
    auth_header_name = forms.CharField(required=False, label=gettext_lazy("Auth header name"))
    auth_header_value = forms.CharField(
        required=False,
        label=gettext_lazy("Auth header value"),
        widget=forms.PasswordInput(render_value=False),
        help_text=gettext_lazy("stored encrypted, never shown again"),
    )

    def call_settings(self) -> dict[str, Any]:
        names = ("body_template", "score_path", "reason_path", "timeout", "max_concurrency")
        return given(self, (*names, "retries"))
