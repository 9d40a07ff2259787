"""The scripts the service runs in a loaded page to read it: its links, and its visible DOM as HTML.

Shared by the single-page operations (browser/links.py, browser/page_load.py) and the crawl
(site/crawl_page.py), which reads links and Markdown from one loaded page.
"""

# Walks the document in order; a same-origin frame's links take the frame element's place in that order
# (a cross-origin frame's contentDocument is null and is skipped). Returns [url, text, internal, ...] flat.
# - href via the element's own property: the browser resolves it against the document's base URL;
#   an SVG <a> has an object there, so it is resolved by hand; it has no innerText either, so its text is
#   its textContent.
# - the fragment is everything after the first '#' of a serialised URL.
# - text is the rendered text (innerText), whitespace collapsed; innerText of an element that is not
#   rendered at all (display: none) is its raw source text, which is not visible text, so it counts as "".
# - internal: same host as the top document's final URL, a leading "www." ignored on both sides.
EXTRACT_LINKS_JS = r"""
() => {
  const siteHost = (host) => host.toLowerCase().replace(/\.$/, "").replace(/^www\./, "");
  // The host of a serialised http(s) URL: after "//", past any user info, up to the port or path.
  const HOST = /^https?:\/\/(?:[^@\/?#]*@)?(\[[^\]]*\]|[^:\/?#]*)/;
  const pageHost = siteHost(location.hostname);
  const collapse = (value) => (value ? value.replace(/\s+/g, " ").trim() : "");
  const out = [];
  const seen = new Map();
  const visit = (doc) => {
    for (const el of doc.querySelectorAll("a[href], area[href], iframe, frame")) {
      const tag = el.localName;
      if (tag === "iframe" || tag === "frame") {
        let inner = null;
        try { inner = el.contentDocument; } catch (e) { inner = null; }
        if (inner) visit(inner);
        continue;
      }
      let href = el.href;
      if (typeof href !== "string") {  // SVG <a>: an animated string, resolved by hand
        try { href = new URL(el.getAttribute("href"), doc.baseURI).href; } catch (e) { continue; }
      }
      if (!href.startsWith("http:") && !href.startsWith("https:")) continue;
      const hash = href.indexOf("#");
      if (hash >= 0) href = href.slice(0, hash);
      let text = "";
      if (el.checkVisibility()) text = collapse(el.innerText ?? el.textContent);
      if (!text) text = collapse(el.getAttribute("aria-label")) || collapse(el.getAttribute("title"));
      const at = seen.get(href);
      if (at === undefined) {
        const host = HOST.exec(href);
        seen.set(href, out.length);
        out.push(href, text, host && siteHost(host[1]) === pageHost ? 1 : 0);
      } else if (!out[at + 1] && text) {
        out[at + 1] = text;
      }
    }
  };
  visit(document);
  return JSON.stringify(out);
}
"""


# Computed style is the only reliable test: class rules, media queries and scripts all end up there. A
# heading's permalink that a theme shows only on hover is kept: it holds no text but its mark (the
# Markdown writer drops it by its class or its mark), and its class is how a documentation layout
# without a generator <meta> is known (content/docs_layouts.py: MkDocs' own theme, Sphinx themes).
REMOVE_INVISIBLE_JS = """
() => {
  // Its text: nothing, one mark, or one icon font's glyph (Unicode's private use area: MkDocs' theme).
  const mark = /^[\\u00b6#\\u00a7\\u{1F517}\\u200b\\uE000-\\uF8FF]?$/u;
  const permalink = (element) => element.tagName === "A"
      && (element.getAttribute("href") || "").startsWith("#") && mark.test(element.textContent.trim());
  const hidden = [];
  for (const element of document.body ? document.body.querySelectorAll("*") : []) {
    const style = getComputedStyle(element);
    if ((style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse"
        || style.opacity === "0" || parseFloat(style.fontSize) === 0) && !permalink(element)) {
      hidden.push(element);
    }
  }
  for (const element of hidden) element.remove();
  return hidden.length;
}
"""


# page.content(), but cut in the browser: a page can build a DOM of any size, and all of it would otherwise
# cross to Python and go through the HTML parser before the Markdown budget applies. What the Markdown step
# drops anyway (scripts, styles, embedded documents; ai/page_content.py) is removed first so that it does
# not use up the limit; the start of a page is where its main content usually is, and the parser closes
# whatever the cut leaves open.
SERIALIZE_JS = """
(limit) => {
  // On a detached copy: removing styles from the live page would move its layout, and lazy images
  // that came into view would load (and the page would no longer be the one captured).
  const root = document.documentElement ? document.documentElement.cloneNode(true) : null;
  for (const element of root ? root.querySelectorAll(
      "script, style, noscript, template, svg, canvas, iframe, frame, frameset, object, embed") : []) {
    element.remove();
  }
  const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : "";
  const html = doctype + (root ? root.outerHTML : "");
  return {html: html.length > limit ? html.slice(0, limit) : html, length: html.length};
}
"""
