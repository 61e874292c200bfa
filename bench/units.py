"""Shared by the bench summaries: sizes as the docs write them."""


def size(b):
    """`b` bytes as "N MiB", "N KiB" or "N B" (whole units, rounded down)."""
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n:
            return f"{b // n} {unit}"
    return f"{b} B"
