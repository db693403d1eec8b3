"""ColorBrowser as an MCP server (``colorbrowser mcp``): observe, act, screenshot, whole
tasks, tips and the arena, for chat assistants, editors and other agents.

Needs the ``mcp`` extra; nothing else in the package imports this one."""
