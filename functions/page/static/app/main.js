// The page: wires the game, the board, the analysis panel, the move list, the review and its puzzles to
// the buttons, the forms and the keyboard. When everything is ready it enables Analyse and sets the "kibitz-interactive"
// performance mark (benchmarks/page.py measures the time to it).

import {analyse} from "./api.js"
import {AnalysisView, renderErrors} from "./analysis_view.js"
import {Board} from "./board.js"
import {chess960Fen, chess960Number, STANDARD_NUMBER} from "./chess960.js"
import {EvalBar} from "./evalbar.js"
import {duration} from "./format.js"
import {Game} from "./game.js"
import {Live} from "./live.js"
import {MoveList} from "./movelist.js"
import {Puzzles} from "./puzzles.js"
import {Review} from "./review.js"

const THINK_TIMES_MS = [100, 200, 300, 500, 1000, 2000, 3000, 5000, 10000]
const PLAY_STEP_MS = 400 // between the moves of a line played out on the board
const MAX_PGN_BYTES = 1024 * 1024

const $ = (id) => document.getElementById(id)
const game = new Game()
const evalbar = new EvalBar($("evalbar"))
const view = new AnalysisView(playLine)
const moveList = new MoveList($("movelist"), $("movelist-hint"), $("game-title"), (ply) => goTo(ply))
const board = new Board($("board"), game, {onMove: moved, onRefused: refused})
const live = Live.fromPage() // the live stream (live.js), or null: POST /analyze only
const review = new Review($("review-slot"), game, {goTo: (ply) => { leavePuzzleMode(); goTo(ply) }, showFlag, solve})
review.onChange = () => showOpening()
review.onStart = () => leavePuzzleMode()
const puzzles = new Puzzles($("puzzle"), {game, board, refresh: puzzleChanged, orient, leave: leavePuzzles})
let orientationBeforePuzzles = null

let running = null // the AbortController of the analysis under way
let version = 0 // bumped by every change of position: an answer for an older one is dropped
let playback = null // the timer of a line being played out
let drawn = Promise.resolve() // the board's last redraw: resolves when its animation is over

// --- position ----------------------------------------------------------------------------------

function positionChanged({animated = true, note = ""} = {}) {
  version += 1
  cancelAnalysis()
  drawn = board.show(animated)
  evalbar.clear()
  view.stale()
  moveList.render(game)
  $("fen").value = game.fen
  $("fen-error").hidden = true
  showVariant()
  $("undo").disabled = game.ply === 0
  $("first").disabled = $("prev").disabled = game.ply === 0
  $("last").disabled = $("next").disabled = game.ply === game.moves.length
  review.update()
  showOpening()
  showStatus(note)
}

// The reviewed game's opening (ECO and name), above its moves.
function showOpening() {
  const opening = review.openingOf(game)
  const box = $("opening")
  box.hidden = !opening
  if (!opening) return
  const eco = document.createElement("span")
  eco.className = "eco"
  eco.textContent = opening.eco || ""
  const name = document.createElement("span")
  name.className = "opening-name"
  name.textContent = opening.name
  box.replaceChildren(eco, name)
}

// A reviewed move: the position before it, with the arrows of the better move and the reason's line.
function showFlag(ply, arrows, note) {
  stopPlayback()
  leavePuzzleMode()
  game.goTo(ply)
  positionChanged({animated: false, note})
  board.showArrows(arrows)
}

// --- puzzles ("solve your mistakes", puzzles.js) --------------------------------------------------

function solve(list, reviewed) {
  stopPlayback()
  if (!puzzles.active) orientationBeforePuzzles = board.orientation
  puzzles.start(list, reviewed.variant)
}

// Resolves once the board has drawn the position (its animation over).
function puzzleChanged(note, animated) {
  stopPlayback()
  positionChanged({animated, note})
  return drawn
}

async function orient(color) {
  await board.setOrientation(color)
  evalbar.setFlipped(board.orientation === "b")
}

// Back to the reviewed game, at the puzzle's move, the way the board was turned before.
function leavePuzzles(puzzle) {
  review.restoreGame()
  game.goTo(puzzle.ply)
  if (orientationBeforePuzzles) orient(orientationBeforePuzzles)
  orientationBeforePuzzles = null
  positionChanged({animated: false})
}

// Something else was set up on the board: the puzzle mode ends where it is.
function leavePuzzleMode() {
  if (!puzzles.active) return
  puzzles.end()
  if (orientationBeforePuzzles) orient(orientationBeforePuzzles)
  orientationBeforePuzzles = null
}

function showStatus(note = "", warning = false) {
  const status = $("status")
  const outcome = game.outcome()
  const side = game.turn() === "w" ? "White" : "Black"
  status.textContent = note || outcome || `${side} to move`
  status.classList.toggle("warning", warning)
}

