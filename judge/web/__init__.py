"""The read-only web archive of every game (README "Web archive"): pages written as static
files from the store (``build``), atomically (``files``), showing only what is public
(``views``), rendered by ``pages``; served by ``judge serve`` (``server``) or any web
server."""
