"""What the API of every HTTP endpoint (retrievers, machine judges, answer judges) shares: a
call setting's field, made from the engine's list of settings, the settings object that
refuses a setting it does not list, the auth header's input fields, and the one shape of a
refusal, ``{field: [message]}`` as DRF's validation answers (a call setting nested under
``config``), documented in the schema of every operation that saves an endpoint."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from django.utils.translation import gettext_lazy
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.settings import api_settings

from annotation.services.machine import JudgeInvalid
from evaluation.api.shapes import validated
from evaluation.services.endpoints import EndpointInvalid
from goldsmith.retrievers.http import HttpSetting
from sitewide.i18n import localize

T = TypeVar("T")
_MESSAGES = {"type": "array", "items": {"type": "string"}}
REFUSED = OpenApiResponse(
    {
        "type": "object",
        "additionalProperties": {
            "oneOf": [_MESSAGES, {"type": "object", "additionalProperties": _MESSAGES}]
        },
        "example": {"config": {"url": ["refused to call 127.0.0.1: 127.0.0.1 is loopback"]}},
    },
    description=(
        "Refused: field → messages, a call setting's under `config` "
        '(`{"config": {"headers": ["…"]}}`); `non_field_errors` when no one field is the cause.'
    ),
)


def endpoint_refusal(error: EndpointInvalid) -> serializers.ValidationError:
    """The 400 of a refused endpoint: field → messages (``config.url`` nested)."""
    head, _, rest = error.field.partition(".")
    detail: Any = [localize(error)]
    if rest:
        detail = {rest: detail}
    return serializers.ValidationError({head: detail})


def endpoint_saved(
    save: Callable[..., T], serializer: type[serializers.Serializer], request: Request, **given: Any
) -> T:
    """`save` (an endpoint's register or change) called with `given` and the request's data as
    `serializer` takes it; a refusal is the one 400 of :func:`endpoint_refusal` (a machine
    judge's `JudgeInvalid`, its name or settings given to a judge of another kind, of no field)."""
    try:
        return save(**given, **validated(serializer, request))
    except JudgeInvalid as error:
        raise endpoint_refusal(EndpointInvalid(str(error))) from None
    except EndpointInvalid as error:
        raise endpoint_refusal(error) from None


def setting_field(setting: HttpSetting, **given: Any) -> serializers.Field:
    """The API field of one call setting (bounds and choices from the engine's list); each is
    optional (a change sends only some). `given` overrides (a help text in the reader's
    language)."""
    common: dict[str, Any] = {"required": False, "help_text": setting.help or setting.label}
    common.update(given)
    if setting.choices:
        return serializers.ChoiceField(choices=list(setting.choices), **common)
    if setting.value_type in (int, float):
        number = serializers.IntegerField if setting.value_type is int else serializers.FloatField
        return number(min_value=setting.minimum, max_value=setting.maximum, **common)
    if setting.value_type is dict:
        return serializers.DictField(child=serializers.CharField(allow_blank=True), **common)
    return serializers.CharField(allow_blank=True, trim_whitespace=False, **common)


class SettingsInput(serializers.Serializer):
    """An endpoint's call settings (``config``): a setting it does not list is refused,
    `unknown` saying so (``%(name)r``)."""

    unknown: Any = ""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            extra = sorted(set(data) - set(self.fields))
            if extra:
                raise serializers.ValidationError(
                    {api_settings.NON_FIELD_ERRORS_KEY: [str(self.unknown) % {"name": extra[0]}]}
                )
        return super().to_internal_value(data)


class SettingsInputSchema(OpenApiSerializerExtension):
    """The schema says what every `SettingsInput` does: a setting it does not list is
    refused."""

    target_class = SettingsInput
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema = super().map_serializer(auto_schema, direction)
        return {**schema, "additionalProperties": False}


class AuthHeaderInput(serializers.Serializer):
    """The auth header of an endpoint, added or changed: each optional (left out or empty,
    the value keeps the stored one; an empty name removes the header)."""

    auth_header_name = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text=gettext_lazy("empty: remove the auth header"),
    )
    auth_header_value = serializers.CharField(
        required=False,
        allow_blank=True,
        write_only=True,
        help_text=gettext_lazy("Stored encrypted; never returned. Empty: keep the stored one."),
    )
    auth_header_env = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text=gettext_lazy("or: a GOLDSMITH_SECRET_… variable the workers read it from"),
    )
