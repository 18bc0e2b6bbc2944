"""The judge's bot at the table (pure: the board and the press record in, press out):
`negotiator` (its answers to PCE, ALY and DMZ proposals, its own proposals and what it
remembers of them, the agreements it hands to the strategic bot) and `offers` (what it
offers a friend, read off the board: the common threat, the contested border)."""
