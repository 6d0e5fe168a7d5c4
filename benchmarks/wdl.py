"""The WDL fit (training/wdl.py) with its report recorded in docs/benchmarks.md: the arguments of
`python -m training wdl`, which prints the same report and writes no docs.

    .venv/bin/python -m benchmarks.wdl --games benchmarks/journals/m-timestab-s58.jsonl.gz [--write]
    .venv/bin/python -m benchmarks.wdl --check benchmarks/journals/m-sf2600-v5.jsonl.gz     # "WDL model at the clock"
"""

import sys

from benchmarks.report import record
from training import wdl
from training.__main__ import parser


def main(argv=None):
    args = parser().parse_args(["wdl", *(sys.argv[1:] if argv is None else argv)])
    wdl.main(args, record=record)


if __name__ == "__main__":
    main()
