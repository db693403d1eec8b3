"""The model judge: a second opinion after the verifier's deterministic checks.

A role like the others (templates in ``templates/``, a typed reply). It reads the goal
and the evidence first and the agent's own answer last, so the claim does not lead it
(WebJudge's lesson: an answer read first pulls the grader towards "success"). Its
"failure" refutes the claim with its reason; a failed call or an unreadable reply
leaves the deterministic verdict as it was and says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from colorbrowser.agent.verify import Proof
from colorbrowser.agent.verifying import Judge
from colorbrowser.evidence import Evidence, Verification
from colorbrowser.llm.jsonreply import json_object
from colorbrowser.llm.prompts import clip_page
from colorbrowser.llm.role import Role
from colorbrowser.protocols import Model
from colorbrowser.types import Constraint

TEMPLATES = Path(__file__).parent / "templates"
EVIDENCE_LINES = 80
REPLY_SCHEMA: dict[str, Any] = {
    "title": "judge_verdict",
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["success", "failure"]},
        "reason": {"type": "string", "maxLength": 300},
    },
    "required": ["verdict", "reason"],
    "additionalProperties": False,
}


class JudgeReply(BaseModel):
    verdict: Literal["success", "failure"]
    reason: str = ""


def parse_reply(text: str) -> JudgeReply:
    data = json_object(text, "the judge's reply")
    if isinstance(data.get("verdict"), str):
        data["verdict"] = data["verdict"].strip().lower()
    try:
        reply = JudgeReply.model_validate(data)
    except ValidationError:
        raise ValueError('the judge\'s reply must be {"verdict": "success" or "failure", '
                         '"reason": "..."}') from None
    reply.reason = " ".join(str(reply.reason).split())[:300]
    return reply


def evidence_lines(proof: Proof) -> list[str]:
    """Every step's evidence, newest last, cut to the last EVIDENCE_LINES lines."""
    lines = []
    for step in proof.steps:
        action = step.action or "(no valid action)"
        lines.append(f"step {step.step}: {action} on {step.url}")
        if step.evidence is not None:
            lines += [f"  {line}" for line in step.evidence.lines()]
    if proof.tail is not None:
        lines.append("after the last step, before the stop:")
        lines += [f"  {line}" for line in Evidence(late=proof.tail).lines()]
    return lines[-EVIDENCE_LINES:]


class ModelJudge(Judge):
    def __init__(self, model: Model, *, page_chars: int = 3000) -> None:
        self.page_chars = page_chars
        self.role: Role[JudgeReply] = Role(
            model, system="judge_system.j2", user="judge_user.j2", parse=parse_reply,
            templates=[TEMPLATES], constraint=Constraint(json_schema=REPLY_SCHEMA),
            retries=1, max_tokens=200, temperature=0.0)

    def judge(self, proof: Proof, checks: Verification) -> Verification:
        reply = self.role.ask(
            goal=proof.goal, evidence=evidence_lines(proof), url=proof.final.url,
            title=proof.final.title, page=clip_page(proof.final.text, self.page_chars),
            checks=[f"{c.name}: {'passed' if c.passed else 'failed'}" for c in checks.checks],
            # A reason may quote a page (its title, an error text, a request's address).
            reasons=[f"{c.name}: {c.reason}" for c in checks.checks if c.reason],
            answer=proof.answer or "")
        verdict = checks.model_copy(deep=True)
        if reply.value is None:
            verdict.judge = f"no verdict: {reply.error}"
            return verdict
        said = reply.value
        verdict.judge = f"{said.verdict}: {said.reason}"
        if said.verdict == "failure":
            verdict.verdict = "refuted"
            verdict.reasons.append(f"the judge: {said.reason or 'the goal was not achieved'}")
        return verdict
