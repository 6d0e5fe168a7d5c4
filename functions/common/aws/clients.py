"""boto3 clients for the functions that use AWS (JobsFunction, BatchFunction).

One client per service and endpoint, made on first use: AWS_ENDPOINT_URL may point at a local
stand-in (kibitz/local/aws.py's moto server), and the same code then talks to it.
"""

import os

import boto3  # at import, so Lambda's init phase pays for it rather than the first request
from botocore.config import Config

_clients = {}


def client(service):
    """One boto3 client per service and endpoint, made on first use (AWS_ENDPOINT_URL may point at moto)."""
    key = (service, os.environ.get("AWS_ENDPOINT_URL"), os.environ.get("AWS_DEFAULT_REGION"))
    if key not in _clients:
        _clients[key] = boto3.client(service, config=Config(retries={"mode": "standard", "max_attempts": 3},
                                                            connect_timeout=5, read_timeout=20))
    return _clients[key]
