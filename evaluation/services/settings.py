"""The project's evaluation settings in one place: targets and floors, the pass threshold,
drop limits, the headline K, the top-K weights, the low-recall cut-off, the quadrant thresholds
and the answer drop rules, and a run's settings as its report reads them.

`project_settings` reads a project's row once into a typed `ProjectSettings` (a page, a report
or a finishing run asks for it once and passes it on); `evaluation_settings_update` is the one
write, refusing a value that cannot be used with `SettingsInvalid`. `run_settings` is the one
rule for a run's K, thresholds and headline K (`reporting.RunSettings.headline_k`: the one the
run took at creation, else 10 when measured, else its largest K), so that the verdict, the
quadrants, the answer section and the extractive answerer read the same K."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext

from annotation.models import Project
from evaluation.models import EvaluationRun, EvaluationSettings
from evaluation.services.endpoints import EndpointInvalid, refused_as, url_check
from goldsmith import bands, metrics, reporting
from goldsmith.answers import scoring as S

DEFAULT_KS = (5, 10)  # the cut-offs of a run created without any


class SettingsInvalid(EndpointInvalid):
    """A setting that cannot be used (a floor above its target, a value outside its range, an
    unknown metric in a drop rule, an unsafe webhook); the message says why, ``field`` which
    setting it is when one is (the webhook's URL)."""


@dataclass(frozen=True)
class ProjectSettings:
    """A project's evaluation settings as every figure reads them: its own values, else its
    preset's; the top-K edits only when they validate (else the scenario's own weights, and an
    unknown scenario reads as the default one), rather than fail a report."""

    preset: str
    targets: bands.Targets
    bands: dict[str, bands.Band]
    headline_k: int
    max_recall_drop: float | None
    max_pass_rate_drop: float | None
    max_answer_drop: Mapping[str, float]
    topk_scenario: str
    topk_weights: dict[str, float]
    low_recall_cutoff: float
    quadrant_recall_threshold: float | None
    quadrant_correctness_threshold: float | None
    webhook_url: str
    band_overrides: Mapping[str, Any] = field(default_factory=dict)

    @property
    def topk_choice(self) -> tuple[str, dict[str, float]]:
        return self.topk_scenario, self.topk_weights

    def quadrant_thresholds(self, pass_threshold: float) -> tuple[float, float]:
        """(recall, correctness) thresholds of the four quadrants: the project's, else the
        given (the run's) pass threshold."""
        r, c = self.quadrant_recall_threshold, self.quadrant_correctness_threshold
        return (pass_threshold if r is None else r, pass_threshold if c is None else c)

    def thresholds(self) -> dict[str, float | None]:
        """The thresholds the pages show, by the names of the settings form."""
        t = self.targets
        return {
            "pass_threshold": t.pass_threshold,
            "min_recall": t.recall_target,
            "recall_floor": t.recall_floor,
            "min_pass_rate": t.pass_rate_target,
            "pass_rate_floor": t.pass_rate_floor,
            "max_recall_drop": self.max_recall_drop,
            "max_pass_rate_drop": self.max_pass_rate_drop,
            "headline_k": self.headline_k,
        }


def evaluation_settings_get(*, project: Project) -> EvaluationSettings:
    """The project's settings row (made with the defaults on first read), as the form edits it."""
    found, _ = EvaluationSettings.objects.get_or_create(project=project)
    return found


def _targets(record: EvaluationSettings) -> bands.Targets:
    """The project's targets and floors: its own values, else its preset's. (`min_recall` and
    `min_pass_rate` are the targets' field names.)"""
    return bands.targets_for(
        record.preset,
        {
            "recall_target": record.min_recall,
            "recall_floor": record.recall_floor,
            "pass_threshold": record.pass_threshold,
            "pass_rate_target": record.min_pass_rate,
            "pass_rate_floor": record.pass_rate_floor,
        },
    )


def _topk_choice(record: EvaluationSettings) -> tuple[str, dict[str, float]]:
    scenario = record.topk_scenario if record.topk_scenario in metrics.TOPK_SCENARIOS else ""
    try:
        metrics.topk_weights(scenario, record.topk_weights)
    except ValueError:
        return scenario, {}
    return scenario, dict(record.topk_weights or {})


def settings_of(record: EvaluationSettings) -> ProjectSettings:
    """The typed settings of a row (raises ValueError on targets that do not hold)."""
    targets = _targets(record)
    scenario, weights = _topk_choice(record)
    return ProjectSettings(
        preset=record.preset,
        targets=targets,
        bands=bands.bands_for(record.preset, record.band_overrides, targets),
        headline_k=record.headline_k,
        max_recall_drop=record.max_recall_drop,
        max_pass_rate_drop=record.max_pass_rate_drop,
        max_answer_drop=dict(record.max_answer_drop or {}),
        topk_scenario=scenario,
        topk_weights=weights,
        low_recall_cutoff=record.low_recall_cutoff,
        quadrant_recall_threshold=record.quadrant_recall_threshold,
        quadrant_correctness_threshold=record.quadrant_correctness_threshold,
        webhook_url=record.webhook_url,
        band_overrides=dict(record.band_overrides or {}),
    )


def project_settings(*, project: Project) -> ProjectSettings:
    """The project's evaluation settings, read once."""
    return settings_of(evaluation_settings_get(project=project))


def _answer_drops(drops: Any) -> dict[str, float]:
    """The answer drop rules under the metric names the reports use (the engine's own reading
    of a name, as `goldsmith drift --max-answer-drop`: a rule stored under another name could
    never match one)."""
    if not isinstance(drops, dict):
        raise SettingsInvalid(gettext("the answer drop rules map a metric to a drop"))
    canonical: dict[str, float] = {}
    for metric, limit in drops.items():
        try:
            name = S.parse_any_metric(str(metric))
        except ValueError:
            name = ""
        if not (S.is_answer_metric(name) or S.is_stage_metric(name)):
            raise SettingsInvalid(
                gettext(
                    "%(metric)r is not an answer or first-stage metric (e.g. answer_correctness, "
                    "context_recall@5, first_stage:recall@50)"
                )
                % {"metric": metric}
            )
        if not isinstance(limit, int | float) or isinstance(limit, bool) or not 0 <= limit <= 1:
            raise SettingsInvalid(
                gettext("the largest drop of %(metric)s must be a number between 0 and 1")
                % {"metric": metric}
            )
        canonical[name] = float(limit)
    return canonical


def evaluation_settings_update(*, project: Project, **fields: Any) -> EvaluationSettings:
    """Change the given settings; refuses (SettingsInvalid) what a report could not use."""
    record = evaluation_settings_get(project=project)
    if "preset" in fields:
        try:
            bands.preset(fields["preset"])
        except ValueError as error:
            raise SettingsInvalid(str(error)) from None
    for name, value in fields.items():
        setattr(record, name, value)
    try:
        _targets(record)  # a floor above its target, or a value outside [0, 1]
    except ValueError as error:
        raise SettingsInvalid(str(error)) from None
    if not 1 <= int(record.headline_k) <= 1000:
        raise SettingsInvalid(gettext("the headline K must be between 1 and 1000"))
    try:
        metrics.topk_weights(record.topk_scenario, record.topk_weights)
    except ValueError as error:
        raise SettingsInvalid(str(error)) from None
    if not 0.0 <= float(record.low_recall_cutoff) <= 1.0:
        raise SettingsInvalid(gettext("the low-recall cut-off must be between 0 and 1"))
    for value in (record.quadrant_recall_threshold, record.quadrant_correctness_threshold):
        if value is not None and not 0.0 <= float(value) <= 1.0:
            raise SettingsInvalid(gettext("the quadrant thresholds must be between 0 and 1"))
    record.max_answer_drop = _answer_drops(record.max_answer_drop or {})
    if record.webhook_url:
        with refused_as(SettingsInvalid):
            url_check(record.webhook_url, field="webhook_url")
    record.save()
    return record


def run_settings(run: EvaluationRun, ks: Sequence[int] | None = None) -> reporting.RunSettings:
    """A run's settings as its report reads them (``ks``: other cut-offs, as a comparison's)."""
    return reporting.RunSettings(
        ks=tuple(ks or run.ks or DEFAULT_KS),
        relevance_threshold=run.relevance_threshold,
        gain=run.gain,  # type: ignore[arg-type]  # gain is one of the Gain choices, which EvalSettings takes
        pass_threshold=run.pass_threshold,
        matching=run.matching,
        headline=run.headline_k,
    )
