// The game's moves, numbered, in pairs; the current one is highlighted and a click goes to it.

import {numbered} from "./format.js"

export class MoveList {
  // onSelect(ply): show the position after that many moves.
  constructor(list, hint, title, onSelect) {
    this.list = list
    this.hint = hint
    this.title = title
    this.onSelect = onSelect
    list.addEventListener("click", (event) => {
      const move = event.target.closest("[data-ply]")
      if (move) onSelect(Number(move.dataset.ply))
    })
  }

  render(game) {
    const items = []
    numbered(game.startFen, game.moves.map((m) => m.san)).forEach(({label, san}, i) => {
      if (label) {
        const number = document.createElement("li")
        number.className = "move-number"
        number.textContent = label.replace("…", "")
        items.push(number)
        if (label.endsWith("…")) items.push(placeholder())
      }
      const move = document.createElement("li")
      move.className = "move"
      move.dataset.ply = i + 1
      move.textContent = san
      move.setAttribute("role", "button")
      if (i + 1 === game.ply) move.classList.add("current")
      items.push(move)
    })
    this.list.replaceChildren(...items)
    this.hint.hidden = game.moves.length > 0
    this.title.textContent = gameTitle(game.headers)
    this.scrollTo(this.list.querySelector(".current"))
  }

  // Only the list scrolls (scrollIntoView would move the whole page on a phone).
  scrollTo(move) {
    const list = this.list
    if (!move) {
      list.scrollTop = 0
    } else if (move.offsetTop < list.scrollTop) {
      list.scrollTop = move.offsetTop
    } else if (move.offsetTop + move.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = move.offsetTop + move.offsetHeight - list.clientHeight
    }
  }
}

function placeholder() {
  const empty = document.createElement("li")
  empty.className = "move empty"
  empty.textContent = "…"
  return empty
}

function gameTitle(headers) {
  const known = (v) => v && v !== "?" && v !== "-"
  const white = headers.White, black = headers.Black
  if (!known(white) && !known(black)) return ""
  const result = known(headers.Result) && headers.Result !== "*" ? ` (${headers.Result})` : ""
  return `${known(white) ? white : "?"} – ${known(black) ? black : "?"}${result}`
}
