"""Every setting of the settings page that is a share (thresholds, targets, floors, drop limits,
cut-offs) is made by one helper (`evaluation.forms.share`): each refuses a value outside 0..1
the same way, and each is optional but the low-recall cut-off, which has a default."""

from __future__ import annotations

import pytest

from evaluation.forms import RunForm, SettingsForm, share

SHARES = {
    "pass_threshold": None,
    "min_recall": None,
    "recall_floor": None,
    "min_pass_rate": None,
    "pass_rate_floor": None,
    "max_recall_drop": None,
    "max_pass_rate_drop": None,
    "low_recall_cutoff": 0.2,
    "quadrant_recall_threshold": None,
    "quadrant_correctness_threshold": None,
}
VALID = {"preset": "enterprise", "headline_k": "5", "low_recall_cutoff": "0.2"}


def test_the_table_names_every_float_setting_of_the_form():
    floats = {n for n, f in SettingsForm.base_fields.items() if type(f).__name__ == "FloatField"}
    assert floats == set(SHARES)


@pytest.mark.parametrize("name", list(SHARES))
def test_a_share_is_bounded_by_0_and_1_and_optional_unless_it_has_a_default(name):
    field = SettingsForm.base_fields[name]
    assert (field.min_value, field.max_value) == (0, 1)
    assert (field.required, field.initial) == (SHARES[name] is not None, SHARES[name])
    for value, ok in (("1.5", False), ("-0.1", False), ("1", True), ("0", True)):
        form = SettingsForm(data={**VALID, name: value})
        assert form.is_valid() is ok, (name, value, form.errors)
        assert (name in form.errors) is not ok
    empty = SettingsForm(data={**VALID, name: ""})
    assert empty.is_valid() is (SHARES[name] is None), name


def test_the_run_forms_pass_threshold_is_the_same_kind_of_field():
    field = RunForm.base_fields["pass_threshold"]
    model = share("x")
    assert (field.required, field.min_value, field.max_value) == (
        model.required,
        model.min_value,
        model.max_value,
    )
