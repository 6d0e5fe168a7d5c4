"""Batch jobs (JobsFunction, BatchFunction): the API's models, limits and routes, the queue, the results
table (table.py: no knowledge of job kinds) and the reads that tell the kinds apart (store.py), submission,
the worker, a job's positions and a review's report. s3/ holds jobs read from an object in S3; it imports
from here (models, table, limits) and store.py and submit.py import it, nothing else does."""
