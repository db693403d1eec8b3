"""Adaptive Knowledge Base: site-level tips, a SQLite store, and the retrieval cascade.

The agent loop needs only::

    kb = KnowledgeBase.open(path, readonly=frozen)
    for r in kb.search(obs.url, goal, k=3, token_budget=400): ...   # r.tip, r.score, r.why
    kb.record_retrieval(ids); kb.record_outcome(ids, success=True)   # when not frozen
    kb.shortcuts_for(url); expand_shortcut(tip, query="blue mug")

Importing this package stays cheap: the embedding model loads on the first search.
"""

from colorbrowser.knowledge.exchange import (
    TipFileError,
    dump_markdown,
    dump_yaml,
    load_markdown,
    load_yaml,
    read_tips_file,
)
from colorbrowser.knowledge.lint import Finding, lint
from colorbrowser.knowledge.patterns import PatternError, compile_pattern, match
from colorbrowser.knowledge.retrieve import Retrieved, estimate_tokens, prompt_text
from colorbrowser.knowledge.review_queue import QueueItem
from colorbrowser.knowledge.shortcuts import ShortcutError, expand_shortcut
from colorbrowser.knowledge.store import (
    ImportResult,
    KnowledgeBase,
    ReadOnlyError,
    TipExists,
    TipNotFound,
    default_db_path,
)
from colorbrowser.knowledge.tip import InvalidTip, Tip, TipStats, make_tip
from colorbrowser.knowledge.workflow import Workflow, WorkflowStep
from colorbrowser.knowledge.workflow_store import (
    InvalidWorkflow,
    WorkflowExists,
    WorkflowNotFound,
)

__all__ = [
    "Finding",
    "ImportResult",
    "InvalidTip",
    "InvalidWorkflow",
    "KnowledgeBase",
    "PatternError",
    "QueueItem",
    "ReadOnlyError",
    "Retrieved",
    "ShortcutError",
    "Tip",
    "TipExists",
    "TipFileError",
    "TipNotFound",
    "TipStats",
    "Workflow",
    "WorkflowExists",
    "WorkflowNotFound",
    "WorkflowStep",
    "compile_pattern",
    "default_db_path",
    "dump_markdown",
    "dump_yaml",
    "estimate_tokens",
    "expand_shortcut",
    "lint",
    "load_markdown",
    "load_yaml",
    "make_tip",
    "match",
    "prompt_text",
    "read_tips_file",
]
