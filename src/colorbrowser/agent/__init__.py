"""Operator, episode loop, trajectory and prompt templates."""
