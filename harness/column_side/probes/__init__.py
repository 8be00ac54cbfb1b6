"""What every probe shares, whatever its framework: the fixture world and counts (``kit``) and the plain loopback
server of the wire probes (``wire``)."""
