"""The live stream over WebSocket (LiveFunction, LiveControlFunction): its messages (messages.py), the
posting and pacing of info messages (stream.py), the connections table that carries a stop (connections.py)."""
