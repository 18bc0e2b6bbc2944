"""Players across games (issue 31 items 2-4): records, dedication and ratings, all computed
from the stored games (docs/ratings.md).

Pure: ``facts`` (the frozen values read from the store), ``tally`` (a player's record),
``dedication`` (the punctuality score), ``rating`` (the multiplayer rating).  I/O: ``reading``
(the store as those values), ``records`` (``record_of`` for WHOIS), ``keeping`` (what the
turn path writes: punctuality per phase, ratings at a game's end, the rebuild),
``restrictions`` (RULE MIN_DEDICATION / MIN_RATING checked at JOIN).
"""
