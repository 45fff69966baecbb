"""``altmafia simulate``: many games with automatic players (``table``)."""
