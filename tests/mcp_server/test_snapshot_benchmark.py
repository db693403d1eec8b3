"""benchmarks/mcp_snapshot.py: its coverage check reads both snapshot formats soundly,
and without Playwright MCP installed it stops with one line. The token and time
ratios themselves are measured by the script, not here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.browser.test_benchmarks import load

ROOT = Path(__file__).resolve().parents[2]

THEIRS = '''### Snapshot
```yaml
- generic [ref=e1]:
  - link "Home" [ref=e2] [cursor=pointer]:
    - /url: "#home"
  - textbox "Brand colour" [ref=e3]: "#3366cc"
  - combobox "Size" [ref=e4]:
    - option "Small" [selected]
    - option "Large"
  - 'button "Save: now" [ref=e5]'
  - checkbox "Gift \\"wrap\\"" [checked] [ref=e6]
  - cell "Not a control" [ref=e7]
  - button "Only theirs" [ref=e8]
  - 'link "Bob''s topic" [ref=e9]'
  - link "\uf054 Next" [ref=e10]
  - link [ref=e11]:
    - img "Logo"
  - link [ref=e12]
```'''
OURS = """[1] link 'Home'
[2] button 'Brand colour' value='#3366cc'
[3] combobox 'Size' value='Small' options=['Small', 'Large']
[4] button 'Save: now'
[5] checkbox 'Gift "wrap"' checked
cell 'Not a control'
[6] link "Bob's topic"
[7] link 'Next'
[8] link 'Logo'"""


def test_coverage_matches_controls_by_role_and_name_across_the_two_formats():
    bench = load("mcp_snapshot")
    theirs, ours = bench.their_controls(THEIRS), bench.our_controls(OURS)
    # 5 links, textbox, combobox, 2 options, 2 buttons, checkbox
    assert sum(theirs.values()) == 12
    page = bench.Page("sample", "")
    bench.score(page, theirs, ours)
    # The unnamed link around an image is our 'Logo'; the second unnamed one has no
    # counterpart left, nor has their 'Only theirs'.
    assert (page.covered, page.controls) == (10, 12)
    assert sorted(page.misses) == ["button 'only theirs'", "link ''"]


def test_without_playwright_mcp_it_stops_with_one_line(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run([sys.executable, "benchmarks/mcp_snapshot.py", "--playwright-mcp",
                           str(tmp_path / "none")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: @playwright/mcp")
    assert "npm install --prefix" in done.stderr
