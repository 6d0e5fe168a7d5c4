// The eval bar: White's share of the game, drawn from White's side of the board.
// The share is the API's own win/draw/loss (wdl, permille for the side to move) or win chance when the
// answer has them; otherwise it comes from the score, with the logistic curve Lichess uses.

import {scoreText} from "./format.js"

const CP_SLOPE = 0.00368208 // Lichess's fit of win chance to centipawns

// White's expected share, 0..1, of an analysis answer.
export function whiteShare(answer) {
  const white = answer.side_to_move !== "black"
  if (answer.result) return {"1-0": 1, "0-1": 0}[answer.result] ?? 0.5
  const wdl = answer.wdl
  if (wdl && [wdl.win, wdl.draw, wdl.loss].every((x) => typeof x === "number")) {
    const mover = (wdl.win + wdl.draw / 2) / 1000
    return clamp(white ? mover : 1 - mover)
  }
  if (typeof answer.win_chance === "number") {
    const mover = answer.win_chance > 1 ? answer.win_chance / 100 : answer.win_chance
    return clamp(white ? mover : 1 - mover)
  }
  return shareOfScore(answer.score_white)
}

export function shareOfScore(score) {
  if (!score) return 0.5
  if (typeof score.mate === "number") return score.mate > 0 ? 1 : score.mate < 0 ? 0 : 0.5
  return clamp(1 / (1 + Math.exp(-CP_SLOPE * (score.cp || 0))))
}

// What fits in the bar: "+0.3", "-2.1", "+12", "#3".
export function shortScore(score) {
  if (!score) return ""
  if (typeof score.mate === "number") return scoreText(score)
  const pawns = (score.cp || 0) / 100
  const digits = Math.abs(pawns) >= 10 ? 0 : 1
  return (pawns > 0 ? "+" : "") + pawns.toFixed(digits)
}

function clamp(x) {
  return Math.max(0, Math.min(1, x))
}

export class EvalBar {
  constructor(element) {
    this.element = element
    this.fill = element.querySelector(".evalbar-white")
    this.label = element.querySelector(".evalbar-label")
    this.clear()
  }

  // flipped: Black at the bottom of the board, so White's part of the bar is at the top.
  setFlipped(flipped) {
    this.element.classList.toggle("flipped", flipped)
  }

  show(answer) {
    const share = whiteShare(answer)
    const text = answer.result || scoreText(answer.score_white)
    this.element.classList.remove("empty")
    this.fill.style.height = `${(share * 100).toFixed(1)}%`
    this.label.textContent = answer.result ? answer.result.replace("1/2-1/2", "½") : shortScore(answer.score_white)
    this.label.classList.toggle("for-black", share < 0.5)
    this.element.setAttribute("aria-valuenow", (share * 100).toFixed(0))
    this.element.dataset.score = text
    this.element.title = `White's share ${(share * 100).toFixed(0)}% (${text})`
  }

  clear() {
    this.element.classList.add("empty")
    this.fill.style.height = "50%"
    this.label.textContent = ""
    this.element.dataset.score = ""
    this.element.setAttribute("aria-valuenow", "50")
    this.element.title = "No analysis yet"
  }
}
