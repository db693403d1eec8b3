"""Pages for people: an episode's trace as one self-contained HTML file."""