function goTo(ply) {
  stopPlayback()
  if (game.goTo(ply)) positionChanged()
}

function step(delta) {
  stopPlayback()
  if (game.goTo(game.ply + delta)) positionChanged()
}

function moved(move) {
  stopPlayback()
  positionChanged({animated: false})
  if (puzzles.active) puzzles.moved(move)
}

function refused(from, to) {
  showStatus(`${from}–${to} is not a legal move here`, true)
}

// --- analysis ----------------------------------------------------------------------------------

function settings() {
  const movetime = THINK_TIMES_MS[Number($("movetime").value)] || 1000
  const multipv = Number(document.querySelector("input[name=multipv]:checked").value) || 1
  return {movetime, multipv, explain: $("explain").checked, threats: $("threats").checked}
}

async function runAnalysis() {
  stopPlayback()
  cancelAnalysis()
  const {movetime, multipv, explain, threats} = settings()
  const controller = new AbortController()
  const asked = version
  running = controller
  setAnalysing(true, movetime)
  const request = {fen: game.startFen, moves: game.uciMoves(), variant: game.variant, movetime_ms: movetime, multipv}
  if (explain) request.explain = true
  if (threats) request.threats = true
  let result
  if (live && await live.open() && running === controller) {
    // The live stream: each completed iteration redraws the bar, the arrows and the lines; Stop asks for
    // the answer now. Falls back to POST /analyze when the stream cannot be opened.
    $("stop").hidden = false
    result = await live.analyse(request, {
      signal: controller.signal,
      onInfo: (info) => { if (running === controller && asked === version) showAnswer(info) },
    })
  } else {
    result = await analyse(request, controller.signal)
  }
  if (running !== controller) return // cancelled, or another analysis replaced it
  running = null
  setAnalysing(false)
  if (asked !== version) return
  if (!result.ok) {
    view.error(result)
    return
  }
  showAnswer(result.answer)
}

// An answer, or an info message of the live stream (the same fields, less the request's figures).
// The opponent's threat (asked with "threats") is a red arrow under the lines' arrows.
function showAnswer(answer) {
  view.show(answer)
  evalbar.show(answer)
  const arrows = (answer.lines || []).map((line, i) => ({uci: line.pv[0], kind: i === 0 ? "best" : "other"}))
  if (answer.threat && answer.threat.move) arrows.push({uci: answer.threat.move, kind: "threat"})
  board.showArrows(arrows)
}

function cancelAnalysis() {
  if (!running) return
  running.abort()
  running = null
  setAnalysing(false)
}

function setAnalysing(on, movetime = 0) {
  const button = $("analyse")
  button.disabled = on
  button.classList.toggle("working", on)
  button.textContent = on ? "Analysing…" : "Analyse"
  if (!on) $("stop").hidden = true
  if (on) view.busy(movetime)
  else view.idle()
}

// Plays the first `count` moves of a line (UCI) from the position shown, one at a time.
function playLine(pv, count) {
  stopPlayback()
  const moves = pv.slice(0, count)
  const next = () => {
    playback = null
    const uci = moves.shift()
    if (!uci || !game.play(uci)) return
    positionChanged()
    if (moves.length) playback = setTimeout(next, PLAY_STEP_MS)
  }
  next()
}

function stopPlayback() {
  if (playback) clearTimeout(playback)
  playback = null
}

// --- set-up: FEN, PGN, buttons -----------------------------------------------------------------

// The API is the judge of a FEN: a one-ply search either accepts it or says which field is wrong.
async function setFen() {
  const fen = $("fen").value.trim().replace(/\s+/g, " ")
  const errorBox = $("fen-error")
  errorBox.hidden = true
  if (!fen) return renderErrors(errorBox, {message: "Paste a FEN first."})
  stopPlayback()
  $("set-fen").disabled = true
  const result = await analyse({fen, variant: game.variant, movetime_ms: 1, depth: 1})
  $("set-fen").disabled = false
  if (!result.ok) return renderErrors(errorBox, result, "The API refused this FEN. ")
  const problem = game.loadFen(result.answer.fen)
  if (problem) return renderErrors(errorBox, {message: `The API accepts this position, but the board cannot show it: ${problem}`})
  leavePuzzleMode()
  positionChanged({animated: false, note: "Position set from FEN"})
}

function loadPgn(text) {
  const errorBox = $("pgn-error")
  errorBox.hidden = true
  if (!text.trim()) return renderErrors(errorBox, {message: "Paste a game in PGN first."})
  stopPlayback()
  const problem = game.loadPgn(text)
  if (problem) return renderErrors(errorBox, {message: `Could not read this PGN: ${problem}`})
  leavePuzzleMode()
  const count = game.moves.length
  positionChanged({animated: false, note: `Game loaded: ${count} move${count === 1 ? "" : "s"}. Step through it with → and ←.`})
}

