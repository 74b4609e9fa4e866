"""Benchmarks that print their figures (run them with ``pi-table bench``)."""

import statistics


def percentiles(seconds: list[float], digits: int = 3) -> dict[str, float]:
    """p50 and p99 of durations given in seconds, in milliseconds (p99 never above the max)."""
    cuts = statistics.quantiles([s * 1000 for s in seconds], n=100, method="inclusive")
    return {"p50_ms": round(cuts[49], digits), "p99_ms": round(cuts[98], digits)}
