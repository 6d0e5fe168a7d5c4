// The game on the board: its variant ("standard" or "chess960"), a start position, the moves played
// from it, and a cursor (the ply shown). The rules are chess.js's, or Chess960's on it (chess960.js).
// What the API is asked about is the start FEN and the UCI moves up to the cursor, so repetitions
// across the game count as they do in the engine.

import {Chess, DEFAULT_POSITION} from "../vendor/chess.js/chess.js"
import {Chess960, isChess960Tag, readPgn960} from "./chess960.js"

export const START_FEN = DEFAULT_POSITION

export class Game {
  constructor() {
    this.reset()
  }

  reset(fen = START_FEN, headers = {}, variant = "standard") {
    this.variant = variant
    this.startFen = fen
    this.moves = [] // chess.js Move objects: san, lan (UCI), from, to, before, after
    this.ply = 0
    this.headers = headers
  }

  // Loads a FEN the API has accepted; returns null, or chess.js's reason when it cannot show it.
  loadFen(fen, variant = this.variant) {
    try {
      rules(variant, fen)
    } catch (e) {
      return (e && e.message) || "not a position"
    }
    this.reset(fen, {}, variant)
    return null
  }

  // Loads the main line of a PGN at its first position; returns null or the reason it cannot. Its
  // Variant tag says its rules; without one, `variant` does.
  loadPgn(text, variant = this.variant) {
    const tag = /\[\s*Variant\s+"([^"]*)"/.exec(text)
    if (tag ? isChess960Tag(tag[1]) : variant === "chess960") {
      let game
      try {
        game = readPgn960(text)
      } catch (e) {
        return (e && e.message) || "not a game"
      }
      this.reset(game.startFen, game.headers, "chess960")
      this.moves = game.moves
      return null
    }
    const chess = new Chess()
    try {
      chess.loadPgn(text)
    } catch (e) {
      return (e && e.message) || "not a game"
    }
    const moves = chess.history({verbose: true})
    const headers = chess.getHeaders()
    this.reset(moves.length ? moves[0].before : chess.fen(), headers, "standard")
    this.moves = moves
    return null
  }

  get fen() {
    return this.ply === 0 ? this.startFen : this.moves[this.ply - 1].after
  }

  get lastMove() {
    return this.ply === 0 ? null : this.moves[this.ply - 1]
  }

  uciMoves() {
    return this.moves.slice(0, this.ply).map((m) => m.lan)
  }

  position() {
    return rules(this.variant, this.fen)
  }

  // A position of this game's variant (the Chess or Chess960 object), e.g. before a reviewed move.
  positionAt(fen) {
    return rules(this.variant, fen)
  }

  turn() {
    return this.fen.split(" ")[1] === "b" ? "b" : "w"
  }

  // For the board: in Chess960 castling is the king onto its rook, or to its own destination square.
  legalMovesFrom(square) {
    return this.position().moves({square, verbose: true, targets: true})
  }

  // Plays a move ({from, to, promotion} or a UCI string) at the cursor, dropping the moves after
  // it; returns the Move, or null when it is not legal.
  play(move) {
    const chess = this.position()
    let played
    try {
      played = chess.move(typeof move === "string" ? uciToMove(move) : move)
    } catch {
      return null
    }
    this.moves = this.moves.slice(0, this.ply)
    this.moves.push(played)
    this.ply += 1
    return played
  }

  // Takes back the move that led to the cursor, with everything after it.
  undo() {
    if (this.ply === 0) return false
    this.ply -= 1
    this.moves = this.moves.slice(0, this.ply)
    return true
  }

  goTo(ply) {
    const target = Math.max(0, Math.min(this.moves.length, ply))
    const changed = target !== this.ply
    this.ply = target
    return changed
  }

  // The SAN of a line of UCI moves from the cursor (null for a move that is not legal there).
  sanOf(uciMoves) {
    const chess = this.position()
    const out = []
    for (const uci of uciMoves) {
      try {
        out.push(chess.move(uciToMove(uci)).san)
      } catch {
        out.push(null)
        break
      }
    }
    return out
  }

  // checkmate, stalemate, or an automatic draw, as chess.js sees the position (no history)
  outcome() {
    const chess = this.position()
    if (chess.isCheckmate()) return chess.turn() === "w" ? "Checkmate: Black wins" : "Checkmate: White wins"
    if (chess.isStalemate()) return "Stalemate: draw"
    if (chess.isInsufficientMaterial()) return "Insufficient material: draw"
    return null
  }
}

function rules(variant, fen) {
  return variant === "chess960" ? new Chess960(fen) : new Chess(fen)
}

export function uciToMove(uci) {
  return {from: uci.slice(0, 2), to: uci.slice(2, 4), promotion: uci.length > 4 ? uci[4] : undefined}
}
