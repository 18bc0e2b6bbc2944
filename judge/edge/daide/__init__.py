"""The DAIDE edge: machine players (bots) in the judge's games over TCP.

One listening port per game with RULE MACHINES, from ``[daide] port_range`` on
``[daide] host`` (an unmodified bot knows only a host and a port, so the port names
the game).  ``DaideEdge`` runs the listeners on an asyncio loop in a thread of
``judge serve``; ``StoreHost`` is a game's ``daide.host.GameHost`` over the store.
Imports no other edge.
"""

from judge.edge.daide.edge import DaideEdge, parse_port_range

__all__ = ["DaideEdge", "parse_port_range"]
