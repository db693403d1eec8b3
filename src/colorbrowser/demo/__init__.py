"""A small local shop and a one-command demo of the whole agent on it."""
