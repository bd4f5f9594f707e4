"""The report's first screen, rendered by a real headless browser.

Skipped (with the reason) when no Chromium is installed; install Debian's
``chromium`` package to run it.  The page has no scripts of its own: the test
loads a copy with a probe script appended, lets the browser lay the page out
and load its images, and reads the probe's findings from the dumped DOM.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from crawlmath.proofs.registry import select
from crawlmath.report import build, figures

BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)

PROBE = """<script>
window.addEventListener('load', () => {
  const s = document.getElementById('summary');
  const r = s ? s.getBoundingClientRect() : null;
  const imgs = [...document.images];
  const dangling = [...document.querySelectorAll("a[href^='#']")]
      .map(a => a.getAttribute('href').slice(1)).filter(id => id && !document.getElementById(id));
  const cards = [...document.querySelectorAll('.card')].map(c => {
      const b = c.getBoundingClientRect(); return {id: c.id, top: b.top, height: b.height}; });
  const out = {summary_top: r ? r.top : null, viewport: window.innerHeight, images: imgs.length,
               broken: imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.getAttribute('src')),
               dangling: dangling, cards: cards};
  const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    if BROWSER is None:
        pytest.skip("no headless browser installed (apt-get install chromium)")
    out = tmp_path_factory.mktemp("report") / "r"
    specs = [s for s in figures.all_figures({"coffman"})][:2]
    build.build(out, select(["coffman.sched"]), figure_specs=specs)
    probe = out / "probe.html"
    probe.write_text((out / "index.html").read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                          "--virtual-time-budget=10000", "--dump-dom", probe.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    m = re.search(r"<pre id=\"probe\">(.*?)</pre>", dom, re.S)
    assert m, "the probe did not run in the browser"
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))


def test_summary_with_every_paper_card_starts_on_the_first_screen(page):
    assert page["summary_top"] is not None and 0 <= page["summary_top"] < page["viewport"]
    assert page["cards"], "no paper card"
    assert all(c["top"] < page["viewport"] for c in page["cards"][:1])


def test_no_image_is_broken(page):
    assert page["images"] >= 1
    assert page["broken"] == []


def test_no_link_dangles(page):
    assert page["dangling"] == []
