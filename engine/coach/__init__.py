"""The coach: why a line or a move is what it is, in words and in structure, from the engine's own
lines and static exchange (no language model, nothing the line does not show).

    from engine.coach import explain_line, explain_move, explain_threat, Reason

board_facts.py  attacks, static exchange, material, read from a Board's mailbox
line.py         a line played out ply by ply (captures, promotions, checks, the boards between)
explain.py      the reasons: mates, material, fork / pin / skewer, exchange, promotion, threats
reason.py       the Reason object and its kinds

Imports engine.board, engine.san and engine.layout only; nothing above engine imports it but the
review and analysis wrappers that ask for reasons.
"""

from engine.coach.explain import explain_line, explain_move, explain_threat
from engine.coach.reason import KINDS, Reason

__all__ = ["KINDS", "Reason", "explain_line", "explain_move", "explain_threat"]
