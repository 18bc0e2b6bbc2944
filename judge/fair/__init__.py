"""Fair power assignment: preference lists, weighted lotteries, commit-reveal numbers and
the blinded assignment of blind games.  Pure code: no I/O, no clock, randomness injected."""
