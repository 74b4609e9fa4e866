"""Real hardware backends, one file each (hardware libraries are imported lazily inside them), and
what each is set up with (``settings``), which the configuration checks without loading them."""
