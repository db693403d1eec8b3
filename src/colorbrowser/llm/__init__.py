"""Model clients for OpenAI-compatible endpoints, and the offline default server."""
