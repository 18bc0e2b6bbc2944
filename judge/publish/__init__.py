"""What the judge publishes to a game's list: broadcasts, signatures, phase records."""
