"""blockCookieBanners (docs/api.md#page-control): consent pop-ups refused where the banner allows, else
hidden, with DuckDuckGo's autoconsent (npm @duckduckgo/autoconsent, the rule library their browsers use),
fetched at build time into the page-filters folder (webcapture.browser.filters.filter_lists).

autoconsent ships a bundle made for Playwright: it runs in each document, detects the consent manager
(OneTrust, Cookiebot, Didomi and some 800 rules), and clicks through to "reject all", or hides the banner
where a rule is cosmetic only. It talks to its host through two page globals; our bootstrap (an init script
before the bundle) answers its "init" in the page itself, with the rules and an opt-out configuration, and
passes its progress reports to Python through one exposed binding. Rule snippets run in the page's own
world (`isMainWorld`, where Playwright's init scripts run), so no eval round trips through Python.

`settle_cookie_banners` then waits, within the request's deadline and a short cap of its own, until the
top document's run has finished (nothing found, opted out, or failed) and no frame is half-way through a
banner. A banner whose refusal failed or did not finish in time is hidden with its rule's own selectors.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from playwright.sync_api import BrowserContext, Frame, Page
from playwright.sync_api import Error as PlaywrightError

from webcapture.browser.budget import MIN_STEP_MS, Deadline
from webcapture.browser.filters.filter_lists import AUTOCONSENT_RULES, AUTOCONSENT_SCRIPT, filter_file

log = logging.getLogger(__name__)

BINDING = "__webcaptureConsent"
# The longest settle_cookie_banners waits after the load: banners that take longer are left to the capture
# as they are (the time is the caller's, not ours to spend on a stubborn pop-up).
SETTLE_CAP_S = 4.0
_POLL_MS = 50
# autoconsent's lifecycle (lib/types.ts LifecycleState): where a run ends, and where it is mid-banner.
_FINISHED = frozenset({"nothingDetected", "optOutSucceeded", "optOutFailed", "done"})
_MID_BANNER = frozenset({"openPopupDetected", "runningOptOut"})
# autoconsent looks again only after the page's DOM changed (lib/web.ts findCmp): a document that has been
# looked at twice and then stayed still this long can show no banner, even if autoconsent waits on.
_QUIET_S = 1.0

# autoconsent's Config (lib/types.ts): opt out; pre-hide known banners while working; cosmetic (hide-only)
# rules where no reject path exists; no heuristic clicking of unknown buttons; few retries (each waits
# 500 ms and a DOM change), so a busy page without any consent manager is done looking in about 2.5 s.
_CONFIG = {
    "enabled": True,
    "autoAction": "optOut",
    "disabledCmps": [],
    "enablePrehide": True,
    "enableCosmeticRules": True,
    "enableGeneratedRules": True,
    "enableHeuristicDetection": False,
    "detectRetries": 4,
    "isMainWorld": True,
    "prehideTimeout": 2000,
    "logs": {name: False for name in
             ("lifecycle", "rulesteps", "detectionsteps", "evals", "errors", "messages", "waits")},
}

# Runs before the bundle in every document. The bundle sends "init" from its constructor, before it has
# set autoconsentReceiveMessage, hence the microtask. Frames get only the rules that run in frames (the
# compact rule set is sorted that way: see its "index").
_BOOTSTRAP = """(() => {
    const ruleset = %(rules)s, config = %(config)s, binding = %(binding)s;
    const top = window.top === window;
    const [first, end] = ruleset.index.frameRuleRange;
    const rules = {v: ruleset.v, s: ruleset.s, r: top ? ruleset.r : ruleset.r.slice(first, end)};
    let last = '';
    // A page's first, empty document (about:blank) runs the bundle too, and never finishes: not reported.
    const web = location.protocol === 'http:' || location.protocol === 'https:';
    const tell = (message) => {
        if (!web) return;
        try { window[binding](message); } catch (e) { /* the binding is gone: the page is closing */ }
    };
    window.autoconsentSendMessage = (message) => {
        if (message.type === 'init') {
            const answer = {type: 'initResp', config, rules: {compact: rules}};
            queueMicrotask(() => window.autoconsentReceiveMessage(answer));
        } else if (message.type === 'report') {
            const {lifecycle, findCmpAttempts: attempts} = message.state;
            if (lifecycle + attempts !== last) {  // only what changed: reports come on every state update
                last = lifecycle + attempts;
                tell({type: 'report', id: message.instanceId, top, lifecycle, attempts});
            }
        } else if (['popupFound', 'optOutResult', 'autoconsentDone'].includes(message.type)) {
            tell({type: message.type, cmp: message.cmp, result: message.result, top});
        }
        return Promise.resolve();
    };
})();
"""

_HIDE = """(selectors) => {
    const sheet = new CSSStyleSheet();
    for (const selector of selectors) {
        try {
            sheet.insertRule(selector + ' { display: none !important; }', sheet.cssRules.length);
        } catch (e) { /* not CSS this browser knows */ }
    }
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}"""


@dataclass
class ConsentLog:
    """What autoconsent reported in one context (the binding's callbacks run on the browser thread, the
    reader too; the lock keeps it right should that ever change)."""

    lifecycles: dict[str, str] = field(default_factory=dict)  # instance -> its latest lifecycle
    attempts: dict[str, tuple[int, float]] = field(default_factory=dict)  # instance -> detections, when
    top_instance: str | None = None  # the latest top document's instance
    seen_top: set[str] = field(default_factory=set)
    popups: dict[str, list[Frame]] = field(default_factory=dict)  # cmp -> frames that showed its banner
    refused: set[str] = field(default_factory=set)  # cmps whose opt-out succeeded
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, frame: Frame, message: dict[str, Any]) -> None:
        with self.lock:
            kind = message.get("type")
            if kind == "report":
                instance = str(message.get("id"))
                self.lifecycles[instance] = str(message.get("lifecycle"))
                attempts = message.get("attempts")
                attempts = attempts if isinstance(attempts, int) else 0  # the page can call the binding too
                if self.attempts.get(instance, (0, 0.0))[0] != attempts:
                    self.attempts[instance] = (attempts, time.monotonic())
                if message.get("top") and instance not in self.seen_top:  # a new top document
                    self.top_instance = instance
                    self.seen_top.add(instance)
            elif kind == "popupFound":
                self.popups.setdefault(str(message.get("cmp")), []).append(frame)
            elif kind == "optOutResult" and message.get("result") is True:
                self.refused.add(str(message.get("cmp")))

    def settled(self) -> bool:
        with self.lock:
            top = self.top_instance
            if top is None or any(state in _MID_BANNER for state in self.lifecycles.values()):
                return False
            if self.lifecycles.get(top) in _FINISHED:
                return True
            attempts, since = self.attempts.get(top, (0, 0.0))
            still = self.lifecycles.get(top) == "started" and attempts >= 2
            return still and time.monotonic() - since >= _QUIET_S

    def unrefused(self) -> dict[str, list[Frame]]:
        with self.lock:
            return {cmp: frames for cmp, frames in self.popups.items() if cmp not in self.refused}


_logs: weakref.WeakKeyDictionary[BrowserContext, ConsentLog] = weakref.WeakKeyDictionary()


@lru_cache(maxsize=1)
def _rules() -> dict[str, Any]:
    rules: dict[str, Any] = json.loads(filter_file(AUTOCONSENT_RULES).read_text(encoding="utf-8"))
    return rules


@lru_cache(maxsize=1)
def _init_script() -> str:
    bootstrap = _BOOTSTRAP % {
        "rules": json.dumps(_rules(), separators=(",", ":")),
        "config": json.dumps(_CONFIG),
        "binding": json.dumps(BINDING),
    }
    return bootstrap + "\n" + filter_file(AUTOCONSENT_SCRIPT).read_text(encoding="utf-8")


def enable_cookie_banner_handling(context: BrowserContext) -> None:
    """At context creation: autoconsent in every document of the context, reporting to Python."""
    consent = ConsentLog()
    _logs[context] = consent

    def on_message(source: dict[str, Any], message: Any) -> None:
        if isinstance(message, dict):
            consent.record(source["frame"], message)

    context.expose_binding(BINDING, on_message)
    context.add_init_script(script=_init_script())


def consent_log(context: BrowserContext) -> ConsentLog | None:
    """What autoconsent reported in this context (None where it was not enabled)."""
    return _logs.get(context)


def settle_cookie_banners(page: Page, deadline: Deadline, *, cap_s: float = SETTLE_CAP_S) -> None:
    """After the load: wait (at most cap_s, never past the deadline) until the banners are refused, hidden,
    or known absent; then hide what could not be refused."""
    consent = _logs.get(page.context)
    if consent is None:
        return
    give_up = time.monotonic() + cap_s
    while not consent.settled():
        left_ms = min(deadline.remaining_ms - MIN_STEP_MS, (give_up - time.monotonic()) * 1000)
        if left_ms <= 0:
            log.info("consent banners not settled in time on %s", page.url)
            break
        # Waiting inside Playwright is what lets it deliver the binding's calls.
        page.wait_for_timeout(min(_POLL_MS, left_ms))
    _hide_unrefused(consent)


def _hide_unrefused(consent: ConsentLog) -> None:
    """Banners whose refusal failed or did not finish: hidden with their rule's own pre-hide selectors."""
    for cmp, frames in consent.unrefused().items():
        selectors = _prehide_selectors(cmp)
        log.info("consent banner %s not refused; hiding it with %d selectors", cmp, len(selectors))
        if not selectors:
            continue
        for frame in frames:
            with contextlib.suppress(PlaywrightError):  # the frame has gone, and its banner with it
                frame.evaluate(_HIDE, selectors)


def _prehide_selectors(cmp: str) -> list[str]:
    """The pre-hide selectors of a compact rule (lib/encoding.ts: [version, name, cosmetic, urlPattern,
    runContext, prehideSelectors as indexes into the strings, ...])."""
    rules = _rules()
    strings: list[str] = rules["s"]
    for rule in rules["r"]:
        if rule[1] == cmp:
            return [strings[i] if isinstance(i, int) else str(i) for i in rule[5]]
    return []
