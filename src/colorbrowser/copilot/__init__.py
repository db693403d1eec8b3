"""Copilot mode (CowPilot): a person and the agent in one browser.

The agent proposes, the gate counts down in a web panel, the person runs, rejects,
edits, pauses and acts in the same browser; their input becomes steps of their own.
"""
