"""Seed content for the arena apps, composed deterministically from templates and word banks.

Every generator takes its own ``random.Random(seed)``: never the global one, so a build
gives the same rows whatever else ran before it. The output is plain data (dicts and
lists) that each app's seed script, running in the app's own environment, writes
through the app's API.
"""
