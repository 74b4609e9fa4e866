"""Real hardware backends, one file each; hardware libraries are imported lazily inside them."""
