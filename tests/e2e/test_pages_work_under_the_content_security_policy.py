"""The main pages work in Chromium under the Content-Security-Policy and break none of it:
each page is served with the policy, the browser reports no violation (neither a
`securitypolicyviolation` event nor a console message), and what the page's own JavaScript
does still happens: a keyboard grade is saved, a corpus search answers, "select all" ticks
the resolved queries, the run page draws its charts, Swagger UI lists the API."""

from __future__ import annotations

import pytest

from annotation.models import Judgment
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.annotation.factories import grade_all, judging_setup
from tests.evaluation.conftest import make_golden
from tests.evaluation.retriever_stub import StubRetriever

pytestmark = pytest.mark.e2e

WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${where}`);
});
"""


class Watched:
    """A signed-in page that records every policy violation and console complaint about it."""

    def __init__(self, page) -> None:  # type: ignore[no-untyped-def]
        self.page = page
        self.console: list[str] = []
        page.context.add_init_script(WATCH)
        page.on(
            "console",
            lambda m: (
                self.console.append(m.text)
                if "Content Security Policy" in m.text or "Refused to" in m.text
                else None
            ),
        )

    def open(self, url: str):  # type: ignore[no-untyped-def]
        response = self.page.goto(url)
        assert response is not None and response.status == 200, url
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy and "style-src 'self'" in policy, (url, policy)
        return self.page

    def assert_clean(self, url: str) -> None:
        self.page.wait_for_load_state("load")
        violations = self.page.evaluate("window.__csp")
        assert violations == [] and self.console == [], (url, violations, self.console)


@pytest.fixture
def world(personas, api_client_for, settings):  # type: ignore[no-untyped-def]
    project = personas.project
    setup = judging_setup(personas, queries=3, per_query=3)
    flagged, resolved, _ = setup.queries
    bob, carol = api_client_for(personas.bob), api_client_for(personas.carol)
    grade_all(bob, project, setup.candidates[flagged.pk], [2, 2, 0])
    grade_all(carol, project, setup.candidates[flagged.pk], [0, 0, 0])
    grade_all(bob, project, setup.candidates[resolved.pk], [2, 1, 0])
    grade_all(carol, project, setup.candidates[resolved.pk], [2, 1, 0])

    settings.GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS = True  # the stubs listen on 127.0.0.1
    golden = make_golden(project, n=12)
    stubs = [StubRetriever(golden.answers).start()]
    stubs.append(StubRetriever({q: ids[::-1][:2] for q, ids in golden.answers.items()}).start())
    runs = []
    for name, stub in zip(("good", "bad"), stubs, strict=True):
        retriever = retriever_save(project=project, name=name, kind="http", config=stub.config())
        run = evaluation_run_create(
            project=project, retriever=retriever, version=golden.version, enqueue=False
        )
        runs.append(evaluation_run_execute_inline(run_id=run.pk))
    yield {"setup": setup, "query": setup.queries[2], "runs": runs, "version": golden.version}
    for stub in stubs:
        stub.stop()


def test_an_annotator_grades_by_keyboard_and_searches_the_corpus(
    personas, world, live_server, sign_in
):
    page = Watched(sign_in("bob"))
    base = f"{live_server.url}/projects/{personas.project.pk}"
    page.open(f"{base}/")
    page.assert_clean("project home")

    query = world["query"]
    url = f"{base}/annotate/{query.pk}/"
    p = page.open(url)
    p.keyboard.press("2")
    p.locator(".candidate >> nth=0 >> .save-state.is-saved").wait_for()
    first = int(p.locator(".candidate").nth(0).get_attribute("data-candidate-id"))
    assert Judgment.objects.get(annotator=personas.bob, candidate_id=first).grade == 2
    p.keyboard.press("?")
    assert p.locator("#help-dialog").is_visible()
    p.keyboard.press("Escape")
    p.fill("#corpus-search input[name=q]", "python")
    p.locator("#corpus-search button[type=submit]").click()
    p.locator("#search-results li").first.wait_for()
    p.check("#query-flags input[name=ambiguous]")
    page.assert_clean(url)


def test_a_lead_uses_the_dashboard_review_runs_compare_and_api_docs(
    personas, world, live_server, sign_in
):
    page = Watched(sign_in("alice"))
    base = f"{live_server.url}/projects/{personas.project.pk}"

    page.open(f"{base}/dashboard/").locator("svg.plot").first.wait_for()
    page.assert_clean("dashboard")

    p = page.open(f"{base}/review/")
    p.check("#select-all")
    boxes = p.locator("#resolved input[name=query]")
    assert boxes.count() >= 1
    assert all(boxes.nth(i).is_checked() for i in range(boxes.count()))
    page.assert_clean("review queue")

    good, bad = world["runs"]
    p = page.open(f"{base}/runs/{good.pk}/")
    assert p.locator("svg.plot").count() >= 2  # the recall curve and the per-query histogram
    page.assert_clean("run page")

    p = page.open(f"{base}/runs/compare/?a={good.pk}&b={bad.pk}")
    p.locator("svg.plot").first.wait_for()
    page.assert_clean("compare page")

    for url in (f"{base}/goldsets/", f"{base}/goldsets/{world['version'].label}/"):
        page.open(url)
        page.assert_clean(url)

    p = page.open(f"{live_server.url}/api/docs/")
    p.locator(".opblock").first.wait_for()  # Swagger UI drew the operations from the schema
    assert p.locator(".opblock").count() > 10
    page.assert_clean("api docs")
