// The board: cm-chessboard with arrows, legal-move markers and the promotion dialog. It shows what the
// game says and asks the game whether a dragged move is legal; an illegal one snaps back.

import {Chessboard, COLOR, INPUT_EVENT_TYPE} from "../vendor/cm-chessboard/src/Chessboard.js"
import {Arrows} from "../vendor/cm-chessboard/src/extensions/arrows/Arrows.js"
import {Markers, MARKER_TYPE} from "../vendor/cm-chessboard/src/extensions/markers/Markers.js"
import {PromotionDialog, PROMOTION_DIALOG_RESULT_TYPE} from
  "../vendor/cm-chessboard/src/extensions/promotion-dialog/PromotionDialog.js"

const ASSETS = new URL("../vendor/cm-chessboard/assets/", import.meta.url).href
// Arrow kinds: the best move, the other lines' first moves, the opponent's threat, a reviewed move as
// played, and the moves of a reason's line (fainter as the line goes on).
export const ARROW = {best: {class: "arrow-best"}, other: {class: "arrow-other"}, threat: {class: "arrow-threat"},
  played: {class: "arrow-played"}}
const REASON_STEPS = 6
const REASON = Array.from({length: REASON_STEPS}, (_, i) => ({class: `arrow-reason step-${i + 1}`}))
const LAST_MOVE = {class: "marker-last-move", slice: "markerSquare"}

export class Board {
  // game: a Game; onMove(move) after a legal move is played; onRefused(from, to) after an illegal one.
  constructor(element, game, {onMove, onRefused}) {
    this.game = game
    this.onMove = onMove
    this.onRefused = onRefused
    this.board = new Chessboard(element, {
      position: game.fen,
      assetsUrl: ASSETS,
      style: {cssClass: "kibitz", showCoordinates: true, borderType: "none", animationDuration: 200},
      extensions: [
        {class: Markers, props: {autoMarkers: MARKER_TYPE.square}},
        {class: Arrows},
        {class: PromotionDialog, props: {language: "en"}},
      ],
    })
    this.board.enableMoveInput((event) => this.input(event))
    this.locked = false // true: no move may start (a puzzle's reply is coming, or a wrong move is shown)
  }

  get orientation() {
    return this.board.getOrientation()
  }

  // Shows the game's position; animated when it is one move away.
  show(animated = true) {
    this.clearArrows()
    this.board.removeMarkers(LAST_MOVE)
    const last = this.game.lastMove
    if (last) {
      this.board.addMarker(LAST_MOVE, last.from)
      this.board.addMarker(LAST_MOVE, last.to)
    }
    return this.board.setPosition(this.game.fen, animated)
  }

  async flip() {
    return this.setOrientation(this.orientation === COLOR.white ? COLOR.black : COLOR.white)
  }

  // color: "w" or "b", the side at the bottom.
  async setOrientation(color) {
    if (this.flipping || color === this.orientation) return
    this.flipping = true
    try {
      await this.board.setOrientation(color)
    } finally {
      this.flipping = false
    }
  }

  // arrows: [{uci, kind}] (kind: a key of ARROW, or "reason" with `step` 0, 1, ...; or {uci, best} for the
  // analysis' lines). The first is drawn last, on top; one arrow a pair of squares (the first kept).
  showArrows(arrows) {
    this.clearArrows()
    const seen = new Set()
    const kept = arrows.filter(({uci}) => {
      if (!uci || uci.length < 4 || seen.has(uci.slice(0, 4))) return false
      seen.add(uci.slice(0, 4))
      return true
    })
    for (const arrow of kept.reverse()) {
      const kind = arrow.kind || (arrow.best ? "best" : "other")
      const type = kind === "reason" ? REASON[Math.min(arrow.step || 0, REASON_STEPS - 1)] : ARROW[kind] || ARROW.other
      this.board.addArrow(type, arrow.uci.slice(0, 2), arrow.uci.slice(2, 4))
    }
  }

  clearArrows() {
    this.board.removeArrows()
  }

  input(event) {
    switch (event.type) {
      case INPUT_EVENT_TYPE.moveInputStarted: {
        const piece = event.piece || ""
        if (this.locked || piece[0] !== this.game.turn()) return false
        const moves = this.game.legalMovesFrom(event.squareFrom)
        this.board.addLegalMovesMarkers(moves)
        return moves.length > 0
      }
      case INPUT_EVENT_TYPE.validateMoveInput:
        // A move made by two clicks would slide the piece on its own (200 ms), and cm-chessboard 8.15.1 loses
        // the target square if the pointer leaves the board meanwhile ("invalid square null" in the console,
        // the piece left hidden): the board shows the game's position at once instead, as after a drag.
        event.animate = false
        return this.validate(event.squareFrom, event.squareTo)
      case INPUT_EVENT_TYPE.moveInputCanceled:
      case INPUT_EVENT_TYPE.moveInputFinished:
        this.board.removeLegalMovesMarkers()
        return true
      default:
        return true
    }
  }

  validate(from, to) {
    const candidates = this.game.legalMovesFrom(from).filter((m) => m.to === to)
    this.board.removeLegalMovesMarkers()
    if (candidates.length === 0) {
      this.onRefused(from, to)
      return false
    }
    if (candidates.some((m) => m.promotion)) {
      this.promote(from, to)
      return true
    }
    this.playAfterInput({from, to})
    return true
  }

  promote(from, to) {
    const color = this.game.turn() === "w" ? COLOR.white : COLOR.black
    this.board.showPromotionDialog(to, color, (result) => {
      if (result && result.type === PROMOTION_DIALOG_RESULT_TYPE.pieceSelected) {
        this.playAfterInput({from, to, promotion: result.piece.charAt(1)})
      } else {
        this.show(false) // cancelled: the pawn goes back
      }
    })
  }

  // The board has moved the piece itself; once its input is over, show the game's position (castling
  // moves the rook, en passant takes a pawn, promotion changes the piece).
  playAfterInput(move) {
    const played = this.game.play(move)
    const process = this.board.state.moveInputProcess
    Promise.resolve(process).then(() => {
      this.show(false)
      if (played) this.onMove(played)
    })
  }
}
