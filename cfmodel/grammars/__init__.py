"""textX grammars (``*.tx``) and the code that turns source text into syntax trees."""
