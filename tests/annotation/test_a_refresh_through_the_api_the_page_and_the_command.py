"""The refresh through its interfaces: the API (leads only), the version page's button with its
counts, and `manage.py refresh_version`; the diff says why each row changed."""

from __future__ import annotations

from django.urls import reverse

from annotation.models import GoldenSetVersion
from annotation.services.adjudication import queries_approve
from tests.annotation.refresh_factories import grade_all, judged_v1, update_corpus


def test_only_a_lead_opens_and_freezes_a_refresh_through_the_api(personas, api_client_for):
    judged = judged_v1(personas)
    project = personas.project
    url = reverse("api-goldset-refresh", args=[project.pk, judged.version.label])
    assert api_client_for(personas.alice).post(url).json()["identical_to"] == "v1"
    update_corpus(project)
    assert api_client_for(personas.bob).post(url).status_code == 403
    assert api_client_for(personas.mallory).post(url).status_code == 404
    preview = api_client_for(personas.victor).get(url).json()
    assert preview["state"] == "current" and preview["counts"]["touched"] == 2
    opened = api_client_for(personas.alice).post(url)
    assert opened.status_code == 201
    assert opened.json()["counts"]["asked"] == 4
    freeze = reverse("api-goldset-refresh-freeze", args=[project.pk, "v1"])
    refused = api_client_for(personas.alice).post(freeze, {}, format="json")
    assert refused.status_code == 400 and "not approved" in refused.json()["detail"][0]
    for user in (personas.bob, personas.carol):
        grade_all(user, judged.password, {"guide#3": 1, "guide#1b": 0})
        grade_all(user, judged.refund, {"guide#1b": 2, "guide#3": 0})
    queries_approve(project=project, by=personas.alice)
    assert api_client_for(personas.bob).post(freeze, {}, format="json").status_code == 403
    done = api_client_for(personas.alice).post(freeze, {}, format="json")
    assert done.status_code == 201 and done.json()["result"] == "v2"
    diff = (
        api_client_for(personas.victor)
        .get(reverse("api-goldset-diff", args=[project.pk]), {"a": "v1", "b": "v2"})
        .json()
    )
    kinds = {(r["chunk_id"], r["kind"]) for r in diff["reasons"]}
    assert ("guide#1", "retired") in kinds and ("guide#1b", "rejudged") in kinds


def test_the_version_page_opens_a_refresh_and_the_diff_says_why(personas, client):
    judged = judged_v1(personas)
    project = personas.project
    update_corpus(project)
    client.force_login(personas.alice)
    page = reverse("goldset-detail", args=[project.pk, "v1"])
    assert 'id="refresh-open"' in client.get(page).content.decode()
    client.post(reverse("goldset-refresh", args=[project.pk, "v1"]))
    shown = client.get(page).content.decode()
    assert 'id="refresh-touched">2<' in shown and 'id="refresh-asked">4<' in shown
    client.force_login(personas.bob)
    assert 'id="refresh"' not in client.get(page).content.decode()  # leads only
    assert (
        client.post(reverse("goldset-refresh-freeze", args=[project.pk, "v1"])).status_code == 403
    )
    for user in (personas.bob, personas.carol):
        grade_all(user, judged.password, {"guide#3": 1, "guide#1b": 0})
        grade_all(user, judged.refund, {"guide#1b": 2, "guide#3": 0})
    queries_approve(project=project, by=personas.alice)
    client.force_login(personas.alice)
    response = client.post(reverse("goldset-refresh-freeze", args=[project.pk, "v1"]), follow=True)
    text = response.content.decode()
    assert "re-judged by bob, carol" in text
    assert "replaces retired chunk guide#1" in text
    assert "only white space or punctuation changed" in text
    assert GoldenSetVersion.objects.filter(project=project).count() == 2


def test_the_command_opens_reports_and_freezes_a_refresh(personas, run_command):
    judged = judged_v1(personas)
    project = personas.project
    assert "identical to v1" in run_command("refresh_version", project.name, "v1")
    update_corpus(project)
    dry = run_command("refresh_version", project.name, "v1", "--dry-run")
    assert "touched 2" in dry and "judgments asked 4" in dry
    assert "opened a refresh of v1" in run_command("refresh_version", project.name, "v1")
    assert "0 of 2 re-judged queries approved" in run_command("refresh_version", project.name, "v1")
    for user in (personas.bob, personas.carol):
        grade_all(user, judged.password, {"guide#3": 1, "guide#1b": 0})
        grade_all(user, judged.refund, {"guide#1b": 2, "guide#3": 0})
    queries_approve(project=project, by=personas.alice)
    out = run_command("refresh_version", project.name, "v1", "--freeze", "--by", "alice")
    assert out.startswith("froze v2 (refresh of v1)")
