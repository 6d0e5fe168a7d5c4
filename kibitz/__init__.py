"""`kibitz`: run the SAM application on this machine without Docker, and talk to it (see cli.py).

    kibitz/local/     the local AWS stack: template, functions in-process, API Gateway, moto, pollers
    kibitz/clients/   the API's clients and their output: batch, review, live, text
    kibitz/cli.py     the `kibitz` command: parses its arguments and hands each verb to one of the two

Imports run one way: cli -> clients -> local (tests/test_imports.py)."""
