// Game review on the page: the game on the board (pasted as PGN, or played) goes to the review API that
// exists (POST jobs with {pgn, review: true}; GET jobs/{id} until its games are summed up; GET
// jobs/{id}/pgn for the annotated PGN). Shown: White's winning chances as a graph (a click goes to that
// position), each side's accuracy and ACPL, the moves marked ?!, ? and ?? with the better move and the
// reason (a click on either shows the position before the move with the arrows of the better move, the
// move played and the line that shows the reason), the game's opening (above the moves), and a button to
// the review's puzzles. Never throws: errors are the API's, shown in the panel.

import {Chess} from "../vendor/chess.js/chess.js"
import {numbered} from "./format.js"
import {uciToMove} from "./game.js"

const POLL_MS = 500
const MAX_WAIT_MS = 10 * 60 * 1000
const GLYPH = {inaccuracy: "?!", mistake: "?", blunder: "??"}
const SVG = "http://www.w3.org/2000/svg"
const REASON_ARROWS = 4 // at most this many moves of a reason's line are drawn

export class Review {
  // game: the page's Game; goTo(ply); showFlag(ply, arrows, note): the position before move `ply` with the
  // arrows ([{uci, kind, step}], board.js) and a note; solve(puzzles, review): start the puzzle mode.
  constructor(root, game, {goTo, showFlag, solve}) {
    this.root = root
    this.game = game
    this.goTo = goTo
    this.showFlag = showFlag
    this.solve = solve
    this.summary = null
    this.job = null
    this.running = null
    const $ = (sel) => root.querySelector(sel)
    this.el = {button: $("#review-start"), time: $("#review-movetime"), status: $("#review-status"),
      error: $("#review-error"), result: $("#review-result"), graph: $("#review-graph"), sides: $("#review-sides"),
      flagged: $("#review-flagged"), download: $("#review-download"), puzzles: $("#review-puzzles"),
      noPuzzles: $("#review-no-puzzles")}
    this.el.button.addEventListener("click", () => this.start())
    this.el.download.addEventListener("click", () => this.download())
    this.el.puzzles.addEventListener("click", () => this.startPuzzles())
  }

  // The game as PGN: its headers, its start position when it is not the usual one, its moves. A
  // Chess960 game gets its Variant, SetUp and FEN tags (chess.js writes standard chess only).
  pgn() {
    if (this.game.variant === "chess960") {
      const tags = {...this.game.headers, Variant: "Chess960", SetUp: "1", FEN: this.game.startFen}
      const header = Object.entries(tags).filter(([, value]) => value)
        .map(([key, value]) => `[${key} "${String(value).replace(/[\\"]/g, "\\$&")}"]`).join("\n")
      const moves = numbered(this.game.startFen, this.game.moves.map((m) => m.san))
        .map(({label, san}) => (label ? `${label.replace("…", "...")} ${san}` : san)).join(" ")
      return `${header}\n\n${moves} *\n`
    }
    const chess = new Chess(this.game.startFen)
    for (const [key, value] of Object.entries(this.game.headers || {})) {
      if (!["SetUp", "FEN"].includes(key) && value) chess.setHeader(key, value)
    }
    for (const move of this.game.moves) chess.move(move.san)
    return chess.pgn()
  }

  // Enabled when there is a game to review.
  update() {
    this.el.button.disabled = this.running !== null || this.game.moves.length === 0
  }

  async start() {
    if (this.running || this.game.moves.length === 0) return
    const token = {}
    this.running = token
    this.update()
    this.el.error.hidden = true
    this.el.result.hidden = true
    this.job = null
    this.summary = null
    this.onStart()
    this.onChange()
    this.moves = this.game.moves.slice()
    this.headers = {...this.game.headers}
    this.startFen = this.game.startFen
    this.variant = this.game.variant
    try {
      const movetime = Number(this.el.time.value) || 300
      const accepted = await call("jobs", {method: "POST", body: {pgn: this.pgn(), review: true, movetime_ms: movetime,
        variant: this.variant}})
      this.job = accepted.job_id
      const started = Date.now()
      let state
      for (;;) {
        state = await call(`jobs/${encodeURIComponent(this.job)}`)
        this.el.status.textContent = `Reviewing: ${state.done + state.failed} of ${state.total} positions`
        if (state.games) break
        if (Date.now() - started > MAX_WAIT_MS) throw {message: "The review took too long; try a shorter think time."}
        await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      }
      this.show(state.games[0])
      this.el.status.textContent = `Reviewed at ${movetime} ms a position (job ${this.job})`
    } catch (e) {
      this.el.status.textContent = ""
      this.showError(e)
    } finally {
      if (this.running === token) this.running = null
      this.update()
    }
  }

  // Called when a review starts (main.js leaves the puzzle mode), and when the review shown changes
  // (main.js redraws the opening above the moves).
  onStart() {}
  onChange() {}

