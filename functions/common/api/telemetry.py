"""What AnalyzeFunction and BatchFunction tell CloudWatch about an analysis: the same metrics and the
same "analysed" log line from both.

    analysed(metrics, logger, found, outcome, budget_ms, threads)

found: the engine.result.Analysis; outcome: functions.common.analysis.cache.CacheOutcome. An answer
from the cache carries the figures of the search that made it: its nodes, speed and time are not
counted again. Metrics (namespace Kibitz): Nodes, NodesPerSecond, SearchTime (searches only), Depth,
Budget, CacheHits or CacheMisses, CacheErrors (the cache did not answer: also a warning).
"""

from aws_lambda_powertools.metrics import MetricUnit


def analysed(metrics, logger, found, outcome, budget_ms, threads):
    if not outcome.cached:
        metrics.add_metric("Nodes", MetricUnit.Count, found.nodes)
        metrics.add_metric("NodesPerSecond", MetricUnit.CountPerSecond, found.nps)
        metrics.add_metric("SearchTime", MetricUnit.Milliseconds, found.time_ms)
    metrics.add_metric("Depth", MetricUnit.Count, found.depth)
    metrics.add_metric("Budget", MetricUnit.Milliseconds, budget_ms)
    metrics.add_metric("CacheHits" if outcome.cached else "CacheMisses", MetricUnit.Count, 1)
    if outcome.event == "unavailable":
        metrics.add_metric("CacheErrors", MetricUnit.Count, 1)
        logger.warning("analysis cache unavailable", extra={"reason": outcome.detail})
    logger.info("analysed", extra={"fen": found.fen, "depth": found.depth, "nodes": found.nodes,
                                   "time_ms": found.time_ms, "budget_ms": budget_ms, "game_over": found.terminal,
                                   "cache": outcome.event, "cache_detail": outcome.detail, "threads": threads})
