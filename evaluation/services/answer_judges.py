"""HTTP judges of open answers (issue 13): registering one in a project, and calling it.

An answer judge is configured, guarded and called like an HTTP retriever: its URL must pass
the SSRF policy (private addresses only where the operator allows them), its auth header is
stored encrypted (or read on the worker from an exposed ``GOLDSMITH_SECRET_…`` variable), and
the engine's client (`goldsmith.answers.judge.HttpAnswerJudge`, through the retriever client)
retries, limits concurrency, pins DNS and sends the header to the judge's origin only. No
response, task argument, log line, repr or error carries the header's value.

What a run records about its judge is the identity as configured: name, model, prompt version
and temperature (`JudgeIdentity`, in the `JudgeResults` that `judge_answers` returns), so two
runs' correctness compare fairly only under the same judge. The job that finishes a run calls
`judge_answers` with the run's open answers; a lead tries a judge first with
`answer_judge_test_call`.

Every refusal is an `AnswerJudgeInvalid` naming the field it is about (``name``, ``url``,
``temperature``, ``config.timeout``, ``auth_header_env``…); nothing is saved when anything is
refused.
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from annotation.models import Project
from evaluation import credentials
from evaluation.models import AnswerJudge
from evaluation.services.endpoints import (
    EndpointInvalid,
    auth_changes,
    auth_header,
    headers_check,
    refused_as,
    ssrf_policy,
    url_check,
)
from goldsmith.answers.judge import (
    AnswerItem,
    AnswerJudgeConfig,
    HttpAnswerJudge,
    JudgedAnswer,
    JudgeResults,
)
from sitewide.text_input import single_line

# The settings of AnswerJudgeConfig kept in `AnswerJudge.config` besides the URL; the identity
# (name, model, prompt version, temperature) has columns of its own.
IDENTITY = ("url", "name", "model", "prompt_version", "temperature")
CALL_SETTINGS = tuple(f.name for f in fields(AnswerJudgeConfig) if f.name not in IDENTITY)
# A test call is made while a person waits: one attempt, at most this long.
TEST_CALL_TIMEOUT = 10.0
# The sample answer a test call sends when given none (docs/formats.md, "HTTP answer judge").
SAMPLE = AnswerItem(
    query_id="sample",
    question="What does the warranty cover?",
    reference_answer="Manufacturing defects, for two years from purchase.",
    answer_type="open",
    facts=("warranty covers manufacturing defects", "two years from purchase"),
    response="The warranty covers manufacturing defects for two years from purchase.",
    contexts=("Our warranty covers manufacturing defects for two years from purchase.",),
)
# A configuration whose every setting is usable: one setting is put in it to check that one
# alone, so that the engine's rules (AnswerJudgeConfig.problems) are the only rules.
_PROBE = AnswerJudgeConfig(url="https://judge.example/")


class AnswerJudgeInvalid(EndpointInvalid):
    """The answer judge cannot be saved as given; `field` names what is wrong (``config.X`` for
    a call setting), the message says why. Never holds a secret."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, field=field)


class Keep(enum.Enum):
    """An update's "leave this as it is" where None is a value (a temperature not set)."""

    KEEP = 0


KEEP = Keep.KEEP


# --------------------------------------------------------------------------------------------
# Checking what a lead gives


def _engine_problem(field: str, value: Any) -> None:
    """Refuse `value` for `field` by the engine's own rules (AnswerJudgeConfig.problems)."""
    problems = replace(_PROBE, **{field: value}).problems()
    if problems:
        raise AnswerJudgeInvalid(field, "; ".join(problems))


def _one_line(field: str, value: Any, what: str, limit: int) -> str:
    if not isinstance(value, str):
        raise AnswerJudgeInvalid(field, gettext("%(what)s must be text") % {"what": what})
    try:
        text = single_line(value, what)
    except ValueError as error:
        raise AnswerJudgeInvalid(field, str(error)) from None
    if len(text) > limit:
        raise AnswerJudgeInvalid(
            field,
            gettext("%(what)s must be at most %(n)d characters") % {"what": what, "n": limit},
        )
    return text


def _checked_name(project: Project, judge: AnswerJudge | None, name: Any) -> str:
    text = _one_line("name", name, gettext("an answer judge's name"), 100)
    if not text or any(c.isspace() for c in text):
        # Reports name the scorer `judge:<name>`: one word.
        raise AnswerJudgeInvalid(
            "name", gettext("the name must be 1 to 100 characters without spaces")
        )
    taken = AnswerJudge.objects.filter(project=project, name=text)
    if judge is not None:
        taken = taken.exclude(pk=judge.pk)
    if taken.exists():
        raise AnswerJudgeInvalid(
            "name", gettext("an answer judge named %(name)r already exists") % {"name": text}
        )
    return text


