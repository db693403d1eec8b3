"""Learned workflows: a proved episode made reusable for a family of goals.

``learn`` turns a run folder into a ``Workflow`` (knowledge/workflow.py), ``instantiate``
fills its parameters for one goal, and the runner (``runner.py``) executes it one
checked step at a time. Workflows live in the knowledge base beside the tips.
"""
