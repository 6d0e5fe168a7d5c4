// The analysis panel: the summary (score, best move, search figures), win/draw/loss when the API gives
// it, the opening's name for a book position, the opponent's threat (asked with "threats"), one row per
// line in SAN with its reason (asked with "explain"), the progress bar while the engine thinks, and the
// API's errors.

import {compact, duration, numbered, scoreText, scoreWords} from "./format.js"

const GAME_OVER = {
  "checkmate": "Checkmate",
  "stalemate": "Stalemate",
  "insufficient material": "Draw by insufficient material",
  "fifty-move rule": "Draw by the fifty-move rule",
  "threefold repetition": "Draw by threefold repetition",
}

export class AnalysisView {
  // onPlay(pv, count): play the first `count` moves of a line (UCI) on the board.
  constructor(onPlay) {
    this.onPlay = onPlay
    const $ = (id) => document.getElementById(id)
    this.el = {
      card: $("analysis-card"), fill: $("progress-fill"), error: $("analysis-error"), summary: $("summary"),
      score: $("score"), best: $("best"), stats: $("stats"), wdl: $("wdl"), lines: $("lines"),
      hint: $("analysis-hint"), engine: $("engine"), staleNote: $("stale-note"), opening: $("analysis-opening"),
      threat: $("threat"),
    }
  }

  busy(movetimeMs) {
    const fill = this.el.fill
    this.el.card.classList.add("busy")
    fill.style.transition = "none"
    fill.style.width = "0%"
    void fill.offsetWidth // restart the transition from zero
    fill.style.transition = `width ${movetimeMs}ms linear`
    fill.style.width = "100%"
  }

  idle() {
    this.el.card.classList.remove("busy")
    this.el.fill.style.transition = "none"
    this.el.fill.style.width = "0%"
  }

  clear(hint = true) {
    this.el.card.classList.remove("stale")
    this.el.staleNote.hidden = true
    this.el.error.hidden = true
    this.el.summary.hidden = true
    this.el.wdl.hidden = true
    this.el.opening.hidden = true
    this.el.threat.hidden = true
    this.el.lines.replaceChildren()
    this.el.hint.hidden = !hint
  }

  // The board has moved on: what is shown is about an earlier position (kept, greyed, not clickable).
  stale() {
    if (this.el.summary.hidden) return this.clear()
    this.el.error.hidden = true
    this.el.card.classList.add("stale")
    this.el.staleNote.hidden = false
  }

  // result: {message, errors} from api.js.
  error(result) {
    this.clear(false)
    renderErrors(this.el.error, result)
  }

  show(answer) {
    this.clear(false)
    const side = answer.side_to_move === "black" ? "Black" : "White"
    if (answer.engine) this.el.engine.textContent = `${answer.engine.name} ${answer.engine.version} · ${answer.engine.backend}`
    this.el.summary.hidden = false
    this.showOpening(answer.opening)
    this.el.score.classList.toggle("for-black", isBlackAhead(answer))
    if (answer.game_over) {
      this.el.score.textContent = answer.result || "–"
      this.el.best.textContent = GAME_OVER[answer.game_over] || answer.game_over
      this.el.stats.textContent = answer.result === "1/2-1/2" ? "Drawn" : `${answer.result === "1-0" ? "White" : "Black"} wins`
      return
    }
    this.el.score.textContent = scoreText(answer.score_white)
    this.el.best.replaceChildren(
      text("span", "muted", "Best "), text("strong", "best-move", answer.best_move_san || answer.best_move),
      text("span", "muted", answer.ponder_san ? `  then ${answer.ponder_san}` : ""),
      text("span", "muted words", typeof answer.score.mate === "number" ? ` · ${scoreWords(answer.score, side)}` : ""))
    this.el.stats.textContent = answer.tablebase ? tablebaseText(answer) : [
      `depth ${answer.depth}/${answer.seldepth}`, `${compact(answer.nodes)} nodes`, `${compact(answer.nps)} nps`,
      duration(answer.time_ms),
    ].join(" · ")
    this.showWdl(answer)
    this.showThreat(answer)
    for (const line of answer.lines || []) this.el.lines.append(this.lineRow(answer, line))
  }

  // {eco, name} of a named opening position, or null.
  showOpening(opening) {
    const shown = Boolean(opening && opening.name)
    this.el.opening.hidden = !shown
    if (shown) this.el.opening.replaceChildren(text("span", "eco", opening.eco || ""), text("span", "opening-name", opening.name))
  }

