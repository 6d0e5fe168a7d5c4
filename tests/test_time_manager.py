"""engine/time_manager.py: the budgets from a clock."""

from engine.time_manager import for_clock


def test_a_clock_budget_stays_inside_the_clock():
    for left, inc in ((10_000, 100), (1_000, 100), (300, 0), (60_000, 0)):
        b = for_clock(left, inc)
        assert 0 < b.soft_ms <= b.hard_ms < left
