"""skdp's benchmark harness: ``python -m benchmarks [name] [options]``."""
