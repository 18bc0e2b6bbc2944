"""The refusal a command handler (or a look-up it makes) raises for a command it cannot do."""


class CommandRefused(Exception):
    """A command that cannot be done; the message is for the player and says what would be
    accepted.  Raised by handlers; the dispatcher turns it into an error line."""
