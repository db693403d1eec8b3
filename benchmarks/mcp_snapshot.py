"""MCP snapshots: our ``browser_observe`` against the Playwright MCP server's own
``browser_snapshot``, same pages, same run, both driven through the MCP SDK's client.

Pages: the generated corpus (benchmarks/corpus), the MCP test pages (tests/pages/mcp;
languages.html has a select of 120 options, more than the agent reads inline),
the demo shop's pages (the shop the README and benchmarks/explore.py use), five
MiniWoB++ tasks (seed 0, started by a script added to the page so that both
servers only have to open a URL) and, with ``--arena-instance N``, the biggest list
pages of a running arena instance.

Ours runs in process (the SDK's in-memory client) with its own Chromium; theirs is
``@playwright/mcp`` on Debian's Chromium (``--executable-path``, ``--headless``,
``--isolated``, same viewport), spoken to over a stdio pipe by the same SDK. Per page,
after a warm-up call, the two sides alternate ``--runs`` timed calls each:
  ours   = browser_observe with the budget lifted (max_tokens=100000), so the whole
           tree is measured, every option of every select listed (the default
           budget, 4,000 tokens, is shown beside it);
  theirs = browser_snapshot.
Tokens: the whole text of each tool result (headers, fences, URLs), counted with the
SmolLM2 tokenizer. Coverage: each interactive element of their snapshot (a line with
a ref and a control role, and each option of a select, which has no ref) is found in
ours with the same role and name; an option counts when our select line lists it.

Playwright MCP is installed once with npm into a folder outside the repository:

    npm install --prefix ~/.cache/colorbrowser/playwright-mcp @playwright/mcp@0.0.83
    PYTHONPATH=src python benchmarks/mcp_snapshot.py [--runs 5] [--arena-instance 5]

The last line is ``mcp: pages N, token_ratio X, time_ratio Y, coverage Z%``
(ratios: ours over theirs, summed over the pages).
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import re
import statistics
import sys
import time
from collections import Counter
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.memory import create_connected_server_and_client_session
from rich.console import Console
from rich.table import Table

from colorbrowser.browser.launch import find_chromium
from colorbrowser.config import BrowserSettings, Settings
from colorbrowser.llm.tokens import count_tokens, tokenizer_name
from colorbrowser.mcp.server import ServerConfig, build_server
from colorbrowser.static_server import StaticServer, send_html

HERE = Path(__file__).parent
ROOT = HERE.parent
PW_VERSION = "0.0.83"
DEFAULT_PW_DIR = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) \
    / "colorbrowser" / "playwright-mcp"
CORPUS = ["big.html", "article.html", "table.html", "admin.html", "frames.html"]
TEST_PAGES = ["mcp/list.html", "mcp/form.html", "mcp/languages.html", "browser/actions.html"]
# The demo shop (src/colorbrowser/demo/site): its pages fill themselves in by script.
SHOP = ["index.html", "category.html?c=Shoes", "product.html?id=5", "search.html?q=socks",
        "cart.html", "checkout.html"]
MINIWOB = ["book-flight", "email-inbox", "social-media-all", "click-checkboxes-large",
           "enter-date"]
# The biggest pages of each arena app a visitor can open without logging in.
ARENA = {"shop": "/catalogue/", "forum": "/", "trac": "/report/1",
         "wiki": "/index.php?title=Special:AllPages", "tracker": "/issues?per_page=100"}
READY_TITLE = "bench-ready"
# Started in the page's own load handler, so the task is on screen once the page has
# loaded; the countdown display is frozen so the two sides read the same text.
START_SCRIPT = """<script>
window.addEventListener('load', () => {
  Math.seedrandom(0); core.EPISODE_MAX_TIME = 600000; core.startEpisodeReal();
  const ready = () => { if (WOB_TASK_READY !== true) return setTimeout(ready, 10);
    clearInterval(core.CD_TIMER); document.title = '""" + READY_TITLE + """'; };
  ready();
});
</script>"""

# Roles of elements a client acts on (ARIA names, as both snapshots print them).
CONTROLS = {"link", "button", "textbox", "searchbox", "combobox", "listbox", "checkbox",
            "radio", "switch", "slider", "spinbutton", "tab", "menuitem", "menuitemcheckbox",
            "menuitemradio", "treeitem", "option"}
SAME_ROLE = {"searchbox": "textbox", "menuitemcheckbox": "menuitem",
             "menuitemradio": "menuitem"}
# <input type=color>: Playwright calls it a textbox, Chromium's tree (and ours) a button.
ALSO_AS = {"textbox": "button"}
_THEIRS = re.compile(r'^\s*- (\'?)(\w+)(?: "((?:[^"\\]|\\.)*)")?(.*)$', re.M)
_OURS = re.compile(r"^\s*\*?\[\w+\] (\w+)(?: ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"))?(.*)$",
                   re.M)
_OPTIONS = re.compile(r"options=(\[.*?\])(?: \(\+\d+ more\))?(?:$| )")


_ICONS = re.compile("[\ue000-\uf8ff]")  # icon fonts draw from the private use area


def _norm(role: str, name: str) -> tuple[str, str]:
    """Role and name as both sides should agree on them: icon glyphs carry no name."""
    return SAME_ROLE.get(role, role), " ".join(_ICONS.sub("", name).split()).casefold()[:100]


def their_controls(snapshot: str) -> Counter:
    out: Counter = Counter()
    for m in _THEIRS.finditer(snapshot):
        quoted, role, name, rest = m.groups()
        # A control has a ref; the options of a select have none, and count too.
        if role in CONTROLS and ("[ref=" in rest or role == "option"):
            text = json.loads(f'"{name}"') if name else ""
            if quoted:  # a YAML single-quoted line doubles its quotes
                text = text.replace("''", "'")
            out[_norm(role, text)] += 1
    return out


def our_controls(tree: str) -> Counter:
    out: Counter = Counter()
    for m in _OURS.finditer(tree):
        role, quoted, rest = m.group(1), m.group(2), m.group(3)
        name = ast.literal_eval(quoted) if quoted else ""
        if role in CONTROLS:
            out[_norm(role, name)] += 1
        if (opts := _OPTIONS.search(rest)) is not None:
            for label in ast.literal_eval(opts.group(1)):
                out[_norm("option", label)] += 1
        if ": " in rest and role in CONTROLS and not name:  # a folded text is the name
            out[_norm(role, rest.split(": ", 1)[1])] += 1
    return out


@dataclass
class Page:
    name: str
    url: str
    ours_ms: list[float] = field(default_factory=list)
    theirs_ms: list[float] = field(default_factory=list)
    ours_tokens: int = 0
    capped_tokens: int = 0
    theirs_tokens: int = 0
    controls: int = 0
    covered: int = 0
    misses: list[str] = field(default_factory=list)


def _text(result) -> str:
    if result.isError:
        raise RuntimeError("\n".join(c.text for c in result.content if c.type == "text"))
    return "\n".join(c.text for c in result.content if c.type == "text")


async def measure(page: Page, ours: ClientSession, theirs: ClientSession, runs: int,
                  wait_title: str | None) -> None:
    _text(await ours.call_tool("browser_act", {"action": f"goto('{page.url}')"}))
    _text(await theirs.call_tool("browser_navigate", {"url": page.url}))
    deadline = time.monotonic() + 20
    while wait_title:  # a MiniWoB task starts in the page's load handler
        mine = _text(await ours.call_tool("browser_observe", {"depth": 1}))
        other = _text(await theirs.call_tool("browser_snapshot", {}))
        if wait_title in mine and wait_title in other:
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"{page.name}: the task did not start")
        await anyio.sleep(0.05)
    full = {"max_tokens": 100_000}
    _text(await ours.call_tool("browser_observe", full))  # warm-up, both sides
    _text(await theirs.call_tool("browser_snapshot", {}))
    mine = other = ""
    for _ in range(runs):
        started = time.perf_counter()
        mine = _text(await ours.call_tool("browser_observe", full))
        page.ours_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        other = _text(await theirs.call_tool("browser_snapshot", {}))
        page.theirs_ms.append((time.perf_counter() - started) * 1000)
    page.ours_tokens = count_tokens(mine)
    page.theirs_tokens = count_tokens(other)
    page.capped_tokens = count_tokens(_text(await ours.call_tool("browser_observe", {})))
    score(page, their_controls(other), our_controls(mine))


def score(page: Page, want: Counter, have: Counter) -> None:
    """How many of their controls are in ours: by role and name, then a control they
    leave unnamed (a link around an image) by role, among ours not matched yet."""
    page.controls = sum(want.values())
    left = Counter(have)
    missing: Counter = Counter()

    def take(key: tuple[str, str], n: int) -> int:
        got = min(n, left[key])
        left[key] -= got
        return got

    for (role, name), n in sorted(want.items(), key=lambda kv: not kv[0][1]):  # named first
        found = take((role, name), n)
        if found < n and role in ALSO_AS:
            found += take((ALSO_AS[role], name), n - found)
        if found < n and not name:
            for key in [k for k in left if k[0] == role and left[k] > 0]:
                found += take(key, n - found)
        page.covered += found
        missing[(role, name)] += n - found
    page.misses = [f"{role} {name!r}" for (role, name), n in missing.items() if n]


def miniwob_routes(root: Path) -> dict:
    def route(task: str):
        html = (root / "miniwob" / f"{task}.html").read_text("utf-8")
        started = html.replace("</body>", START_SCRIPT + "</body>", 1)
        return lambda req: send_html(req, started)
    return {f"/miniwob/{t}-bench.html": route(t) for t in MINIWOB}


def pages(corpus: str, tests: str, shop: str, miniwob: str | None,
          arena_instance: int | None) -> list[tuple[Page, str | None]]:
    out = [(Page(f"corpus/{p}", f"{corpus}/{p}"), None) for p in CORPUS]
    out += [(Page(p, f"{tests}/{p}"), None) for p in TEST_PAGES]
    out += [(Page(f"shop/{p}", f"{shop}/{p}"), None) for p in SHOP]
    if miniwob:
        out += [(Page(f"miniwob/{t}", f"{miniwob}/miniwob/{t}-bench.html"), READY_TITLE)
                for t in MINIWOB]
    if arena_instance is not None:
        from colorbrowser.arena import Arena

        arena = Arena(arena_instance)
        running = {s.app for s in arena.status() if s.running}
        out += [(Page(f"arena/{app}", arena.base_url(app) + path), None)
                for app, path in ARENA.items() if app in running]
    return out


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "n/a"


def report(console: Console, results: list[Page], runs: int) -> str:
    table = Table(title=f"browser_observe (ours) vs browser_snapshot (@playwright/mcp "
                        f"{PW_VERSION}): median ms over {runs} runs; tokens ({tokenizer_name()})")
    for col in ("page", "ours ms", "theirs ms", "time ratio", "ours tokens",
                "ours capped", "theirs tokens", "token ratio", "controls covered"):
        table.add_column(col, justify="left" if col == "page" else "right", no_wrap=True)
    for p in results:
        om, tm = statistics.median(p.ours_ms), statistics.median(p.theirs_ms)
        table.add_row(p.name, f"{om:.0f}", f"{tm:.0f}", ratio(om, tm), f"{p.ours_tokens:,}",
                      f"{p.capped_tokens:,}", f"{p.theirs_tokens:,}",
                      ratio(p.ours_tokens, p.theirs_tokens), f"{p.covered}/{p.controls}")
    console.print(table)
    ours_t = sum(p.ours_tokens for p in results)
    theirs_t = sum(p.theirs_tokens for p in results)
    ours_ms = sum(statistics.median(p.ours_ms) for p in results)
    theirs_ms = sum(statistics.median(p.theirs_ms) for p in results)
    controls = sum(p.controls for p in results)
    covered = sum(p.covered for p in results)
    # Rounded down: 100.0% means every control, not 4,800 of 4,801.
    pct = math.floor(1000 * covered / controls) / 10 if controls else 100.0
    return (f"mcp: pages {len(results)}, token_ratio {ratio(ours_t, theirs_t)}, "
            f"time_ratio {ratio(ours_ms, theirs_ms)}, coverage {pct:.1f}%")


async def run(args, console: Console, cli_js: Path) -> str:
    settings = Settings(browser=BrowserSettings())
    chromium = find_chromium(settings.browser)
    if chromium is None:
        raise SystemExit("error: no Chromium found (install Debian's chromium)")
    vp = f"{settings.browser.viewport_width}x{settings.browser.viewport_height}"
    params = StdioServerParameters(
        command="node", args=[str(cli_js), "--headless", "--isolated", "--no-sandbox",
                              "--executable-path", chromium, "--viewport-size", vp,
                              "--output-dir", str(args.scratch)], cwd=str(args.scratch))
    corpus = StaticServer(HERE / "corpus").start()
    tests = StaticServer(ROOT / "tests" / "pages", token="").start()
    shop = StaticServer(ROOT / "src" / "colorbrowser" / "demo" / "site", token="").start()
    miniwob_server = None
    try:
        from colorbrowser.evaluation.miniwob import html_dir

        root = html_dir()
        miniwob_server = StaticServer(root, routes=miniwob_routes(root)).start()
    except Exception as exc:
        console.print(f"[yellow]MiniWoB++ pages left out: {exc}[/]")
    todo = pages(corpus.url, tests.url, shop.url,
                 miniwob_server.url if miniwob_server else None, args.arena_instance)
    if args.only:
        todo = [(p, w) for p, w in todo if any(o in p.name for o in args.only.split(","))]
    results = []
    try:
        async with AsyncExitStack() as stack:
            ours = await stack.enter_async_context(create_connected_server_and_client_session(
                build_server(ServerConfig(settings=settings))))
            read, write = await stack.enter_async_context(stdio_client(params))
            theirs = await stack.enter_async_context(ClientSession(read, write))
            await theirs.initialize()
            for page, wait in todo:
                await measure(page, ours, theirs, args.runs, wait)
                console.print(f"[dim]{page.name}: {page.ours_tokens:,} vs "
                              f"{page.theirs_tokens:,} tokens[/]")
                results.append(page)
    finally:
        corpus.stop()
        tests.stop()
        shop.stop()
        if miniwob_server is not None:
            miniwob_server.stop()
    line = report(console, results, args.runs)
    if args.show_misses:
        for p in results:
            for miss in p.misses[:30]:
                console.print(f"[yellow]{p.name}[/]: not in ours: {miss}", highlight=False)
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed calls per page and side")
    parser.add_argument("--playwright-mcp", type=Path, default=DEFAULT_PW_DIR,
                        help=f"npm prefix holding @playwright/mcp (default {DEFAULT_PW_DIR})")
    parser.add_argument("--arena-instance", type=int, default=None,
                        help="also measure the list pages of this running arena instance")
    parser.add_argument("--only", default=None, help="comma-separated parts of page names")
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    cli_js = args.playwright_mcp / "node_modules" / "@playwright" / "mcp" / "cli.js"
    if not cli_js.is_file():
        print(f"error: @playwright/mcp is not installed in {args.playwright_mcp}; run: npm "
              f"install --prefix {args.playwright_mcp} @playwright/mcp@{PW_VERSION}",
              file=sys.stderr)
        return 2
    args.scratch = args.playwright_mcp / "output"
    args.scratch.mkdir(parents=True, exist_ok=True)
    console = Console(width=160)
    line = anyio.run(run, args, console, cli_js)
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