def _checked_url(url: Any) -> str:
    text = _one_line("url", url, gettext("the URL"), 2000)
    if not text:
        raise AnswerJudgeInvalid("url", gettext("the judge needs a URL"))
    _engine_problem("url", text)
    with refused_as(AnswerJudgeInvalid):
        url_check(text, field="url")
    return text


def _checked_temperature(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise AnswerJudgeInvalid(
            "temperature", gettext("the temperature must be a number, or empty when not set")
        )
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise AnswerJudgeInvalid(
            "temperature", gettext("the temperature must be a number of at least 0")
        )
    return number


def _checked_setting(name: str, value: Any) -> Any:
    """One call setting in the type AnswerJudgeConfig holds it, checked by the engine."""
    field = f"config.{name}"
    default = getattr(_PROBE, name)
    if name == "headers":
        with refused_as(AnswerJudgeInvalid):
            return headers_check(value, field=field)
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise AnswerJudgeInvalid(
                field, gettext("%(name)s must be a whole number") % {"name": name}
            )
    elif isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise AnswerJudgeInvalid(field, gettext("%(name)s must be a number") % {"name": name})
        value = float(value)
    elif not isinstance(value, str):
        raise AnswerJudgeInvalid(field, gettext("%(name)s must be text") % {"name": name})
    if name == "method":
        value = value.strip().upper()
    try:
        _engine_problem(name, value)
    except AnswerJudgeInvalid as error:
        raise AnswerJudgeInvalid(field, str(error)) from None
    return value


def _checked_config(stored: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """The call settings after `changes` (those not given keep their stored value, else the
    engine's default), without the URL, which has its own field."""
    unknown = sorted(set(changes) - set(CALL_SETTINGS))
    if unknown:
        raise AnswerJudgeInvalid(
            "config", gettext("unknown answer judge setting %(name)r") % {"name": unknown[0]}
        )
    out: dict[str, Any] = {}
    for name in CALL_SETTINGS:
        if name in changes:
            out[name] = _checked_setting(name, changes[name])
        elif name in stored:
            out[name] = stored[name]
        else:
            default = getattr(_PROBE, name)
            out[name] = dict(default) if name == "headers" else default
    return out


def _auth_changes(judge: AnswerJudge | None, *given: str | None) -> dict[str, str]:
    with refused_as(AnswerJudgeInvalid):
        return auth_changes(judge, *given)


# --------------------------------------------------------------------------------------------
# Writes


def answer_judge_register(
    *,
    project: Project,
    name: str,
    url: str,
    model: str = "",
    prompt_version: str = "",
    temperature: float | None = None,
    config: Mapping[str, Any] | None = None,
    auth_header_name: str | None = None,
    auth_header_value: str | None = None,
    auth_header_env: str | None = None,
    by: AbstractBaseUser | None = None,
) -> AnswerJudge:
    """Register an HTTP answer judge in `project`. `config` holds the call settings of
    `AnswerJudgeConfig` (method, body_template, score_path, reason_path, timeout,
    max_concurrency, retries, backoff, batch_size, headers); those not given take the engine's
    defaults. Raises AnswerJudgeInvalid (naming the field); nothing is saved then."""
    judge = AnswerJudge(project=project, created_by=by if getattr(by, "pk", None) else None)
    return _save(
        judge,
        new=True,
        name=name,
        url=url,
        model=model,
        prompt_version=prompt_version,
        temperature=temperature,
        config=config or {},
        auth=_auth_changes(None, auth_header_name, auth_header_value, auth_header_env),
    )


def answer_judge_update(
    *,
    judge: AnswerJudge,
    name: str | None = None,
    url: str | None = None,
    model: str | None = None,
    prompt_version: str | None = None,
    temperature: float | Keep | None = KEEP,
    config: Mapping[str, Any] | None = None,
    auth_header_name: str | None = None,
    auth_header_value: str | None = None,
    auth_header_env: str | None = None,
) -> AnswerJudge:
    """Change a judge: what is None (the temperature: KEEP) keeps its value, `config` is
    merged into the stored settings, an empty auth value keeps the stored one and an empty
    auth name removes the header. Runs already judged keep the identity they recorded."""
    return _save(
        judge,
        new=False,
        name=judge.name if name is None else name,
        url=judge.url if url is None else url,
        model=judge.model if model is None else model,
        prompt_version=judge.prompt_version if prompt_version is None else prompt_version,
        temperature=judge.temperature if temperature is KEEP else temperature,
        config=config or {},
        auth=_auth_changes(judge, auth_header_name, auth_header_value, auth_header_env),
    )


def _save(
    judge: AnswerJudge,
    *,
    new: bool,
    name: Any,
    url: Any,
    model: Any,
    prompt_version: Any,
    temperature: Any,
    config: Mapping[str, Any],
    auth: Mapping[str, str],
) -> AnswerJudge:
    # Every value is checked before any is set: a refused change leaves `judge` as it was.
    values: dict[str, Any] = {
        "name": _checked_name(judge.project, None if new else judge, name),
        "model": _one_line("model", model, gettext("the model"), 200),
        "prompt_version": _one_line(
            "prompt_version", prompt_version, gettext("the prompt version"), 200
        ),
        "temperature": _checked_temperature(temperature),
    }
    settings = _checked_config({} if new else judge.config, config)
    values["config"] = {"url": _checked_url(url), **settings}
    values.update(auth)
    engine = AnswerJudgeConfig(
        url=values["config"]["url"],
        name=values["name"],
        model=values["model"],
        prompt_version=values["prompt_version"],
        temperature=values["temperature"],
        **settings,
    )
    problems = engine.problems()  # a rule over several settings
    if problems:
        raise AnswerJudgeInvalid("config", "; ".join(problems))
    for field, value in values.items():
        setattr(judge, field, value)
    try:
        with transaction.atomic():
            judge.save()
    except IntegrityError:  # the same name added at the same moment
        raise AnswerJudgeInvalid(
            "name", gettext("an answer judge named %(name)r already exists") % {"name": judge.name}
        ) from None
    return judge


def answer_judge_delete(*, judge: AnswerJudge) -> None:
    """Remove a judge. Runs it judged keep its identity and every reason (they store
    `JudgeResults`, not a reference to this row)."""
    judge.delete()


# --------------------------------------------------------------------------------------------
# Calling the judge


def answer_judge_config(judge: AnswerJudge) -> AnswerJudgeConfig:
    """The engine's configuration of `judge` (no secret in it)."""
    stored = {k: v for k, v in judge.config.items() if k in CALL_SETTINGS}
    return AnswerJudgeConfig(
        url=judge.url,
        name=judge.name,
        model=judge.model,
        prompt_version=judge.prompt_version,
        temperature=judge.temperature,
        **stored,
    )


def answer_judge_client(
    judge: AnswerJudge, *, config: AnswerJudgeConfig | None = None
) -> HttpAnswerJudge:
    """The engine's client for `judge` (a context manager: close it after use), with the
    decrypted auth header and the server's SSRF policy (checked again at every request, DNS
    pinned). `config` replaces the stored settings (a test call's shorter timeout). Raises
    credentials.SecretUnavailable when the header cannot be read."""
    return HttpAnswerJudge(
        config or answer_judge_config(judge), policy=ssrf_policy(), auth_header=auth_header(judge)
    )


def judge_answers(*, judge: AnswerJudge, items: Sequence[AnswerItem]) -> JudgeResults:
    """Have `judge` score `items` (the open answers of a run that have a response, or every
    response when the run is scored on faithfulness: `goldsmith.answers.judge.judge_items`),
    at most its `max_concurrency` at a time. Every item
    gets an answer in the items' order: its score and reason, or the error after the retries
    (never an exception). The results carry the judge's identity as configured and how long
    the judging took, for `JudgeResults.to_json` and `answer_report(..., judge=...)`. Raises
    credentials.SecretUnavailable when the auth header cannot be read (nothing was sent)."""
    started = time.perf_counter()
    with answer_judge_client(judge) as client:
        answers = client.judge_many(list(items))
        identity = client.identity
    return JudgeResults(identity, tuple(answers), seconds=time.perf_counter() - started)


def answer_judge_test_call(*, judge: AnswerJudge, item: AnswerItem | None = None) -> JudgedAnswer:
    """Send one answer (`SAMPLE` when none is given) to `judge` and return its score and
    reason, or the error: one attempt, waiting at most TEST_CALL_TIMEOUT seconds, so that a
    lead can see at once whether the URL, the header and the paths are right. Never raises for
    the judge's failure: an unreadable header or a refused address is the answer's error."""
    base = answer_judge_config(judge)
    config = replace(base, retries=0, timeout=min(base.timeout, TEST_CALL_TIMEOUT))
    sent = item or SAMPLE
    try:
        with answer_judge_client(judge, config=config) as client:
            return client.judge(sent)
    except (credentials.SecretUnavailable, ValueError) as error:
        # an unreadable header, or stored settings a later rule refuses: the answer's error
        return JudgedAnswer(sent.query_id, None, attempts=0, error=str(error))
