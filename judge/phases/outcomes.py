"""What one scheduler pass did with one game (the words of ``judge tick``'s report)."""

PROCESSED = "processed"
PREVIEWED = "previewed"
NOTIFIED = "notified"  # reminders, late notices, dismissals, grace charges
WAITED = "waited"  # nothing to say (DELAY counted down, or not yet time)
SKIPPED = "skipped"  # another pass had it, or it is no longer due
FAILED = "failed"
