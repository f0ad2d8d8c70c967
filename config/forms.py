"""How forms render: the project's templates (so a page's form looks like the rest of the site),
with help texts escaped (`templates/forms/field.html`)."""

from __future__ import annotations

from django.forms.renderers import TemplatesSetting


class Renderer(TemplatesSetting):
    field_template_name = "forms/field.html"
