"""The training set: one JSONL line per step, in the chat format common fine-tuning
tools read (OpenAI-style ``messages``), with the outcome and the screenshot path
beside it. The page text is fenced in the user turn as the agent's prompts fence it;
the action is the assistant turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from colorbrowser.agent.trajectory import read_steps
from colorbrowser.llm.prompts import render

TEMPLATES = Path(__file__).parent / "templates"


def lines(folder: Path) -> list[dict[str, Any]]:
    out = []
    system = render("dataset_system.j2", [TEMPLATES])
    for step in read_steps(folder):
        if not step.get("action") or not step.get("observation"):
            continue
        result = step.get("result") or {}
        info = result.get("info") or {}
        out.append({
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": render(
                             "dataset_user.j2", [TEMPLATES], observation=step["observation"])},
                         {"role": "assistant", "content": step["action"]}],
            "step": step.get("step"),
            "action": step["action"],
            "outcome": {"ok": result.get("ok", True), "error": result.get("error"),
                        "url": result.get("output"), "changes": step.get("changes"),
                        "verdict": (info.get("verdict") or {}).get("text")},
            "screenshot": step.get("screenshot"),
        })
    return out


def write_dataset(folder: Path, name: str = "dataset.jsonl") -> int:
    rows = lines(folder)
    with open(Path(folder) / name, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(rows)
