// "Solve your mistakes": a review's puzzles (GET jobs/{id}: games[].puzzles, docs/review.md) on the board.
// Each puzzle is a position of the game where the player to move had one clearly winning or saving move
// and played another. The board shows it from the solver's side and waits for a move (drag or click): the
// solution's move is right (so is any other move that mates), and the reply is played after it, until the
// solution ends; any other move is wrong, shown on the board until Retry takes it back or Show the
// solution plays the solution out. Never throws.
//
// The puzzle's progress is read from the game itself (its start is the puzzle's position, its moves the
// ones played since), so stepping back with the toolbar and playing again is judged the same way.

const REPLY_MS = 450 // between the solver's right move and the reply
const STEP_MS = 500 // between the moves of a solution played out

export class Puzzles {
  // game, board: the page's; refresh(note, animated): redraw the page after the game changed (main.js),
  // resolving once the board has drawn it;
  // orient(color): the side at the bottom; leave(puzzle): back to the reviewed game, at the puzzle's move.
  constructor(root, {game, board, refresh, orient, leave}) {
    this.root = root
    this.game = game
    this.board = board
    this.refresh = refresh
    this.orient = orient
    this.leave = leave
    this.list = []
    this.index = 0
    this.state = "off" // off | waiting | replying | wrong | solved | shown
    this.timer = null
    const $ = (id) => root.querySelector(`#${id}`)
    this.el = {count: $("puzzle-count"), prompt: $("puzzle-prompt"), feedback: $("puzzle-feedback"),
      themes: $("puzzle-themes"), retry: $("puzzle-retry"), solution: $("puzzle-solution"), next: $("puzzle-next"),
      exit: $("puzzle-exit")}
    this.el.retry.addEventListener("click", () => this.retry())
    this.el.solution.addEventListener("click", () => this.showSolution())
    this.el.next.addEventListener("click", () => this.open((this.index + 1) % this.list.length))
    this.el.exit.addEventListener("click", () => this.exit())
  }

  get active() {
    return this.state !== "off"
  }

  get puzzle() {
    return this.list[this.index]
  }

  // puzzles: the review's list; variant: its game's.
  start(puzzles, variant) {
    this.list = puzzles.filter((p) => p && typeof p.fen === "string" && Array.isArray(p.solution) && p.solution.length)
    this.variant = variant
    if (!this.list.length) return
    this.root.hidden = false
    this.open(0)
    window.scrollTo({top: 0}) // the board and this card: side by side, or one above the other on a phone
  }

  open(index) {
    this.stopTimer()
    this.index = index
    const p = this.puzzle
    const solver = p.fen.split(" ")[1] === "b" ? "b" : "w"
    this.game.reset(p.fen, {}, this.variant)
    this.setState("waiting")
    this.orient(solver)
    this.refresh("Your move: find the best one", false)
    this.el.count.textContent = `${index + 1} of ${this.list.length}`
    this.el.prompt.textContent = `${solver === "w" ? "White" : "Black"} to move. Find the move the game missed.`
    this.el.themes.textContent = (p.themes || []).length ? `Themes: ${p.themes.join(", ")}` : ""
    this.say("", "")
  }

  // Called by main.js after the user played a move on the board.
  moved(move) {
    if (this.state !== "waiting") return
    const p = this.puzzle
    const i = this.game.ply - 1
    const before = this.game.moves.slice(0, i)
    if (this.game.startFen !== p.fen || before.some((m, j) => m.lan !== p.solution[j])) return this.wrong(move)
    const mates = move.san.endsWith("#")
    if (move.lan !== p.solution[i] && !(mates && i % 2 === 0)) return this.wrong(move)
    if (mates || i + 1 >= p.solution.length) return this.solved(move)
    if (i % 2 === 1) { // the reply, played by hand after stepping back: the solver's move is next
      this.say("right", `${move.san}: yes, that is the reply. Your move.`)
      return
    }
    this.say("right", `Right: ${move.san}!`)
    this.setState("replying")
    this.timer = setTimeout(async () => {
      this.timer = null
      const reply = this.game.play(p.solution[i + 1])
      if (reply) this.say("right", `Right: ${move.san}! ${reply.san} is the reply. Keep going.`)
      await this.refresh(reply ? `${reply.san} was the reply: your move` : "Your move", true)
      if (this.state === "replying" && this.puzzle === p) this.setState("waiting") // the board takes moves again
    }, REPLY_MS)
  }

  wrong(move) {
    this.setState("wrong")
    this.say("wrong", `Wrong: ${move.san} is not it. Retry, or show the solution.`)
    this.refresh(`${move.san} is not the move`, false)
  }

  solved(move) {
    this.setState("solved")
    const p = this.puzzle
    const game = p.played_san ? ` In the game, ${p.played_san} was played.` : ""
    this.say("right", `Right: ${move.san}! Solved.${game}`)
    this.refresh("Solved", false)
  }

  // After a wrong move: take it back, to the position the puzzle waits in.
  retry() {
    if (this.state !== "wrong") return
    this.game.undo()
    this.setState("waiting")
    this.say("", "Try again.")
    this.refresh("Your move: find the best one", false)
  }

  // Plays the rest of the solution from where the solver is (a wrong move taken back first).
  showSolution() {
    if (!["waiting", "wrong"].includes(this.state)) return
    this.stopTimer()
    const p = this.puzzle
    if (this.state === "wrong") this.game.undo()
    const done = this.game.moves.findIndex((m, j) => m.lan !== p.solution[j])
    this.game.goTo(this.game.moves.length)
    if (done !== -1) { // stepped off the solution: from the puzzle's position again
      this.game.reset(p.fen, {}, this.variant)
    }
    this.setState("shown")
    const sans = p.solution_san && p.solution_san.length === p.solution.length ? p.solution_san : p.solution
    this.say("shown", `The solution: ${sans.join(" ")}.${p.played_san ? ` In the game, ${p.played_san} was played.` : ""}`)
    this.refresh("The solution", false)
    const next = () => {
      this.timer = null
      const k = this.game.ply
      if (k >= p.solution.length || !this.game.play(p.solution[k])) return
      this.refresh("The solution", true)
      if (this.game.ply < p.solution.length) this.timer = setTimeout(next, STEP_MS)
    }
    this.timer = setTimeout(next, STEP_MS / 2)
  }

  exit() {
    if (!this.active) return
    const p = this.puzzle
    this.end()
    this.leave(p)
  }

  // Leaves the puzzle mode without touching the game (a new game or position was set up).
  end() {
    this.stopTimer()
    this.setState("off")
    this.root.hidden = true
  }

  setState(state) {
    this.state = state
    this.root.dataset.state = state
    this.board.locked = !["waiting", "off"].includes(state)
    this.el.retry.hidden = state !== "wrong"
    this.el.solution.hidden = !["waiting", "wrong"].includes(state)
    this.el.next.hidden = !(["solved", "shown"].includes(state) && this.list.length > 1)
  }

  say(kind, words) {
    this.el.feedback.textContent = words
    this.el.feedback.className = `puzzle-feedback ${kind}`
  }

  stopTimer() {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }
}
