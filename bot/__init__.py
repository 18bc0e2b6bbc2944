"""Machine players: a strategic bot (value map + Refined Evolutionary Search), a DumbBot-style
bot and a RandomBot, all playing through our own adjudicator.

Pure: imports the adjudicator and the standard library only.  ``bot.game.play`` plays a
whole game in process; ``benchmarks.arena`` measures the players against each other.
"""
