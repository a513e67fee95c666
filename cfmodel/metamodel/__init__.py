"""Fixed metamodels (PyEcore) and helpers that build derived domain EPackages."""
