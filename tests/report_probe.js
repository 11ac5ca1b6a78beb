// Injected into a copy of the Snakemake HTML report by tests/pipeline/test_report.py: navigates the report
// like a user (category -> "Figures" -> the eye button of every row), records for each figure
// whether the browser decoded the PNG (naturalWidth > 0) and whether its caption is shown, and
// writes the findings as JSON into a pre element (id metaeval-probe) for `chromium --dump-dom`.
(function () {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const visible = (e) => e.offsetParent !== null;
  function clickText(text) {
    const els = Array.from(document.querySelectorAll("a, button, li, span, div, td, h1, h2, h3"));
    // a menu entry or button, not the same word in a code block (the front page's effective
    // configuration names every collection: "simA" is a YAML key there too)
    const el = els.reverse().find((e) => e.textContent.trim() === text && visible(e) && !e.closest("pre, code"));
    if (el) { el.click(); return true; }
    return false;
  }
  async function probe(categories) {
    const found = [];
    const errors = [];
    for (const cat of categories) {
      clickText("Results");
      await sleep(200);
      if (!clickText(cat)) { errors.push("no category " + cat); continue; }
      await sleep(300);
      if (!clickText("Figures")) { errors.push("no Figures in " + cat); continue; }
      await sleep(300);
      const rows = Array.from(document.querySelectorAll("tr")).filter(
        (tr) => tr.querySelector("a[iconname=eye]"));
      for (const tr of rows) {
        const label = Array.from(tr.querySelectorAll("td")).map((td) => td.textContent.trim())
          .filter((t) => t).join("/");
        tr.querySelector("a[iconname=eye]").click();
        await sleep(300);
        const imgs = Array.from(document.querySelectorAll("img")).filter(
          (i) => i.src.startsWith("data:image/png") && visible(i));
        const width = imgs.length ? Math.max(...imgs.map((i) => i.naturalWidth)) : 0;
        const info = tr.querySelector("a[iconname=information-circle]");
        let caption = "";
        if (info) {
          info.click();
          await sleep(300);
          caption = document.body.innerText;
        }
        found.push({category: cat, label: label, width: width,
                    caption_has_paper: /Sakai \(20\d\d[ab]?\)/.test(caption)});
      }
    }
    return {found: found, errors: errors};
  }
  window.addEventListener("load", async () => {
    await sleep(500);
    let result;
    try {
      result = await probe(window.METAEVAL_CATEGORIES || []);
    } catch (e) {
      result = {found: [], errors: ["exception: " + e]};
    }
    const out = document.createElement("pre");
    out.id = "metaeval-probe";
    out.textContent = JSON.stringify(result);
    document.body.appendChild(out);
  });
})();
