"""The `.cf` language: resolve, lift, conditions, the compiler (refine), instance checks, `.ecore` import."""
