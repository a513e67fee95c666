"""cfmodel: declarative infrastructure configuration models, the model-driven way."""
