"""`actions` (docs/actions-and-blocked-pages.md#actions-and-blocked-pages): the caller's steps on the prepared
page, in order, before the output.

Each step has its own time limit (default 5,000 ms) inside what the request has left, less the room the
output needs. A step that fails (no element, an element that never becomes usable, its time runs out) is a
400 ACTION_FAILED naming the step, refunded like every failure.

A step that navigates (a submitted form, a followed link) is waited for: the following steps and the output
run on the new document. Every request the page then makes still goes through the egress proxy, and the
main frame is checked after the work as after any navigation (page/navigation.py), so a click can no more
reach an internal address than the URL itself could.
"""

from __future__ import annotations

from collections.abc import Sequence

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from webcapture.browser.budget import MIN_STEP_MS, Deadline
from webcapture.browser.page.page_motion import MainFrameMotion
from webcapture.browser.page.page_preparation import capture_reserve_ms, is_selector_error
from webcapture.errors import ActionFailed
from webcapture.models.page_actions import Action

_SCROLL_JS = """
([dx, dy]) => { window.scrollBy({left: dx, top: dy, behavior: "instant"}); }
"""
_VIEWPORT_JS = "() => [window.innerWidth, window.innerHeight]"


def run_actions(page: Page, actions: Sequence[Action], deadline: Deadline, motion: MainFrameMotion) -> bool:
    """Run the steps; True when they navigated the main frame (the caller restarts on the new document)."""
    start = motion.moves
    for index, action in enumerate(actions):
        room = deadline.remaining_ms - capture_reserve_ms(deadline)
        if room < MIN_STEP_MS:
            raise deadline.expired()  # the budget ran out, not the step: 504, as for any wait
        timeout = min(action.step_timeout_ms, room)
        if action.type == "wait" and action.selector is None:
            # A pause is as long as asked (its own length, not the step timeout), if the budget has it.
            if (action.ms or 0) >= room:
                raise deadline.expired()
            timeout = room
        before = motion.moves
        try:
            _run(page, action, timeout)
        except PlaywrightTimeoutError:
            raise ActionFailed(f"{action.describe(index)} failed: not done within {round(timeout)} ms "
                               "(no such element, or it never became visible and enabled)") from None
        except PlaywrightError as exc:
            if motion.moves != before:  # the page left under the step (a click that navigates at once)
                motion.settle(deadline)
                continue
            raise ActionFailed(f"{action.describe(index)} failed: {_reason(exc)}") from None
        if motion.moves != before or motion.navigating:
            motion.settle(deadline)
    return motion.moves != start


def _run(page: Page, action: Action, timeout: float) -> None:
    kind = action.type
    selector = f"css={action.selector}" if action.selector is not None else None
    if kind == "click":
        assert selector is not None
        page.click(selector, timeout=timeout)
    elif kind == "type":
        assert selector is not None and action.text is not None
        locator = page.locator(selector).first
        locator.click(timeout=timeout)  # focus, as a person would, before typing
        locator.press_sequentially(action.text, timeout=timeout)
    elif kind == "press":
        assert action.key is not None
        if selector is not None:
            page.press(selector, action.key, timeout=timeout)
        else:
            page.keyboard.press(action.key)
    elif kind == "hover":
        assert selector is not None
        page.hover(selector, timeout=timeout)
    elif kind == "select":
        assert selector is not None and action.value is not None
        page.select_option(selector, value=action.value, timeout=timeout)
    elif kind == "wait":
        if selector is not None:
            page.wait_for_selector(selector, state="visible", timeout=timeout)
        else:
            page.wait_for_timeout(action.ms or 0)
    else:
        _scroll(page, action, selector, timeout)


def _scroll(page: Page, action: Action, selector: str | None, timeout: float) -> None:
    if selector is not None and action.direction is None:
        page.locator(selector).first.scroll_into_view_if_needed(timeout=timeout)
        return
    width, height = page.evaluate(_VIEWPORT_JS)
    direction = action.direction or "down"
    amount = action.amount or (height if direction in ("down", "up") else width)
    dx = {"left": -amount, "right": amount}.get(direction, 0)
    dy = {"up": -amount, "down": amount}.get(direction, 0)
    page.evaluate(_SCROLL_JS, [dx, dy])


def _reason(exc: PlaywrightError) -> str:
    message = exc.message or str(exc)
    if is_selector_error(exc):
        return "the selector is not valid CSS"
    if "Unknown key" in message:
        return message.strip().splitlines()[0][:200]
    if "did not find some options" in message or "not a <select>" in message.lower():
        return "no option with that value (or the element is not a <select>)"
    first = message.strip().splitlines()[0] if message.strip() else "unknown error"
    return first.rsplit(": ", 1)[-1][:200]
