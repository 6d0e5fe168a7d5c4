"""API Gateway's response compression, for `kibitz serve`.

With `MinimumCompressionSize` set on the API (template.yaml, KibitzApi), API Gateway compresses an
answer when the request's Accept-Encoding names a coding it supports (gzip, deflate), the function's
response has no Content-Encoding of its own, and the body has at least that many bytes. The same rule
here makes what a browser receives locally, and so the page's measured size, what it receives on AWS.
"""

import gzip
import zlib

from kibitz.local import template

CODINGS = ("gzip", "deflate")  # API Gateway's, in the order it prefers them


def minimum_size(path=template.TEMPLATE):
    """The template's API's MinimumCompressionSize (bytes), or None when compression is off."""
    value = template.api_setting("MinimumCompressionSize", path)
    return int(value) if value is not None else None


def accepted_coding(accept_encoding):
    """The coding API Gateway would use for this Accept-Encoding header, or None."""
    offered = {}
    for item in (accept_encoding or "").split(","):
        name, _, params = item.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        offered[name.strip().lower()] = q
    for coding in CODINGS:  # named outright: API Gateway does not compress for "*" or no header
        if offered.get(coding, 0.0) > 0:
            return coding
    return None


def compress(headers, data, accept_encoding, minimum):
    """(headers, data) as API Gateway would send them: compressed, or as they were."""
    if minimum is None or len(data) < minimum:
        return headers, data
    if any(key.lower() == "content-encoding" for key, _ in headers):
        return headers, data
    coding = accepted_coding(accept_encoding)
    if coding is None:
        return headers, data
    # level 6, zlib's default and most servers': level 9 (gzip's default) took 4 times as long for 1% less
    body = gzip.compress(data, compresslevel=6, mtime=0) if coding == "gzip" else zlib.compress(data, 6)
    return [*headers, ("Content-Encoding", coding)], body
