"""The prompt-growth benchmark runs end to end and ends with its contract line."""

import importlib.util
import re
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "prompt_growth.py"


def test_short_run_prints_the_flatness_line(capsys):
    spec = importlib.util.spec_from_file_location("prompt_growth", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--steps", "8"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    m = re.fullmatch(r"flatness summary=(\d+\.\d\d) full=(\d+\.\d\d)", last)
    assert m, last
    assert float(m.group(2)) > float(m.group(1))  # full history grows faster
