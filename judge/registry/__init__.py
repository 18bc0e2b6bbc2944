"""The registry of players (issue 31): a player name chosen by mail (REGISTER), the
addresses linked to it by confirmation, what the player made public (WHOIS, WHOGAME).

``models`` are its tables; ``identity`` answers which player an address belongs to (what
other packages key players on); ``profile`` holds the pure rules of the fields;
``store`` reads and changes the tables for the command modules.
"""
