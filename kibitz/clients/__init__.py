"""Clients of the API and what they print: batch jobs (batch.py), game reviews and their graphs (review.py,
review_graph.py), the live stream (live.py, live_view.py), an analysis as text (text.py).

They talk to a URL, or to the local stack (kibitz/local/) run in this process when no URL is given; the
local stack never imports them."""
