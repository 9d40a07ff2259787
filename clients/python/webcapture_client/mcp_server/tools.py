"""The tools the MCP server offers: one entry each, in TOOLS.

An entry is a name, the description the model chooses by, its input schema and how it runs. Most tools
are one call to one endpoint (`endpoint_tool`): the schema is that endpoint's request model, the arguments
are the body, the answer is shaped for the model. A tool that follows a job (a crawl that runs for minutes)
gives its own `run`, which may call the API several times and report progress as the job advances.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from mcp_types import ContentBlock, TextContent, Tool, ToolAnnotations

from webcapture_client.mcp_server import answers, jobs, monitor_runs, paging
from webcapture_client.mcp_server.api import Run, ToolApi, ToolFailure
from webcapture_client.mcp_server.schemas import request_schema, schema_source

Shape = Callable[[dict[str, Any]], list[ContentBlock]]

_NO_FIELDS: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class ToolEntry:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    run: Run
    read_only: bool = True  # false: the call stores something (a file, a monitor) for the user
    # The route whose request model is the input schema, and the fields the tool sets itself (left out of
    # the schema): what the e2e test compares with the OpenAPI document.
    path: str | None = None
    fixed: Mapping[str, Any] = field(default_factory=lambda: _NO_FIELDS)
    destructive: bool = False  # true: the call deletes something of the user's

    def listing(self) -> Tool:
        return Tool(name=self.name, title=self.title, description=self.description,
                    input_schema=self.input_schema,
                    annotations=ToolAnnotations(title=self.title, read_only_hint=self.read_only,
                                                destructive_hint=self.destructive, idempotent_hint=False,
                                                open_world_hint=True))


def one_call(path: str, shape: Shape, fixed: Mapping[str, Any], accept: str) -> Run:
    """POST the arguments (with the tool's own fields over them) to `path`; the answer's data, shaped."""

    async def run(api: ToolApi, arguments: dict[str, Any]) -> list[ContentBlock]:
        answer = await api.post(path, {**arguments, **fixed}, accept=accept)
        return shape(api.data(answer))

    return run


def paged(name: str, run: Run) -> Run:
    """`run` with maxChars and offset: its first block (the text) cut to the window; the answer cached a
    while (maxAge, unless given) so that reading on is served the same text."""

    async def paged_run(api: ToolApi, arguments: dict[str, Any]) -> list[ContentBlock]:
        arguments = dict(arguments)
        try:
            window = paging.Window.take(arguments)
        except paging.PagingError as error:
            raise ToolFailure(str(error)) from None
        arguments.setdefault("maxAge", paging.READ_ON_MAX_AGE_S)
        blocks = await run(api, arguments)
        if blocks and isinstance(blocks[0], TextContent):
            blocks[0] = TextContent(text=window.cut(blocks[0].text, name))
        return blocks

    return paged_run


def endpoint_tool(name: str, title: str, description: str, path: str, shape: Shape, *,
                  fixed: Mapping[str, Any] = _NO_FIELDS, accept: str = "application/json",
                  read_only: bool = True, text: bool = False) -> ToolEntry:
    """A tool that is one call to POST `path`, typed by that endpoint's request model; `text`: its answer
    is text a model reads, paged by maxChars and offset."""
    _check_source(name, path, fixed)
    schema = request_schema(name)
    run = one_call(path, shape, MappingProxyType(dict(fixed)), accept)
    if text:
        schema["properties"].update(paging.SCHEMA_PROPERTIES)
        run = paged(name, run)
    return ToolEntry(name, title, description, schema, run, read_only, path, MappingProxyType(dict(fixed)))


def _check_source(name: str, path: str, fixed: Mapping[str, Any]) -> None:
    """The static schema must be the one of this route without exactly the fields the tool sets."""
    if schema_source(name) != (path, tuple(fixed)):
        raise LookupError(f"tool_schemas.json's {name} is not POST {path} without {sorted(fixed)}: "
                          "run `make tool-schemas`")


_PAGE = ("The page is loaded in a real browser (headless Chromium; its scripts run). Page options every "
         "tool takes: waitUntil, waitForSelector (wait for an element), waitTime (extra ms), scrollPage "
         "(lazy content), blockAds, blockCookieBanners, hideSelectors, device ('iPhone 15 Pro'), "
         "colorScheme, locale, timezoneId, userAgent, headers, cookies, authenticate. Only public http(s) "
         "pages can be loaded.")
_TEXT = ("The answer is at most maxChars characters (20,000 by default, up to 100,000): a longer one is cut "
         "at a line boundary and its last line gives the offset to call again with, to read on (the same "
         "text, from the cache, at no cost). ")

SCREENSHOT = endpoint_tool(
    "screenshot", "Screenshot a web page",
    "Take a screenshot of a web page and see it as an image. Use it to look at a page's layout, design or "
    "visual state (what a user sees); to read its text, markdown is cheaper and more exact. By default the "
    "whole page is captured (screenshotOptions.fullPage true), which for long pages is a very tall image: "
    "set screenshotOptions.fullPage false to see the first screen only. viewport {width, height, "
    "deviceScaleFactor} sets the window (1280x800 by default); screenshotOptions.selector captures one "
    "element; screenshotOptions.type 'jpeg' or 'webp' with quality makes smaller images. The image is also "
    "stored: its permanentUrl is in the answer. " + _PAGE + " Costs 1 credit.",
    "/v1/web/screenshot", answers.screenshot, fixed={"base64": True}, read_only=False)

MARKDOWN = endpoint_tool(
    "markdown", "Read a web page as Markdown",
    "Read a web page as Markdown: its main content (the article, product or documentation) with navigation, "
    "ads, footers and comments removed, and text hidden from readers left out. The best tool to read, quote "
    "or summarise a page. onlyMainContent false keeps everything visible on the page. Very long pages are "
    "cut (metadata.truncated). " + _TEXT + _PAGE + " Costs 1 credit.",
    "/v1/web/markdown", answers.markdown, text=True)

CONTENT = endpoint_tool(
    "content", "Get a web page's rendered HTML",
    "The HTML of a web page after its scripts ran (the rendered DOM, serialised). Use it when the markup "
    "itself matters: attributes, element structure, forms, embedded data, meta tags. To read the text, use "
    "markdown: HTML is many times longer. " + _TEXT + _PAGE + " Costs 1 credit.",
    "/v1/web/content", answers.content, text=True)

LINKS = endpoint_tool(
    "links", "List the links on a web page",
    "Every link on a web page after it rendered: absolute http(s) URLs with their visible text, without "
    "duplicates, in document order, counted as internal (same site) or external. Use it to find a site's "
    "pages (docs sections, articles, products) before reading them with markdown. includeExternal false "
    "keeps only the site's own links. " + _TEXT + _PAGE + " Costs 1 credit.",
    "/v1/web/links", answers.as_json, text=True)

EXTRACT = endpoint_tool(
    "extract", "Extract data from a web page with an AI model",
    "Extract structured data from a web page with an AI model run by the service: give prompt (what to "
    "extract) and, for a fixed shape, response_format {type: 'json_schema', schema: <JSON Schema>}; the "
    "answer is JSON validated against that schema. responseType 'text' answers in prose instead (without a "
    "prompt: a summary of the page); instructions adds guidance. The model sees the page's main content as "
    "Markdown. Use it for many fields or many similar pages; for one page you read yourself, markdown is "
    "cheaper. " + _TEXT + _PAGE + " Costs 5 credits.",
    "/v1/web/ai-extract", answers.extract, text=True)

PDF = endpoint_tool(
    "pdf", "Print a web page to PDF",
    "Print a web page to a PDF file, as Chromium prints it: pdfOptions sets format (A4 by default, Letter, "
    "Legal, A3, A5, Tabloid), landscape, margin, scale, pageRanges, printBackground. The PDF is stored and "
    "the answer is a link to it (with its size and page count) to give the user; the PDF's text is not "
    "returned (use markdown to read the page). " + _PAGE + " Costs 1 credit.",
    "/v1/web/pdf", answers.pdf, fixed={"base64": False}, accept="application/json", read_only=False)

MAP = endpoint_tool(
    "map", "List a site's URLs",
    "The URLs of a whole site, without loading its pages in a browser: from its robots.txt Sitemap lines, "
    "its sitemaps (indexes and gzip included) and the links on its start page, canonicalised and without "
    "duplicates. Use it first when asked about a site rather than one page, then read the pages you need "
    "with markdown. search keeps URLs (or link texts) containing a word; limit (default 1,000, at most "
    "5,000) caps the list; sitemap 'skip' uses the start page's links only, 'only' the sitemaps only; "
    "includeSubdomains adds the site's subdomains. Only public http(s) sites. Costs 1 credit.",
    "/v1/web/map", answers.as_json)

BATCH = ToolEntry(
    "batch", "Run one operation on many pages",
    "Run one operation (screenshot, links, ai-extract, markdown, content or pdf) on up to 1,000 pages as "
    "one asynchronous job: requests is a list of that operation's request bodies (each at least {url}). The "
    "tool follows the job and reports its progress; it answers the job's status and first page of results, "
    "or, when the job runs longer than a tool call may, its jobId to look at later with job_status. "
    "Screenshots and PDFs are stored and answered as permanentUrl links. Each item costs what its "
    "operation costs; failed items are refunded.",
    request_schema("batch"), jobs.start_and_follow("/v1/batch"), read_only=False, path="/v1/batch")

CRAWL = ToolEntry(
    "crawl", "Crawl a whole site",
    "Read many pages of one site as an asynchronous job: from url, it follows the site's links (and its "
    "sitemaps) up to limit pages (default 100, at most 100,000) and maxDepth link hops (default 5), each "
    "page once, loaded in the browser and answered as formats (markdown by default; links, html, "
    "screenshot, json with extract {prompt}). includePaths / excludePaths are globs on the path (* within "
    "a segment, ** across: '/docs/**'), never regular expressions. robots.txt is obeyed. The tool follows "
    "the crawl and reports its progress; it answers the job's status and first page of results, or, when "
    "it runs longer than a tool call may, its jobId to look at later with job_status. Use map first to "
    "see a site's URLs, and crawl to read them. Costs 1 credit a page (6 with json); limit x that is "
    "reserved and what is not used comes back.",
    request_schema("crawl"), jobs.start_and_follow("/v1/web/crawl"), read_only=False,
    path="/v1/web/crawl")

JOB_STATUS = ToolEntry(
    "job_status", "Look at a job",
    "The status and results of a job started by the batch or crawl tool: status (queued, running, completed, "
    "failed, cancelled), the counts done and failed, and results in index order, limit (1-100, default 50) "
    "at a time; pass the answer's next as cursor for the following page. Free.",
    {"type": "object", "required": ["jobId"], "properties": {
        "jobId": {"type": "string", "minLength": 1,
                  "description": "the jobId the batch or crawl tool answered with"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "cursor": {"type": "string", "description": "the previous answer's next"}}},
    jobs.look_up())

_MONITOR = ("A monitor checks one page on a schedule with one operation (markdown, screenshot or "
            "ai-extract) and compares each check with the last completed one: changeStatus new, same or "
            "changed, and the diff (markdown: the lines added and removed, as a unified diff; ai-extract: "
            "each changed value by its JSON Pointer, before and after). ")

MONITOR_CREATE = ToolEntry(
    "monitor_create", "Watch a page on a schedule",
    _MONITOR + "Creates one: url, operation, schedule ('rate(1 hour)', 'rate(30 minutes)', or an EventBridge "
    "cron of six fields such as 'cron(0 9 ? * MON-FRI *)', read in timezone, UTC by default; at least once a "
    "minute at most), and request, the operation's own request body without url (for ai-extract, its prompt "
    "and response_format). webhook {url, events} gets monitor.changed (the default), monitor.checked, "
    "monitor.failed. Only public http(s) pages. Free to create; each check costs what its operation costs "
    "(markdown and screenshot 1 credit, ai-extract 5), so choose the schedule with the user. At most 100 "
    "monitors a user.",
    monitor_runs.body_schema("monitor_create", "/v1/monitors", "post"), monitor_runs.create(),
    read_only=False, path="/v1/monitors")

MONITOR_LIST = ToolEntry(
    "monitor_list", "List your monitors",
    "Every monitor of the user, oldest first: its monitorId, url, operation, schedule, enabled and nextRunAt "
    "(when it checks next). Free.",
    {"type": "object", "properties": {}}, monitor_runs.list_all())

MONITOR_GET = ToolEntry(
    "monitor_get", "Look at a monitor",
    "One monitor's settings (url, operation, request, schedule, timezone, webhook, enabled) and nextRunAt. "
    "Free.", monitor_runs.id_only_schema(), monitor_runs.get_one())

MONITOR_UPDATE = ToolEntry(
    "monitor_update", "Change a monitor",
    "Change a monitor's schedule, timezone, name, request (replaced whole: give every field it should "
    "keep), webhook (null removes it), diff or enabled (false pauses its schedule; monitor_run still "
    "checks). Its url and operation cannot change: for another page or operation, create a new monitor. "
    "Free.",
    monitor_runs.with_monitor_id(monitor_runs.body_schema("monitor_update", "/v1/monitors/{monitorId}",
                                                          "patch")),
    monitor_runs.update(), read_only=False)

MONITOR_DELETE = ToolEntry(
    "monitor_delete", "Delete a monitor",
    "Delete a monitor and its schedule: it checks no more. Its past checks are not listed any more. Free.",
    monitor_runs.id_only_schema(), monitor_runs.delete(), read_only=False, destructive=True)

MONITOR_RUN = ToolEntry(
    "monitor_run", "Check a monitor now",
    "Queue a check of the monitor now, enabled or not, and answer its checkId; the check runs within about a "
    "minute, then monitor_checks shows it (newest first) with its changeStatus and diff. Costs what the "
    "monitor's operation costs.", monitor_runs.id_only_schema(), monitor_runs.run_now(), read_only=False)

MONITOR_CHECKS = ToolEntry(
    "monitor_checks", "Read a monitor's checks",
    "A monitor's checks, newest first: each with status (queued, completed, failed), changeStatus (new, "
    "same, changed), diff, the operation's answer as data, creditsCost and error. limit (1-100) checks at "
    f"a time, {monitor_runs.DEFAULT_CHECKS} by default (each check holds the page's whole answer); pass the "
    "answer's next as cursor for older ones. Free.",
    monitor_runs.id_only_schema(limit={"type": "integer", "minimum": 1, "maximum": 100},
                                cursor={"type": "string", "description": "the previous answer's next"}),
    monitor_runs.checks())

MONITOR_TOOLS: tuple[ToolEntry, ...] = (MONITOR_CREATE, MONITOR_LIST, MONITOR_GET, MONITOR_UPDATE,
                                        MONITOR_DELETE, MONITOR_RUN, MONITOR_CHECKS)

TOOLS: tuple[ToolEntry, ...] = (MARKDOWN, SCREENSHOT, LINKS, EXTRACT, CONTENT, PDF, MAP, CRAWL, BATCH,
                                JOB_STATUS, *MONITOR_TOOLS)

