"""`kibitz`: run the SAM application on this machine without Docker (see cli.py)."""
