"""`scrollPage` (docs/api.md#page-control): scroll through the page so lazy content loads, wait for the images
that appeared, return to the top.

One evaluate does it all, in the page, against a time limit it is given (evaluate takes no timeout; the
watchdog still covers a page that never yields). Each step scrolls one viewport down and waits two
animation frames: IntersectionObserver callbacks, and Chromium's own `loading=lazy` (built on the same
observer), are delivered in the rendering update after a scroll, so after two frames every target that
came into view has been told and has set its src. The page may grow while it is scrolled (infinite
feeds), so the number of steps is capped. Images still loading are then waited for (their load or error
event), within what is left of the limit. A page that fits its viewport takes no step at all.

Walking a tall page costs a couple of frames per viewport, so a page with nothing to load lazily is not
walked: no `loading=lazy` element, no IntersectionObserver observing anything (counted by an init script
installed with the context, `watch_lazy_loading`), and no scroll listener on the window or the document
(counted by the same script, so an old-style loader that watches scroll events is still served).
"""

from __future__ import annotations

from playwright.sync_api import BrowserContext, Page

from webcapture.browser.budget import Deadline

# An infinite feed would grow forever; this many viewports is far more than any capture shows.
MAX_STEPS = 60
# The scroll and the image wait together, at most (less when the request's budget is shorter).
MAX_SCROLL_MS = 8_000

# Counts, in every frame from the first script on, the targets IntersectionObservers are asked to watch and
# the scroll listeners added to the window or the document (what lazy loaders use).
_WATCH_JS = """
(() => {
  let watchers = 0;
  const proto = window.IntersectionObserver && IntersectionObserver.prototype;
  if (proto) {
    const observe = proto.observe;
    proto.observe = function (target) { watchers += 1; return observe.call(this, target); };
  }
  const listen = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, ...rest) {
    if ((this === window || this === document) && (type === "scroll" || type === "wheel")) watchers += 1;
    return listen.call(this, type, ...rest);
  };
  Object.defineProperty(document, "__webcaptureWatchers", { value: () => watchers });
})();
"""

_SCROLL_JS = """
async ([maxSteps, limitMs]) => {
  const lazy = document.querySelector("[loading=lazy]") || window.onscroll || document.onscroll
    || (document.__webcaptureWatchers ? document.__webcaptureWatchers() > 0 : true);
  if (!lazy) return 0;  // nothing on the page would load on scrolling: no walk
  const started = performance.now();
  const left = () => limitMs - (performance.now() - started);
  const frames = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const root = document.scrollingElement || document.documentElement;
  const step = Math.max(window.innerHeight, 1);
  let steps = 0;
  while (steps < maxSteps && left() > 0 && window.scrollY + window.innerHeight < root.scrollHeight - 1) {
    window.scrollBy(0, step);
    steps += 1;
    await frames();
  }
  const pending = Array.from(document.images).filter((img) => img.currentSrc && !img.complete);
  const settled = Promise.all(pending.map((img) => new Promise((done) => {
    img.addEventListener("load", done, {once: true});
    img.addEventListener("error", done, {once: true});
  })));
  const outcome = await Promise.race([
    settled.then(() => 0),
    new Promise((done) => setTimeout(() => done(-1), Math.max(left(), 0))),
  ]);
  window.scrollTo(0, 0);
  await frames();
  const stillLoading = Array.from(document.images).filter((img) => img.currentSrc && !img.complete).length;
  return outcome === 0 ? 0 : stillLoading;
}
"""


def watch_lazy_loading(context: BrowserContext) -> None:
    """Before navigation: lets `scroll_through` tell whether the page observes anything."""
    context.add_init_script(_WATCH_JS)


def scroll_through(page: Page, deadline: Deadline, reserve_ms: float) -> int:
    """Scroll the page; the number of images still loading when the time ran out (0: all loaded)."""
    limit = min(MAX_SCROLL_MS, max(deadline.remaining_ms - reserve_ms, 0))
    still_loading: int = page.evaluate(_SCROLL_JS, [MAX_STEPS, limit])
    return still_loading

