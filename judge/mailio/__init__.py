"""Mail as values and bytes: the stored inbound mail (`inbound`), reading raw mail within
limits (`read`, `policy`), whether to answer at all (`loopguard`), who sent it
(`senders`), outgoing mail built and queued (`outgoing`) from templates (`render`)."""