  // The reviewed game's opening ({eco, name}) when `game` is that game (or goes on from it), else null.
  openingOf(game) {
    const s = this.summary
    if (!s || !s.opening || !s.opening.name || !this.moves) return null
    if (game.variant !== this.variant || game.startFen !== this.startFen) return null
    const n = Math.min(game.moves.length, this.moves.length)
    if (n === 0) return null
    for (let i = 0; i < n; i++) if (game.moves[i].san !== this.moves[i].san) return null
    return s.opening
  }

  show(summary) {
    this.summary = summary
    this.el.result.hidden = false
    const puzzles = Array.isArray(summary.puzzles) ? summary.puzzles : []
    this.el.puzzles.hidden = puzzles.length === 0
    this.el.puzzles.textContent = `Solve your mistakes (${puzzles.length})`
    this.el.noPuzzles.hidden = puzzles.length > 0
    this.onChange()
    this.el.sides.replaceChildren(...["white", "black"].map((side) => {
      const row = document.createElement("div")
      row.className = `review-side ${side}`
      const counts = summary.judgements[side] || {}
      const accuracy = summary.accuracy[side]
      const acpl = summary.acpl[side]
      row.append(text("strong", "", `${side === "white" ? summary.white : summary.black} (${side})`),
        text("span", "accuracy", accuracy === null ? "accuracy –" : `accuracy ${accuracy.toFixed(1)}%`),
        text("span", "acpl", acpl === null ? "" : `ACPL ${Math.round(acpl)}`),
        text("span", "counts", `${counts.inaccuracy || 0} ?! · ${counts.mistake || 0} ? · ${counts.blunder || 0} ??`))
      return row
    }))
    this.drawGraph(summary)
    this.el.flagged.replaceChildren(...summary.flagged.map((flag) => {
      const item = document.createElement("li")
      item.className = `flag ${flag.judgement}`
      item.dataset.ply = flag.ply
      item.tabIndex = 0
      item.title = "Show the position before this move, with the better move and the reason's line"
      const head = document.createElement("span")
      head.className = "flag-head"
      head.append(text("span", "flag-move", flag.move.endsWith(GLYPH[flag.judgement]) ? flag.move
        : `${flag.move}${GLYPH[flag.judgement]}`),
        text("span", "flag-best", flag.best ? ` ${flag.best} was best` : ""))
      item.append(head)
      const reason = flag.reason && flag.reason.text
      if (reason) item.append(text("span", "flag-reason", reason))
      const open = () => this.openFlag(flag)
      item.addEventListener("click", open)
      item.addEventListener("keydown", (event) => { if (event.key === "Enter") open() })
      return item
    }))
  }

