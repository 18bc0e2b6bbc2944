"""DAIDE, the Diplomacy AI Development Environment protocol: tokens, framing, the
typed message tree, rendering of the game's state as DAIDE messages, translating
orders both ways, and asyncio client and server connections.

Imports only ``adjudicator`` and the standard library; the judge's edge
(``judge/edge/daide``) puts a store behind the server's ``GameHost`` interface.
"""
