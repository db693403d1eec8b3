"""Human in the loop: failure triggers, asking a person, copilot gate."""
