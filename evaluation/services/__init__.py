"""Writes of the evaluation app (services), re-exported for callers."""

from evaluation.services.reports import RunInvalid, evaluation_alert_notify, run_report
from evaluation.services.retrievers import (
    RetrieverInvalid,
    effective_thresholds,
    evaluation_settings_get,
    evaluation_settings_update,
    retriever_save,
)
from evaluation.services.runs import (
    baseline_set,
    evaluation_batch_execute,
    evaluation_run_cancel,
    evaluation_run_create,
    evaluation_run_execute_inline,
    evaluation_run_finish,
    evaluation_run_start,
    evaluation_schedule_due,
    evaluation_watchdog,
)

__all__ = [
    "RetrieverInvalid",
    "RunInvalid",
    "baseline_set",
    "effective_thresholds",
    "evaluation_alert_notify",
    "evaluation_batch_execute",
    "evaluation_run_cancel",
    "evaluation_run_create",
    "evaluation_run_execute_inline",
    "evaluation_run_finish",
    "evaluation_run_start",
    "evaluation_schedule_due",
    "evaluation_settings_get",
    "evaluation_settings_update",
    "evaluation_watchdog",
    "retriever_save",
    "run_report",
]
