"""The SAM application on this machine, without Docker: the template read (template.py), the functions run
in-process as Lambda runs them (runtime.py), API Gateway's REST and WebSocket APIs played on 127.0.0.1
(apigateway.py, server.py, compression.py; ws_server.py, live_events.py), and the queues, tables and buckets
in moto with local pollers as the SQS event sources (aws.py, eventsource.py, services.py).

It knows nothing of the clients (kibitz/clients/) that talk to it, nor of the command line (kibitz/cli.py)."""