  // The opponent's best move were it their turn (drawn as the red arrow), its score and its reason.
  showThreat(answer) {
    const threat = answer.threat
    if (!threat || !threat.move) return
    const opponent = answer.side_to_move === "black" ? "White" : "Black"
    const words = threat.reason && threat.reason.text ? threat.reason.text : `${opponent} would play ${threat.san}.`
    this.el.threat.replaceChildren(
      text("span", "threat-label", "Threat"), text("strong", "threat-move", threat.san || threat.move),
      text("span", "threat-score", threat.score ? `${scoreText(threat.score)} for ${opponent}` : ""),
      text("span", "threat-reason", words))
    this.el.threat.hidden = false
  }

  showWdl(answer) {
    const wdl = answer.wdl
    if (!wdl || ![wdl.win, wdl.draw, wdl.loss].every((x) => typeof x === "number")) return
    const black = answer.side_to_move === "black"
    const white = black ? wdl.loss : wdl.win
    const blackWins = black ? wdl.win : wdl.loss
    const pct = (x) => `${Math.round(x / 10)}%`
    const bar = document.createElement("div")
    bar.className = "wdl-bar"
    for (const [cls, value] of [["w", white], ["d", wdl.draw], ["l", blackWins]]) {
      const part = document.createElement("span")
      part.className = `wdl-${cls}`
      part.style.flexGrow = String(value)
      bar.append(part)
    }
    this.el.wdl.replaceChildren(bar, text("div", "wdl-text",
      `White wins ${pct(white)} · draw ${pct(wdl.draw)} · Black wins ${pct(blackWins)}`))
    this.el.wdl.hidden = false
  }

  lineRow(answer, line) {
    const row = document.createElement("li")
    row.className = "line"
    row.dataset.multipv = line.multipv
    row.tabIndex = 0
    row.title = "Play this line on the board"
    const score = text("span", "line-score", scoreText(line.score_white))
    score.classList.toggle("for-black", isBlackAhead({...answer, score_white: line.score_white}))
    const moves = document.createElement("span")
    moves.className = "line-moves"
    numbered(answer.fen, line.pv_san).forEach(({label, san}, i) => {
      const ply = document.createElement("span") // a move number stays with its move
      ply.className = "line-ply"
      if (label) ply.append(text("span", "move-number", label))
      const move = text("span", "line-move", san)
      move.dataset.count = i + 1
      move.title = "Play up to this move"
      ply.append(move)
      moves.append(ply, " ") // the spaces are where a long line may wrap
    })
    row.append(score, moves, text("span", "line-depth", `d${line.depth}`))
    if (line.reason && line.reason.text) row.append(text("span", "line-reason", line.reason.text))
    const play = (event) => {
      const target = event.target.closest(".line-move")
      this.onPlay(line.pv, target ? Number(target.dataset.count) : line.pv.length)
    }
    row.addEventListener("click", play)
    row.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault()
        play(event)
      }
    })
    return row
  }
}

// Shows an API error in `element` as the API wrote it: "field: reason" per error, else its message.
export function renderErrors(element, result, prefix = "") {
  const errors = result.errors || []
  element.replaceChildren()
  if (prefix) element.append(text("span", "alert-prefix", prefix))
  if (errors.length === 0) element.append(document.createTextNode(result.message))
  for (const e of errors) {
    const row = document.createElement("div")
    row.append(text("strong", "", e.field ? `${e.field}: ` : ""), document.createTextNode(e.reason || ""))
    element.append(row)
  }
  element.hidden = false
}

function isBlackAhead(answer) {
  if (answer.result) return answer.result === "0-1"
  const s = answer.score_white || {}
  return typeof s.mate === "number" ? s.mate < 0 : (s.cp || 0) < 0
}

function text(tag, className, content) {
  const el = document.createElement(tag)
  el.className = className
  el.textContent = content
  return el
}

// "Tablebase: White wins, mate in 23" (or "Tablebase: draw"): the endgame tables' answer, the category being
// the side to move's; a cursed win / blessed loss (the halfmove clock leaves too few moves for the mate):
// "Tablebase: draw by the fifty-move rule (White mates in 33, too late)".
export function tablebaseText(answer) {
  const {category, dtm} = answer.tablebase
  if (category === "draw") return "Tablebase: draw"
  const mover = answer.side_to_move === "black" ? "Black" : "White"
  const moverWins = category === "win" || category === "cursed-win"
  const winner = moverWins ? mover : (mover === "White" ? "Black" : "White")
  if (category === "cursed-win" || category === "blessed-loss") {
    return `Tablebase: draw by the fifty-move rule (${winner} mates in ${Math.abs(dtm)}, too late)`
  }
  return `Tablebase: ${winner} wins, mate in ${Math.abs(dtm)}`
}
