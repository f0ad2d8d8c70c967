"""Every page a member can reach, read in Chinese: the lead, an annotator and a viewer of the
Chinese demo project each sign in with a zh-CN browser and follow every link of the site from
the project list (pages only: downloads, sign-out and other sites are not followed). A run of
Latin letters in a page's visible text fails the test unless it is user data (any text stored
in the database by a person or an import: names, queries, chunks, ids), a name the field writes
in Latin letters in Chinese too (nDCG@10, BM25, JSONL, κ...) or code. The failure lists each
word with the pages that show it, so a word Django derives from a field name, a choice, a help
text or an engine sentence that never reached the catalog is found where a reader sees it.

On every page the walk also fails on a table cell or a button squeezed to a character or two a
line, which is how a column or a button too narrow for its Chinese words reads."""

from __future__ import annotations

import re
from collections import defaultdict
from urllib.parse import urljoin, urlsplit

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models

from tests.conftest import PASSWORD

pytestmark = pytest.mark.e2e

# Names written in Latin letters in Chinese text as well: metrics, formats, protocols, methods
# named after people, products and standards. Case-insensitive.
FIELD_NAMES = set(
    """
    mrr ndcg map nugget squad cmrc ragas trec qrels beir jsonl json csv tsv
    zip txt url urls http https api ip id ids utf bom gbk html pdf bm25 tf idf tfidf rrf llm rag
    cohen fleiss krippendorff gwet kendall wilcoxon holm bonferroni goldsmith celery redis
    postgresql sqlite python django opencc jieba unicode nfkc excel windows chromium markdown
    english utc k q n ms kb mb gb s x vn tf-idf top-k lucene webhook eval bootstrap
    numpy pandas statsmodels nltk punkt cranfield unix mg kg mm cm km
    """.split()  # noqa: SIM905 - a word list reads better as words
)
# English words a Chinese page may show only where they are what the reader types: the columns
# of the files Goldsmith reads (the import forms) and the metric keys of the top-K weights (the
# evaluation settings). Anywhere else they are a label that never reached the catalog (the run
# page once named its rows "recall", "precision", "hit").
TYPED_WORDS = {
    **dict.fromkeys(("text", "title"), ("/corpus/",)),
    **dict.fromkeys(
        ("query", "timestamp", "user", "session", "category", "count", "feedback"),
        ("/querylogs/",),
    ),
    **dict.fromkeys(("recall", "precision", "hit"), ("/evaluation-settings/",)),
}
# A token of letters; those holding a digit, an underscore or only capitals (nDCG@10, AC1,
# doc_id, NAME=REGEX, GET) are names or code, not words to translate.
TOKEN = re.compile(r"[A-Za-z0-9_@.-]*[A-Za-z][A-Za-z0-9_@.-]*")
CODE_LIKE = re.compile(r".*[0-9_@].*|[A-Z]{2,}s?|.*[a-z][A-Z].*")
# Stored values that are codes a page must word, not user data.
CODE_FIELDS = (
    "state",
    "status",
    "kind",
    "sha256",
    "hash",
    "password",
    "strategy",
    "allocation",
    "by",
    "tokenizer",
    "tokenizer_origin",
    "mode",
    "format",
    "gain",
    "matching",
    "trigger",
    "schedule",
    "provenance",
    "convention",
    "order",
    "phase",
    "preset",
    "stratum",
    "band",
)
SKIP_PATHS = ("/logout/", "/admin/", "/api/", "/static/", "/media/")
SKIP_SUFFIXES = (".jsonl", ".csv", ".tsv", ".txt", ".zip", ".json", ".png", ".svg", ".ico")
MAX_PAGES_PER_ROLE = 160


def stored_words() -> set[str]:
    """Every Latin word in a text field a person or an import fills (not a field of choices,
    whose values are codes a page must word; not a JSON field, which holds the engine's)."""
    words: set[str] = set()
    every = [
        *apps.get_app_config("annotation").get_models(),
        *apps.get_app_config("evaluation").get_models(),
        get_user_model(),
    ]
    for model in every:
        fields = [
            f.name
            for f in model._meta.get_fields()
            if isinstance(f, models.CharField | models.TextField)
            and f.concrete
            and not f.choices
            and not f.name.endswith(CODE_FIELDS)
        ]
        if not fields:
            continue
        for row in model.objects.values_list(*fields):
            for value in row:
                if value:
                    words.update(w.lower() for w in TOKEN.findall(str(value)))
    return words


def visible_text(page) -> str:  # type: ignore[no-untyped-def]
    """The page's visible text without code (``<code>``, ``<kbd>``, ``<pre>``, ``<samp>``),
    inputs' values (what the reader typed) and text the page declares to be in another language
    (``<span lang="en">``: the formats reference's English examples, quoted as they are)."""
    return page.evaluate(
        """() => {
            const body = document.body.cloneNode(true);
            body.querySelectorAll('code, kbd, pre, samp, script, style, noscript, template')
                .forEach((n) => n.remove());
            body.querySelectorAll('span[lang]:not([lang^="zh"])').forEach((n) => n.remove());
            document.body.appendChild(body);
            body.style.position = 'absolute';
            const text = body.innerText;
            body.remove();
            return text;
        }"""
    )