async function openFile(file) {
  if (!file) return
  if (file.size > MAX_PGN_BYTES) {
    return renderErrors($("pgn-error"), {message: `${file.name} is ${Math.round(file.size / 1024)} KB; at most 1 MB.`})
  }
  try {
    $("pgn").value = await file.text()
  } catch (e) {
    return renderErrors($("pgn-error"), {message: `Could not read ${file.name}: ${(e && e.message) || e}`})
  }
  loadPgn($("pgn").value)
}

async function flip() {
  await board.flip()
  evalbar.setFlipped(board.orientation === "b")
}

function undo() {
  stopPlayback()
  if (game.undo()) positionChanged({animated: false})
}

function reset() {
  stopPlayback()
  leavePuzzleMode()
  if (game.variant === "chess960") game.reset(chess960Fen(startNumber()), {}, "chess960")
  else game.reset()
  $("pgn-error").hidden = true
  positionChanged({animated: false})
}

// --- variant: standard, or Chess960 from a numbered start ------------------------------------------

function startNumber() {
  const n = Number($("c960-number").value)
  return Number.isInteger(n) && n >= 0 && n < 960 ? n : STANDARD_NUMBER
}

// The controls follow the game (a pasted Chess960 PGN or FEN switches them).
function showVariant() {
  const c960 = game.variant === "chess960"
  $("variant").value = game.variant
  $("c960-number").hidden = $("c960-random").hidden = !c960
  const n = c960 ? chess960Number(game.startFen) : null
  if (n !== null) $("c960-number").value = n
}

function chooseVariant() {
  const errorBox = $("variant-error")
  errorBox.hidden = true
  stopPlayback()
  leavePuzzleMode()
  if ($("variant").value === "chess960") {
    const n = startNumber()
    game.reset(chess960Fen(n), {}, "chess960")
    positionChanged({animated: false, note: `Chess960 start position ${n}`})
  } else {
    game.reset()
    positionChanged({animated: false})
  }
}

function chooseStart(n) {
  const errorBox = $("variant-error")
  if (!(Number.isInteger(n) && n >= 0 && n < 960)) {
    return renderErrors(errorBox, {message: "A Chess960 start position is numbered 0 to 959."})
  }
  $("c960-number").value = n
  chooseVariant()
}

// --- wiring ------------------------------------------------------------------------------------

const KEYS = {
  ArrowLeft: () => step(-1), ArrowRight: () => step(1), ArrowUp: () => goTo(0), Home: () => goTo(0),
  ArrowDown: () => goTo(game.moves.length), End: () => goTo(game.moves.length), Backspace: undo,
  f: flip, a: () => { if (!$("analyse").disabled) runAnalysis() },
}

function onKey(event) {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return
  if (event.target.closest("input, textarea, select, [contenteditable]")) return
  if (board.board.isPromotionDialogShown && board.board.isPromotionDialogShown()) return
  const action = KEYS[event.key]
  if (!action) return
  event.preventDefault()
  action()
}

function showThinkTime() {
  $("movetime-value").textContent = duration(settings().movetime)
}

function wire() {
  $("controls").addEventListener("submit", (event) => {
    event.preventDefault()
    runAnalysis()
  })
  $("fen-form").addEventListener("submit", (event) => {
    event.preventDefault()
    setFen()
  })
  $("pgn-form").addEventListener("submit", (event) => {
    event.preventDefault()
    loadPgn($("pgn").value)
  })
  $("pgn-file").addEventListener("change", (event) => {
    openFile(event.target.files[0])
    event.target.value = ""
  })
  $("movetime").addEventListener("input", showThinkTime)
  $("variant").addEventListener("change", chooseVariant)
  $("c960-number").addEventListener("change", () => chooseStart(Number($("c960-number").value)))
  $("c960-random").addEventListener("click", () => chooseStart(Math.floor(Math.random() * 960)))
  $("stop").addEventListener("click", () => { if (live) live.stop() })
  $("first").addEventListener("click", () => goTo(0))
  $("prev").addEventListener("click", () => step(-1))
  $("next").addEventListener("click", () => step(1))
  $("last").addEventListener("click", () => goTo(game.moves.length))
  $("undo").addEventListener("click", undo)
  $("flip").addEventListener("click", flip)
  $("reset").addEventListener("click", reset)
  document.addEventListener("keydown", onKey)
}

wire()
showThinkTime()
positionChanged({animated: false})
$("analyse").disabled = false
document.documentElement.dataset.ready = "true"
performance.mark("kibitz-interactive")
