"""Workflows exported and imported as readable YAML; a hostile file is refused with one
line and nothing is stored."""

from __future__ import annotations

import pytest
import yaml

from colorbrowser.errors import UserError
from colorbrowser.knowledge.workflow_exchange import (
    FILE_LIMIT,
    dump_yaml,
    export_file,
    import_file,
    read_workflows_file,
)

from .test_workflow_store import SITE, owner_flow


def test_export_then_import_gives_the_same_workflows_and_the_same_bytes(kb, tmp_path, db_path):
    first = kb.add_workflow(owner_flow())
    kb.record_workflow_run(first.id, success=True, healed=1)
    kb.new_workflow_version(first.id, owner_flow())
    path = tmp_path / "flows.yaml"
    assert export_file(kb, path) == 2
    text = path.read_text()
    assert "goal_pattern: 'Who owns ticket #{{ticket}}?'" in text  # readable
    other = type(kb).open(tmp_path / "other.db", embeddings=False)
    result = import_file(other, path)
    assert len(result.added) == 2
    assert other.list_workflows(include_inactive=True) == kb.list_workflows(include_inactive=True)
    assert dump_yaml(other.list_workflows(include_inactive=True)) == text
    other.close()


def hostile(tmp_path, flows: list) -> str:
    path = tmp_path / "hostile.yaml"
    path.write_text(yaml.safe_dump({"workflows": flows}))
    return str(path)


def entry(**changes) -> dict:
    return owner_flow().model_dump(mode="json") | {"id": "wf-x"} | changes


@pytest.mark.parametrize("steps, message", [
    ([{"step": "import os"}], "workflow step"),
    ([{"step": {"shell": "rm -rf /"}}], "names exactly one action"),
    ([{"step": "click('12')"}], "by its id"),
    ([{"step": {"goto": "file:///etc/passwd"}}], "opens only http"),
    ([{"step": {"goto": "http://evil.example/steal"}}], "not on the workflow's site"),
    ([{"step": {"new_tab": f"http://{SITE}.evil.example/"}}], "not on the workflow's site"),
    ([{"step": {"random": {"seed": 1, "step": 1}}}], "random"),
])
def test_a_hostile_step_is_refused_with_one_line_and_nothing_is_stored(kb, tmp_path, steps,
                                                                      message):
    good = entry(id="wf-good")
    path = hostile(tmp_path, [good, entry(steps=steps)])
    with pytest.raises(UserError, match=message) as caught:
        import_file(kb, path)
    assert "\n" not in str(caught.value) and str(caught.value).startswith(f"{path}:")
    assert kb.list_workflows(include_inactive=True) == []


def test_an_alias_bomb_a_huge_file_and_foreign_tags_are_refused(kb, tmp_path):
    bomb = tmp_path / "bomb.yaml"
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    bomb.write_text("\n".join(lines) + "\nworkflows: [*a8]\n")
    with pytest.raises(UserError, match="aliases expand"):
        read_workflows_file(bomb)
    huge = tmp_path / "huge.yaml"
    huge.write_text("workflows: []\n" + "#" * FILE_LIMIT)
    with pytest.raises(UserError, match="too big"):
        read_workflows_file(huge)
    tagged = tmp_path / "tagged.yaml"
    tagged.write_text("workflows:\n- !!python/object/apply:os.system ['true']\n")
    with pytest.raises(UserError, match="invalid YAML"):
        read_workflows_file(tagged)
    assert kb.list_workflows() == []


def test_a_file_of_tips_or_of_anything_else_is_not_taken_for_workflows(tmp_path):
    other = tmp_path / "tips.yaml"
    other.write_text("- id: tip-1\n  site: shop.local\n")
    with pytest.raises(UserError, match="one key 'workflows'"):
        read_workflows_file(other)
    other.write_text("workflows: []\nshell: sh\n")
    with pytest.raises(UserError, match="one key 'workflows'"):
        read_workflows_file(other)


def test_a_duplicate_id_in_a_file_is_refused(kb, tmp_path):
    path = hostile(tmp_path, [entry(), entry()])
    with pytest.raises(UserError, match="appears twice"):
        import_file(kb, path)


@pytest.mark.parametrize("changes", [
    {"steps": [{"step": {"fill": {"role": "textbox", "name": "Comment"},
                         "value": "{{secret:bank_password}}"}}]},
    {"steps": [{"step": {"fill": {"role": "textbox", "name": "Comment"},
                         "value": "PIN {{ Secret:pin }}"}}]},
    {"params": {"ticket": "{{secret:bank_password}}"}},
])
def test_a_file_may_not_choose_a_secret_to_type_unless_you_wrote_it(kb, tmp_path, changes):
    """A workflow runs without a model: a sent file that names a secret would have it
    typed into any field of the secret's own site, a public comment box too."""
    path = hostile(tmp_path, [entry(id="wf-good"), entry(**changes)])
    with pytest.raises(UserError, match=r"names a secret") as caught:
        import_file(kb, path)
    assert "\n" not in str(caught.value) and str(caught.value).startswith(f"{path}:")
    assert kb.list_workflows(include_inactive=True) == []
    if "steps" in changes:  # your own export of a sign-in workflow comes back
        assert len(import_file(kb, path, with_secrets=True).added) == 2


def test_an_id_with_a_line_break_at_its_end_is_refused(kb, tmp_path):
    with pytest.raises(UserError, match="workflow id"):
        import_file(kb, hostile(tmp_path, [entry(id="wf-x\n")]))
    assert kb.list_workflows(include_inactive=True) == []
