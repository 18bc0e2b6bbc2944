"""The running judge: `serve` (the daemon and its processes), the mail `worker` and its
processes, the `bot_worker`, the hooks they run, the judge key checked at start, the
shunt notices, and the test clock and log throttle they are started with."""
