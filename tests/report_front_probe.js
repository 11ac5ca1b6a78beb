// Injected into a copy of the Snakemake HTML report by tests/pipeline/test_report.py: what a reader
// sees first -- where the front page's title is (in the first screen, its box scrolled to the top),
// whether any block of the front page is wider than its box (clipped) -- then opens a collection's
// Tables and the eye button of its first row: whether the table is shown inline (an HTML page in a
// frame) rather than downloaded.  The findings, as JSON, in a pre element (id metaeval-front-probe)
// for `chromium --dump-dom`.
(function () {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const visible = (e) => e.offsetParent !== null;
  function clickText(text) {
    const els = Array.from(document.querySelectorAll("a, button, li, span, div, td, h1, h2, h3"));
    const el = els.reverse().find((e) => e.textContent.trim() === text && visible(e) && !e.closest("pre, code"));
    if (el) { el.click(); return true; }
    return false;
  }
  function scroller(el) {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p).overflowY;
      if ((s === "auto" || s === "scroll") && p.scrollHeight > p.clientHeight) return p;
    }
    return document.scrollingElement;
  }
  async function probe(category) {
    const out = {errors: []};
    const title = Array.from(document.querySelectorAll("h1")).find(
      (h) => h.textContent.includes("metaeval meta-evaluation report"));
    if (!title) { out.errors.push("no title"); return out; }
    const r = title.getBoundingClientRect();
    out.title_top = r.top;
    out.window_height = window.innerHeight;
    const box = scroller(title);
    box.scrollTop = 0;                       // as far up as a reader can scroll
    await sleep(100);
    out.title_top_scrolled_up = title.getBoundingClientRect().top;
    out.clipped = Array.from(document.querySelectorAll("pre")).filter(
      (p) => visible(p) && p.scrollWidth > p.clientWidth + 1).map((p) => p.textContent.slice(0, 60));
    if (!clickText(category)) { out.errors.push("no category " + category); return out; }
    await sleep(300);
    if (!clickText("Tables")) { out.errors.push("no Tables in " + category); return out; }
    await sleep(300);
    const eyes = Array.from(document.querySelectorAll("a[iconname=eye]")).filter(visible);
    out.tables = eyes.length;
    out.downloads = eyes.filter((a) => a.hasAttribute("download")).length;
    if (eyes.length) {
      eyes[0].click();
      await sleep(500);
      const frames = Array.from(document.querySelectorAll("iframe")).filter(visible);
      out.inline = frames.map((f) => (f.getAttribute("src") || "").slice(0, 15));
    }
    return out;
  }
  window.addEventListener("load", async () => {
    await sleep(500);
    let result;
    try {
      result = await probe(window.METAEVAL_CATEGORY || "");
    } catch (e) {
      result = {errors: ["exception: " + e]};
    }
    const out = document.createElement("pre");
    out.id = "metaeval-front-probe";
    out.textContent = JSON.stringify(result);
    document.body.appendChild(out);
  });
})();
