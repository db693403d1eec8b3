"""Placeholder until task synthesis lands."""
