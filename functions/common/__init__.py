"""Code the Lambda functions share: adapters between AWS and the engine, no chess of its own.

Packages by concern; imports run one way, down this list (tests/test_imports.py checks it):

    settings.py   every KIBITZ_* setting, read in one place; SettingError names a missing variable
    aws/          clients.py (boto3 clients, one per service and endpoint: JobsFunction, BatchFunction),
                  dynamodb_lite.py (a stdlib DynamoDB client for the cache: no boto3 in AnalyzeFunction)
    api/          models.py (the analysis API's request and answer models, the error body), http.py (the
                  error format, InputError, route checks, the handler decorators, Swagger), init_phase.py,
                  telemetry.py (an analysis's metrics and log line)
    analysis/     request.py (analyse_request: a request analysed as the API does, for all four callers),
                  budget.py (time, threads and hash a search may use), cache.py (engine.analyse() through
                  the shared cache), cache_store.py (the cache's table), cache_batch.py (a chunk's entries
                  read and written in batches)
    jobs/         batch jobs: models, limits, routes, queue, table.py (the results table, no knowledge of job
                  kinds), store.py (a job read as GET /jobs answers it, either kind), submit, worker,
                  positions, review_report; s3/ below it: jobs read from an object in S3
    live/         the WebSocket stream: messages, stream (posting), connections (the stop flag's table)

On Lambda this package comes from CommonLayer (layers/common/Makefile ships it as
/opt/python/functions/common); locally it is imported from the project. It never imports kibitz.
boto3 clients are built by aws/clients.py and, with the short timeouts a live search needs, by
live/connections.py (DynamoDB) and live/stream.py (the WebSocket management API); boto3 is imported at
first use there, so that LiveFunction without a table never loads it. api/models.py loads no compiled
engine code.
"""
