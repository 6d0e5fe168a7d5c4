"""Code the Lambda functions share: adapters between AWS and the engine, no chess of its own.

    models.py       the analysis API's request and answer models, and the error body
    http.py         the error format, InputError, the route checks (form bodies, query parameters),
                    the API handler's decorators, Swagger on demand
    budget.py       the time and the hash table a search may use on Lambda
    init_phase.py   the collector off during a function's init
    telemetry.py    an analysis's metrics and log line (AnalyzeFunction, BatchFunction)
    positions.py    a job's positions from a list, EPD or PGN (read by engine/epd.py, engine/pgn.py), checked
    job_models.py   POST /jobs and GET /jobs/{job_id}: request and answers
    job_routes.py   the jobs routes, declared once: JobsFunction serves them, AnalyzeFunction's /swagger
                    documents them
    job_limits.py   what one job, and one API key in a day, may ask (search time, jobs)
    job_queue.py    the queue message, and sending positions to the queue
    job_store.py    the results table (DynamoDB)
    job_submit.py   submit(): check, record, queue
    worker.py       BatchFunction's work on one queue record
    review_report.py  a review job's game summaries and annotated PGN (engine/review.py, annotated_pgn.py)
    analysis_cache.py engine.analyse() through the shared analysis cache: the deep-enough rule, poison guard
    cache_store.py  the analysis cache's table (DynamoDB), fail-fast
    dynamodb_lite.py  a stdlib DynamoDB client (SigV4) for the cache: no boto3 in AnalyzeFunction
    clients.py      boto3 clients

On Lambda this package comes from CommonLayer (layers/common/Makefile ships it as
/opt/python/functions/common); locally it is imported from the project. It never imports kibitz;
only clients.py imports boto3 (job_store, job_submit); models.py loads no compiled engine code.
"""
