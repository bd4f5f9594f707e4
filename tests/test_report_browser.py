"""The report's first screen, rendered by a real headless browser (Debian's ``chromium``).

CI installs Chromium (.ci/run) and sets ``CRAWLMATH_REQUIRE_BROWSER=1``: there
a missing browser is a failure, not a skip.  Elsewhere the tests skip with the
reason when no Chromium is installed.  The page has no scripts of its own: the
test loads a copy with a probe script appended, lets the browser lay the page
out and load its images (name resolution is disabled: nothing outside the
report folder can load), and reads the probe's findings from the dumped DOM.
The report is a real one: claims of all four papers run, two figures drawn,
written into ``site/report`` so that its docs links are ``../papers/NAME.html``.
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from crawlmath.proofs.registry import PAPERS, select
from crawlmath.report import build, catalogue

BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
REQUIRED = os.environ.get("CRAWLMATH_REQUIRE_BROWSER") == "1"
# one quick claim or two per paper: a PASS table cell, ERRATA and a FAIL, so cards, errata and the FAIL list render
CLAIMS = ["liu-nain.static.eq-1.8", "liu-nain.static.table-1.1.g0.5.K10", "coffman.sched.thm-5.1",
          "avrachenkov.cor-1.w2", "buijsrogge.colours.eq-3.2"]
VIEWPORT = (1280, 900)

PROBE = """<script>
window.addEventListener('load', () => {
  const box = el => { const b = el.getBoundingClientRect(); return {top: b.top, bottom: b.bottom, height: b.height}; };
  const s = document.getElementById('summary');
  const imgs = [...document.images];
  const dangling = [...document.querySelectorAll("a[href^='#']")]
      .map(a => a.getAttribute('href').slice(1)).filter(id => id && !document.getElementById(id));
  const out = {summary: s ? box(s) : null, viewport: window.innerHeight, images: imgs.length,
               broken: imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.getAttribute('src')),
               dangling: dangling,
               glance: [...document.querySelectorAll('table.glance tr[id]')].map(r => ({id: r.id, text: r.innerText, ...box(r)})),
               cards: [...document.querySelectorAll('.card')].map(c => ({id: c.id, counts: c.querySelector('.counts').innerText, ...box(c)})),
               links: [...document.querySelectorAll("a[href]:not([href^='#'])")].map(a => a.getAttribute('href')),
               docs: [...document.querySelectorAll('a.docs')].map(a => a.getAttribute('href')),
               sources: [...document.querySelectorAll('[src], link[href]')].map(e => e.getAttribute('src') || e.getAttribute('href')),
               loaded: imgs.map(i => i.currentSrc)};
  const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    if BROWSER is None:
        if REQUIRED:
            pytest.fail("CRAWLMATH_REQUIRE_BROWSER=1 but no chromium is installed (apt-get install chromium)")
        pytest.skip("no headless browser installed (apt-get install chromium)")
    out = tmp_path_factory.mktemp("site") / "report"
    claims = [c for c in select(CLAIMS) if c.id in CLAIMS]
    specs = catalogue.all_figures({"coffman"})[:2]
    data = build.build(out, claims, figure_specs=specs)
    return out, data


@pytest.fixture(scope="module")
def page(report, tmp_path_factory):
    out, _ = report
    probe = out / "probe.html"
    probe.write_text((out / "index.html").read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    profile = tmp_path_factory.mktemp("chromium-profile")
    dom = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                          f"--user-data-dir={profile}", "--host-resolver-rules=MAP * ~NOTFOUND",
                          f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}", "--virtual-time-budget=10000",
                          "--dump-dom", probe.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    m = re.search(r"<pre id=\"probe\">(.*?)</pre>", dom, re.S)
    assert m, "the probe did not run in the browser"
    return json.loads(html.unescape(m.group(1)))


def test_first_screen_shows_what_holds_for_every_paper(report, page):
    """The summary starts on the first screen, and so does every paper's line of
    counts, with the numbers of the claims run (not just any text)."""
    _, data = report
    top, viewport = page["summary"]["top"], page["viewport"]
    assert 0 <= top < viewport
    papers = [s for s in data.summaries() if s.total]
    assert [g["id"] for g in page["glance"]] == [f"glance-{s.paper}" for s in papers] and len(papers) == len(PAPERS)
    for g, s in zip(page["glance"], papers):
        assert g["bottom"] <= viewport, f"{g['id']} below the first screen"
        assert re.findall(r"\d+", g["text"].split("\t", 1)[1])[:4] == [str(n) for n in (s.total, s.passed, s.errata, s.failed)]
    assert [c["id"] for c in page["cards"]] == [f"card-{s.paper}" for s in papers]
    assert page["cards"][0]["top"] < viewport
    for c, s in zip(page["cards"], papers):
        assert f"{s.passed} PASS" in c["counts"] and f"{s.failed} FAIL" in c["counts"] and c["height"] > 0


def test_no_image_is_broken(page):
    assert page["images"] == 2
    assert page["broken"] == []


def test_no_link_dangles_and_nothing_outside_the_report_loads(report, page):
    out, _ = report
    assert page["dangling"] == []
    assert page["sources"] and all(not re.match(r"[a-z]+:|/", src) for src in page["sources"]), page["sources"]
    assert page["loaded"] and all(u.startswith(out.as_uri() + "/figures/") for u in page["loaded"]), page["loaded"]
    assert all(not re.match(r"[a-z]+:|/", href) for href in page["links"]), "a link leaves the report's relative tree"


def test_every_paper_links_to_its_docs_page(report, page):
    """Three relative links per paper (its line, its card, its claims) to the docs
    site the report sits in (``../papers/NAME.html``), never followed here."""
    _, data = report
    expected = sorted(f"../papers/{s.paper}.html" for s in data.summaries() if s.total for _ in range(3))
    assert sorted(page["docs"]) == expected
