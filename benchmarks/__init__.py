"""The benchmark report: the engine next to the libraries MCP stacks use today, on real data.

Run ``python -m benchmarks`` (or ``nox -s bench``); ``--help`` lists the options.
"""
