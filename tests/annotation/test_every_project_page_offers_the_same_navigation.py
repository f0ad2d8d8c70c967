"""Every project page a lead opens carries the same navigation: the members page used to build
its own context and left out "My queue", which a lead who annotates reads on every other page."""

from __future__ import annotations

import re

import pytest

from tests.conftest import PASSWORD

PAGES = ["", "members/", "dashboard/", "review/", "annotate/", "guidelines/"]


def nav_links(html: str) -> list[str]:
    nav = html.split('<span class="nav-group">', 1)[1].split("</nav>", 1)[0]
    return re.findall(r'<a href="([^"]+)"', nav)


@pytest.mark.parametrize("page", PAGES)
def test_a_leads_project_page_has_the_projects_navigation(personas, client, page):
    assert client.login(username=personas.alice.username, password=PASSWORD)
    base = f"/projects/{personas.project.pk}/"
    overview = nav_links(client.get(base).content.decode())
    assert f"{base}annotate/" in overview
    response = client.get(base + page)
    assert response.status_code == 200
    assert nav_links(response.content.decode()) == overview