  // White's winning chances after each ply: a line, a dot per flagged move; a click goes to the position.
  drawGraph(summary) {
    const chances = summary.win_chances
    const width = 300
    const height = 80
    const n = Math.max(1, chances.length - 1)
    const x = (i) => (i / n) * width
    const y = (c) => height - (c / 100) * height
    const svg = document.createElementNS(SVG, "svg")
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`)
    svg.setAttribute("class", "review-svg")
    svg.setAttribute("role", "img")
    svg.setAttribute("aria-label", "White's winning chances through the game")
    const mid = el("line", {x1: 0, x2: width, y1: height / 2, y2: height / 2, class: "graph-mid"})
    const points = chances.map((c, i) => (c === null ? null : `${x(i).toFixed(1)},${y(c).toFixed(1)}`)).filter(Boolean)
    const area = el("polygon", {points: `0,${height} ${points.join(" ")} ${width},${height}`, class: "graph-area"})
    const line = el("polyline", {points: points.join(" "), class: "graph-line"})
    svg.append(area, mid, line)
    chances.forEach((c, i) => {
      const hit = el("rect", {x: x(i) - width / n / 2, y: 0, width: width / n, height, class: "graph-hit"})
      hit.dataset.ply = i
      hit.append(el("title", {}, c === null ? `ply ${i}` : `ply ${i}: White ${c.toFixed(0)}%`))
      hit.addEventListener("click", () => this.goToPly(i))
      svg.append(hit)
    })
    for (const flag of summary.flagged) {
      const after = flag.ply + 1
      const c = chances[after]
      if (c === null || c === undefined) continue
      const dot = el("circle", {cx: x(after), cy: y(c), r: 3.5, class: `graph-flag ${flag.judgement}`})
      dot.dataset.ply = after
      dot.addEventListener("click", () => this.openFlag(flag))
      svg.append(dot)
    }
    this.el.graph.replaceChildren(svg)
  }

  // The reviewed game may have been changed on the board since: go back to it first.
  restoreGame() {
    if (this.game.variant === this.variant && this.game.startFen === this.startFen &&
        this.game.moves.length >= this.moves.length && this.moves.every((m, i) => this.game.moves[i].san === m.san)) return
    this.game.variant = this.variant
    this.game.startFen = this.startFen
    this.game.moves = this.moves.slice()
    this.game.headers = {...this.headers}
  }

  goToPly(ply) {
    this.restoreGame()
    this.goTo(ply)
  }

  // The position before the flagged move, with its arrows: the better move (blue), and the line that shows
  // the reason (orange, fainter as it goes on). That line starts either in the position before the move
  // (a missed gain: the best line) or after it (what the move allows: the opponent's reply), whichever its
  // first move is legal in; from after it, the move played is drawn too (red).
  openFlag(flag) {
    this.restoreGame()
    for (const item of this.el.flagged.children) item.classList.toggle("active", Number(item.dataset.ply) === flag.ply)
    const before = flag.ply === 0 ? this.startFen : this.moves[flag.ply - 1].after
    const arrows = []
    let better = null
    if (flag.best) {
      try {
        better = this.game.positionAt(before).move(flag.best)
        arrows.push({uci: better.from + better.to, kind: "best"}) // Chess960's castling: the king to its rook
      } catch {
        better = null
      }
    }
    const played = this.moves[flag.ply]
    const line = (flag.reason && Array.isArray(flag.reason.moves)) ? flag.reason.moves : []
    let from = null
    if (line.length && playable(this.game, played.after, line)) from = "after"
    else if (line.length && playable(this.game, before, line)) from = "before"
    if (from === "after") arrows.push({uci: played.from + played.to, kind: "played"})
    // A long line: its first moves and its last, the move that shows the reason.
    const drawn = line.filter((_, i) => line.length <= REASON_ARROWS || i < REASON_ARROWS - 1 || i === line.length - 1)
      .map((uci, step) => ({uci, kind: "reason", step}))
    if (from) arrows.push(...drawn)
    const words = flag.reason && flag.reason.text ? ` ${flag.reason.text}` : ""
    const note = `${flag.move.replace(/[?!]+$/, "")}${GLYPH[flag.judgement] || ""}:${words}` +
      (better ? ` Blue: ${better.san}, the better move.` : "")
    this.showFlag(flag.ply, arrows, note)
  }

  startPuzzles() {
    const puzzles = this.summary && Array.isArray(this.summary.puzzles) ? this.summary.puzzles : []
    if (!puzzles.length) return
    this.restoreGame()
    this.solve(puzzles, this)
  }

  async download() {
    if (!this.job) return
    try {
      const response = await fetch(`jobs/${encodeURIComponent(this.job)}/pgn`)
      if (!response.ok) throw await readError(response)
      const blob = new Blob([await response.text()], {type: "application/x-chess-pgn"})
      const link = document.createElement("a")
      link.href = URL.createObjectURL(blob)
      link.download = "kibitz-review.pgn"
      link.click()
      setTimeout(() => URL.revokeObjectURL(link.href), 1000)
    } catch (e) {
      this.showError(e)
    }
  }

  showError(e) {
    const box = this.el.error
    box.replaceChildren()
    const errors = (e && Array.isArray(e.errors)) ? e.errors : []
    if (!errors.length) box.append(document.createTextNode((e && e.message) || String(e)))
    for (const err of errors) {
      const row = document.createElement("div")
      row.append(text("strong", "", err.field ? `${err.field}: ` : ""), document.createTextNode(err.reason || ""))
      box.append(row)
    }
    box.hidden = false
  }
}

// True when every UCI move of `line` is legal in turn from `fen` (the game's variant's rules).
function playable(game, fen, line) {
  try {
    const position = game.positionAt(fen)
    for (const uci of line) position.move(uciToMove(uci))
    return true
  } catch {
    return false
  }
}

// The jobs API, on this page's origin. Throws {status, message, errors} with the API's words.
async function call(path, {method = "GET", body} = {}) {
  let response
  try {
    response = await fetch(path, body === undefined ? {method} :
      {method, headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})
  } catch (e) {
    throw {message: `Could not reach the API: ${(e && e.message) || "network error"}`, errors: []}
  }
  if (!response.ok) throw await readError(response)
  return response.json()
}

async function readError(response) {
  let body = null
  try {
    body = await response.json()
  } catch {
    body = null
  }
  if (body && Array.isArray(body.errors) && body.errors.length) return {status: response.status, ...body}
  return {status: response.status, message: `HTTP ${response.status}: ${(body && body.message) || "no readable answer"}`,
    errors: []}
}

function el(tag, attributes, content) {
  const node = document.createElementNS(SVG, tag)
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value))
  if (content !== undefined) node.textContent = content
  return node
}

function text(tag, className, content) {
  const node = document.createElement(tag)
  node.className = className
  node.textContent = content
  return node
}
