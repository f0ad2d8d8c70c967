"""The OpenAPI schema lists the refusals every API operation can answer, not only its success.

drf-spectacular documents what a view's `extend_schema` names; the refusals below are made
before or around any view's own code, so they are added here once for every operation:

- 400 — a path or query string holding text PostgreSQL cannot store (sitewide/text_input.py,
  any operation), a body that does not parse, or input the view refuses (field → messages);
- 401 — no credentials, or a token that is unknown, revoked or expired;
- 403 — a role in the project that may not do this (annotation/permissions.py);
- 404 — an id in the path that names nothing the caller may see (operations with one);
- 415 — a body in a content type the operation does not take (operations with a body);
- 429 — too many requests made with a token (config/throttling.py), with Retry-After.

An integer in the path is at least 0: Django's `<int:…>` route matches digits only.

A view that documents one of these codes itself keeps its own description.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse

from annotation.api.shapes import RefusalOutput

# A view's validation error is either field → messages (a serializer's errors) or a list of
# messages; a parse error or a refusal made outside the view carries `detail`.
BAD_REQUEST = {
    "oneOf": [
        {"type": "object", "additionalProperties": {}},
        {"type": "array", "items": {"type": "string"}},
    ],
    "description": "The request was refused: `detail`, field → messages, or a list of messages.",
}

_refusal = RefusalOutput


class GoldsmithAutoSchema(AutoSchema):
    def _resolve_path_parameters(self, variables: list[str]) -> list[dict[str, Any]]:
        parameters = super()._resolve_path_parameters(variables)
        for parameter in parameters:
            if parameter["schema"].get("type") == "integer":
                # Django's <int:…> matches digits only: "-1" is no route at all (an HTML 404).
                parameter["schema"] = {**parameter["schema"], "minimum": 0}
        return parameters

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        refusals: dict[str, OpenApiResponse] = {
            "400": OpenApiResponse(BAD_REQUEST, description="Bad input."),
            "401": OpenApiResponse(
                _refusal, description="No credentials, or an unknown or revoked token."
            ),
            "403": OpenApiResponse(_refusal, description="The caller's role may not do this."),
            "429": OpenApiResponse(
                _refusal, description="Too many requests with a token; see Retry-After."
            ),
        }
        if "{" in self.path:
            refusals["404"] = OpenApiResponse(
                _refusal, description="Nothing the caller may see has this id."
            )
        if self.method in {"POST", "PUT", "PATCH"} and self.get_request_serializer() is not None:
            refusals["415"] = OpenApiResponse(
                _refusal, description="The body is in a content type this operation does not take."
            )
        for code, response in refusals.items():
            if code not in responses:
                responses[code] = self._get_response_for_code(response, code, direction=direction)
        return dict(sorted(responses.items()))
