"""A viewer reads the evaluation pages in Chromium and is offered no action a viewer would be
refused: no "Start a run", no run, cancel, baseline, pool, edit or settings button or form;
the same pages offer a lead each of them. Every form a page shows is one the reader's role may
send (a form that only reads, such as "Compare", uses GET) (issue 23)."""

from __future__ import annotations

import pytest

from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.evaluation.conftest import make_golden, private_urls, stub_factory  # noqa: F401

pytestmark = pytest.mark.e2e


@pytest.fixture
def runs(personas, private_urls, stub_factory):  # noqa: F811
    golden = make_golden(personas.project, n=8)
    made = []
    for name in ("good", "other"):
        stub = stub_factory(golden.answers)
        retriever = retriever_save(
            project=personas.project, name=name, kind="http", config=stub.config()
        )
        run = evaluation_run_create(
            project=personas.project, retriever=retriever, version=golden.version, enqueue=False
        )
        made.append(evaluation_run_execute_inline(run_id=run.pk))
    return made


def pages(project, run) -> list[str]:
    base = f"/projects/{project.pk}"
    return [
        f"{base}/runs/",
        f"{base}/runs/{run.pk}/",
        f"{base}/retrievers/",
        f"{base}/retrievers/{run.retriever_id}/",
        f"{base}/",
    ]


def post_forms(page) -> list[str]:
    """What each POST form of the page's main content would do (its button's text)."""
    script = """forms => forms
        .filter(f => (f.getAttribute('method') || 'get').toLowerCase() === 'post')
        .map(f => (f.querySelector('button, input[type=submit]') || f).textContent.trim())"""
    return page.eval_on_selector_all("main form", script)


def test_a_viewer_sees_no_action_and_a_lead_sees_them_all(personas, runs, sign_in, live_server):
    project, run = personas.project, runs[0]
    viewer = sign_in("victor")
    for path in pages(project, run):
        viewer.goto(f"{live_server.url}{path}")
        text = viewer.inner_text("main")
        assert "Start a run" not in text, path
        assert "add one" not in text, path
        assert post_forms(viewer) == [], (path, post_forms(viewer))
        assert viewer.locator("main a[href$='/edit/']").count() == 0, path
        assert viewer.locator("main a[href$='/settings/']").count() == 0, path
    viewer.goto(f"{live_server.url}/projects/{project.pk}/runs/")
    assert "A lead of the project starts runs" in viewer.inner_text("#start-a-run")
    # Reading stays: the compare form (GET) and the downloads.
    assert viewer.locator("form.compare-form[method=get]").count() == 1

    lead = sign_in("alice")
    lead.goto(f"{live_server.url}/projects/{project.pk}/runs/")
    assert "Start a run" in lead.inner_text("#start-a-run")
    lead.goto(f"{live_server.url}/projects/{project.pk}/retrievers/{run.retriever_id}/")
    assert "Start a run" in lead.inner_text("main")
    assert any(label == "Run" for label in post_forms(lead))
    lead.goto(f"{live_server.url}/projects/{project.pk}/runs/{runs[1].pk}/")
    assert "Make this the baseline" in post_forms(lead)
