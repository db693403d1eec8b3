"""Adaptive Knowledge Base: tips, SQLite store, retrieval cascade."""
