"""engine/time_manager.py: the budgets from a clock, and TimeStability's scaling of the soft limit."""

import engine
from engine import time_manager
from engine.time_manager import for_clock, soft_scale

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 4 8"


def test_a_clock_budget_stays_inside_the_clock():
    for left, inc in ((10_000, 100), (1_000, 100), (300, 0), (60_000, 0)):
        b = for_clock(left, inc)
        assert 0 < b.soft_ms <= b.hard_ms < left


def test_the_soft_limit_grows_when_the_move_changes_and_when_the_score_falls():
    assert soft_scale(0, 0) > soft_scale(1, 0) > soft_scale(2, 0) > soft_scale(4, 0) == soft_scale(20, 0) == 1.0
    assert soft_scale(3, 50) > soft_scale(3, 0) == soft_scale(3, -80)  # a rise is no trouble
    assert soft_scale(3, 1000) == soft_scale(3, time_manager.SCORE_FALL_CP) == 1.5 * soft_scale(3, 0)
    assert min(soft_scale(held, fall) for held in range(8) for fall in range(-200, 200, 10)) == 1.0


def test_the_scaling_is_used_only_with_time_stability_and_a_clock(monkeypatch):
    calls = []

    def stop_now(held, fall):
        calls.append((held, fall))
        return 0.0  # a soft limit of 0: no iteration after the one that set it

    monkeypatch.setattr(time_manager, "soft_scale", stop_now)
    clock = {"wtime": 600_000, "btime": 600_000}
    on = engine.analyse(MIDDLEGAME, params={"TimeStability": 1}, **clock)
    assert on.depth == 2 and len(calls) == 1  # scaled after depth 2, the first with a previous iteration
    calls.clear()
    off = engine.analyse(MIDDLEGAME, depth=6, params={"TimeStability": 0}, **clock)
    fixed = engine.analyse(MIDDLEGAME, depth=6, params={"TimeStability": 1})
    assert calls == [] and off.depth == 6 and fixed.depth == 6


def _left_after(moves, inc_share, left=10_000.0, inc=100.0, overshoot=1.1, mtg=30):
    """The clock after `moves` moves that each spend overshoot x the soft limit (the iteration running at
    the soft limit ends past it), the increment added after each."""
    lowest = left
    for _ in range(moves):
        left += inc - overshoot * for_clock(left, inc, inc_share=inc_share, default_mtg=mtg).soft_ms
        lowest = min(lowest, left)
    return left, lowest


def test_the_clock_settles_where_a_move_spends_the_increment():
    # 1.1 x 0.6 x ((left - 50) / 30 + share x 100) = 100 at the fixed point (50 ms: the move overhead)
    for share, settled in ((0.75, 2_345), (1.0, 1_595), (1.25, 845)):
        left, lowest = _left_after(400, share)
        assert abs(left - settled) < 20, (share, left)
        assert lowest > 800  # never close to flagging on the way there


def test_fewer_moves_to_go_spend_more_of_the_clock_early_and_still_settle():
    # 1.1 x 0.6 x ((left - 50) / mtg + share x 100) = 100 at the fixed point
    for mtg, share, settled in ((20, 0.75, 1_580), (15, 1.0, 823)):
        left, lowest = _left_after(400, share, mtg=mtg)
        assert abs(left - settled) < 20, (mtg, share, left)
        assert lowest > 500
        assert _left_after(30, share, mtg=mtg)[0] < _left_after(30, 0.75)[0] - 1_000  # more spent by move 30


def test_time_inc_share_and_moves_to_go_reach_the_clock_budget(monkeypatch):
    shares = []
    plain = time_manager.for_clock

    def record(left, inc=0, moves_to_go=None, inc_share=time_manager.INC_SHARE,
               default_mtg=time_manager.DEFAULT_MOVES_TO_GO):
        shares.append((inc_share, default_mtg))
        return plain(left, inc, moves_to_go, inc_share, default_mtg)

    monkeypatch.setattr(time_manager, "for_clock", record)
    clock = {"wtime": 600_000, "btime": 600_000, "winc": 1_000, "binc": 1_000, "depth": 2}
    engine.analyse(MIDDLEGAME, **clock)
    engine.analyse(MIDDLEGAME, params={"TimeIncShare": 125}, **clock)
    engine.analyse(MIDDLEGAME, params={"TimeMovesToGo": 15}, **clock)
    assert shares == [(0.75, 30), (1.25, 30), (0.75, 15)]
    assert for_clock(10_000, 100, inc_share=1.25).soft_ms > for_clock(10_000, 100).soft_ms


def test_on_a_short_clock_the_scaling_stays_under_the_increment():
    # A's clock in the SPRT's time loss: 0.774 s + 0.1 s, where the hard limit is more than the increment
    short = for_clock(774, 100)
    assert short.hard_ms > 100 and short.soft_ms <= short.stretch_ms <= 0.8 * 100
    # no increment: under 2 s the soft limit is not scaled at all
    bare = for_clock(1500, 0)
    assert bare.stretch_ms == bare.soft_ms
    # a long clock: the scaling may reach the hard limit, as before
    opening = for_clock(10_000, 100)
    assert opening.stretch_ms == opening.hard_ms > 2 * opening.soft_ms
    # the clock's ceiling holds when a movetime is given too
    both = time_manager.budget(0, movetime_ms=5000, wtime=774, btime=774, winc=100, binc=100)
    assert both.stretch_ms == short.stretch_ms
