"""Model-to-model transforms: one module per pipeline step."""
