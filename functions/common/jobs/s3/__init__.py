"""Jobs read from an object in S3 (issue 35): the source checked (source.py), submitted (submit.py) or
dropped (drop.py), cut into chunks (split.py), each chunk analysed (chunk.py), the output joined
(output.py), the counts in the results table (jobs.py), the state GET /jobs answers (state.py), the
queue's messages (messages.py), the models (models.py), BatchFunction's side (worker.py)."""