# Table cells and buttons squeezed to one or two characters a line (Chinese wraps anywhere, so a
# column or a button too narrow for its words reads as a vertical strip): three lines or more, or
# two for a button's short word, at two characters or fewer a line on average.
NARROW_CELLS = """() => [...document.querySelectorAll('td, th, button, .button')].flatMap((cell) =>
{
    if (!cell.offsetParent) return [];
    const text = cell.innerText.replace(/\\s+/g, '');
    const half = parseFloat(getComputedStyle(cell).fontSize) / 2;
    const tops = [];
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) if (r.width > 0) tops.push(r.top);
    }
    tops.sort((a, b) => a - b);
    const lines = tops.filter((t, i) => i === 0 || t - tops[i - 1] > half).length;
    const short = cell.matches('button, .button') && text.length <= 6;
    return (lines >= 3 || (short && lines >= 2)) && text.length <= 2 * lines
        ? [cell.innerText.trim()] : [];
})"""


def links(page, origin: str) -> list[str]:  # type: ignore[no-untyped-def]
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map((a) => a.href)")
    out = []
    for href in hrefs:
        url = urljoin(page.url, href).split("#")[0]
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" != origin:
            continue
        if parts.path.startswith(SKIP_PATHS) or parts.path.endswith(SKIP_SUFFIXES):
            continue
        if "download" in parts.path or "export" in parts.path:
            continue
        out.append(url)
    return out


def walk(browser, origin: str, username: str, start: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Every page reachable from `start` by links, as `username` in a zh-CN browser:
    {url: visible text}."""
    context = browser.new_context(locale="zh-CN", viewport={"width": 1366, "height": 900})
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(f"{origin}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(lambda u: "/login/" not in u)
    seen: dict[str, str] = {}
    queue = [start]
    try:
        while queue and len(seen) < MAX_PAGES_PER_ROLE:
            url = queue.pop(0)
            if url in seen:
                continue
            response = page.goto(url)
            content_type = (response.headers.get("content-type") if response else "") or ""
            if "text/html" not in content_type:
                seen[url] = ""
                continue
            assert response is not None and response.status < 500, f"{url}: {response.status}"
            assert page.locator("html").get_attribute("lang") == "zh-hans", url
            seen[url] = visible_text(page)
            narrow = page.evaluate(NARROW_CELLS)
            assert not narrow, f"{url}: cells or buttons one or two characters a line: {narrow}"
            queue += [u for u in links(page, origin) if u not in seen]
    finally:
        context.close()
    return seen


@pytest.mark.slow
def test_every_page_a_member_reaches_reads_in_chinese(browser, live_server, db):
    from annotation.demo import DEMO_PROJECT_ZH, demo_zh_project_load
    from annotation.models import GoldenSetVersion, Project
    from evaluation.demo import demo_runs

    demo_zh_project_load()
    project = Project.objects.get(name=DEMO_PROJECT_ZH)
    lead = get_user_model().objects.get(username="lead")
    demo_runs(project=project, version=GoldenSetVersion.objects.get(project=project), by=lead)
    for user in get_user_model().objects.all():  # the demo's password is not the tests'
        user.set_password(PASSWORD)
        user.save()

    allowed = stored_words() | FIELD_NAMES
    found: dict[str, set[str]] = defaultdict(set)
    example: dict[str, str] = {}
    pages = 0
    for username in ("lead", "alice", "viewer"):
        texts = walk(browser, live_server.url, username, f"{live_server.url}/")
        pages += len(texts)
        for url, text in texts.items():
            for match in TOKEN.finditer(text):
                word = match.group().strip(".-")
                before, after = text[max(0, match.start() - 1)], text[match.end() : match.end() + 1]
                if match.group().startswith("--") or before == "{" or before == after == '"':
                    continue  # a command's option, a template's placeholder, a JSON key: code
                if word.lower() in allowed or CODE_LIKE.fullmatch(word) or len(word) < 2:
                    continue
                if urlsplit(url).path.endswith(TYPED_WORDS.get(word.lower(), ("\0",))):
                    continue
                found[word].add(f"{username} {urlsplit(url).path}")
                around = text[max(0, match.start() - 30) : match.end() + 30]
                example.setdefault(word, " ".join(around.split()))
    assert pages > 30, f"the walk reached only {pages} pages"
    report = "\n".join(
        f"{word!r} on {len(where)} page(s): {', '.join(sorted(where)[:3])}: «{example[word]}»"
        for word, where in sorted(found.items(), key=lambda item: -len(item[1]))
    )
    assert not found, f"{len(found)} English words on Chinese pages:\n{report}"
