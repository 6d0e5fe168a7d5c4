// Chess960's rules on chess.js, which knows only standard chess: chess.js moves every piece in a copy of
// the position with no castling rights; castling, the rights and the FEN's castling field are here.
// Castling is written king-to-rook (lan e1h1), as the API reads and writes it in Chess960, and the
// castling field as X-FEN, as the engine writes it (KQkq, or the rook's file where that rook is not the
// outermost on its wing). A Chess960 object answers the part of chess.js's interface the page uses.

import {Chess} from "../vendor/chess.js/chess.js"

const FILES = "abcdefgh"
const KNIGHTS = [[0, 1], [0, 2], [0, 3], [0, 4], [1, 2], [1, 3], [1, 4], [2, 3], [2, 4], [3, 4]]
export const STANDARD_NUMBER = 518 // the Chess960 start that is standard chess's

// Start position `number` (0-959) by Scharnagl's numbering, as engine/fen.py's chess960_fen writes it.
export function chess960Fen(number) {
  const rank = Array(8).fill("")
  const free = () => [...Array(8).keys()].filter((f) => !rank[f])
  let n = number
  rank[2 * (n % 4) + 1] = "B"
  n = Math.floor(n / 4)
  rank[2 * (n % 4)] = "B"
  n = Math.floor(n / 4)
  rank[free()[n % 6]] = "Q"
  n = Math.floor(n / 6)
  const empty = free()
  for (const i of KNIGHTS[n]) rank[empty[i]] = "N"
  free().forEach((f, i) => { rank[f] = "RKR"[i] })
  const white = rank.join("")
  return `${white.toLowerCase()}/pppppppp/8/8/8/8/PPPPPPPP/${white} w KQkq - 0 1`
}

// The start's number when `fen` is a Chess960 start position, else null.
export function chess960Number(fen) {
  const board = (fen || "").split(" ")[0]
  for (let n = 0; n < 960; n++) if (chess960Fen(n).split(" ")[0] === board) return n
  return null
}

export function isChess960Tag(value) {
  return /960|fischer/i.test(value || "")
}

function squares(field) {
  const out = {}
  field.split("/").forEach((row, i) => {
    let file = 0
    for (const c of row) {
      if (/\d/.test(c)) file += Number(c)
      else out[FILES[file++] + (8 - i)] = c
    }
  })
  return out
}

function boardField(pieces) {
  const rows = []
  for (let rank = 8; rank >= 1; rank--) {
    let row = ""
    let gap = 0
    for (const file of FILES) {
      const piece = pieces[file + rank]
      if (!piece) {
        gap += 1
        continue
      }
      if (gap) row += gap
      gap = 0
      row += piece
    }
    rows.push(row + (gap || ""))
  }
  return rows.join("/")
}

const home = (color) => (color === "w" ? 1 : 8)
const ofColor = (color, piece) => (color === "w" ? piece.toUpperCase() : piece)
const rookSquare = (right) => right.file + home(right.color)

function kingFile(pieces, color) {
  return [...FILES].findIndex((f) => pieces[f + home(color)] === ofColor(color, "k"))
}

function rookFiles(pieces, color) {
  return [...Array(8).keys()].filter((i) => pieces[FILES[i] + home(color)] === ofColor(color, "r"))
}

// [{color, file, kingside}] from a castling field (X-FEN or Shredder-FEN); throws naming what is wrong.
function parseRights(field, pieces) {
  if (field === "-") return []
  const rights = []
  for (const c of field) {
    const color = c === c.toUpperCase() ? "w" : "b"
    const king = kingFile(pieces, color)
    const rooks = rookFiles(pieces, color)
    const name = color === "w" ? "white" : "black"
    if (!/^[KQA-H]$/i.test(c)) throw new Error(`castling field: bad character ${c}`)
    if (king < 0) throw new Error(`castling field: ${c} needs the ${name} king on its first rank`)
    const wing = /k/i.test(c) ? rooks.filter((f) => f > king) : rooks.filter((f) => f < king)
    let file = FILES.indexOf(c.toLowerCase())
    if (/k/i.test(c)) file = wing.length ? wing[wing.length - 1] : -1 // the outermost rook
    if (/q/i.test(c)) file = wing.length ? wing[0] : -1
    if (file < 0 || file === king || !rooks.includes(file)) {
      throw new Error(`castling field: ${c} needs a ${name} rook for it on the first rank`)
    }
    const right = {color, file: FILES[file], kingside: file > king}
    if (rights.some((r) => r.color === color && r.kingside === right.kingside)) {
      throw new Error(`castling field: two rights on one wing (${field})`)
    }
    rights.push(right)
  }
  return rights
}

function formatRights(rights, pieces) {
  let out = ""
  for (const [color, kingside, letter] of [["w", true, "K"], ["w", false, "Q"], ["b", true, "k"], ["b", false, "q"]]) {
    const right = rights.find((r) => r.color === color && r.kingside === kingside)
    if (!right) continue
    const file = FILES.indexOf(right.file)
    const outer = rookFiles(pieces, color).filter((f) => (kingside ? f > file : f < file))
    out += outer.length ? ofColor(color, right.file) : letter
  }
  return out || "-"
}

function withCastling(fen, field) {
  const fields = fen.split(" ")
  fields[2] = field
  return fields.join(" ")
}

const plainSan = (san) => san.replace(/[+#!?]+$/, "").replace(/0/g, "O")

export class Chess960 {
  constructor(fen) {
    this.load(fen)
  }

  load(fen) {
    const f = fen.trim().split(/\s+/)
    if (f.length < 4) throw new Error("a FEN has at least 4 fields")
    const pieces = squares(f[0])
    const rights = parseRights(f[2], pieces)
    this.chess = new Chess([f[0], f[1], "-", f[3], f[4] || "0", f[5] || "1"].join(" "))
    this.pieces = pieces
    this.rights = rights
  }

  fen() {
    return withCastling(this.chess.fen(), formatRights(this.rights, this.pieces))
  }

  turn() {
    return this.chess.turn()
  }

  inCheck() {
    return this.chess.inCheck()
  }

  isCheckmate() {
    return this.chess.isCheckmate() // castling is never a way out of check
  }

  isStalemate() {
    return this.chess.isStalemate() && this.castlings().length === 0
  }

  isInsufficientMaterial() {
    return this.chess.isInsufficientMaterial()
  }

  // Moves as chess.js's verbose ones (castling: from the king, to the rook). For the board, `targets`
  // adds castling by the king's own destination (g1, c1) where no other king move goes there.
  moves({square, targets = false} = {}) {
    const plain = this.plain(square)
    const castles = this.castlings().filter((m) => !square || m.from === square)
    const aliases = targets ? castles.filter((m) => m.kingTo !== m.to && m.kingTo !== m.from &&
      !plain.some((p) => p.from === m.from && p.to === m.kingTo)).map((m) => ({...m, to: m.kingTo})) : []
    return [...plain, ...castles, ...aliases]
  }

  plain(square) {
    const before = this.fen()
    return this.chess.moves({verbose: true, square}).map((m) => {
      const rights = this.rights.filter((r) => !(r.color === m.color && m.piece === "k") &&
        rookSquare(r) !== m.from && rookSquare(r) !== m.to)
      const after = withCastling(m.after, formatRights(rights, squares(m.after.split(" ")[0])))
      return {color: m.color, piece: m.piece, from: m.from, to: m.to, san: m.san, lan: m.lan,
        promotion: m.promotion, captured: m.captured, flags: m.flags, before, after}
    })
  }

  castlings() {
    const us = this.turn()
    const them = us === "w" ? "b" : "w"
    if (this.chess.inCheck()) return []
    const rank = home(us)
    const king = kingFile(this.pieces, us)
    const out = []
    for (const right of this.rights.filter((r) => r.color === us)) {
      const rook = FILES.indexOf(right.file)
      const kingTo = right.kingside ? 6 : 2
      const rookTo = right.kingside ? 5 : 3
      const span = [king, kingTo, rook, rookTo]
      let clear = true
      for (let f = Math.min(...span); f <= Math.max(...span); f++) {
        if (f !== king && f !== rook && this.pieces[FILES[f] + rank]) clear = false
      }
      let safe = true
      for (let f = Math.min(king, kingTo); f <= Math.max(king, kingTo); f++) {
        if (this.chess.isAttacked(FILES[f] + rank, them)) safe = false
      }
      if (!clear || !safe) continue
      const pieces = {...this.pieces}
      delete pieces[FILES[king] + rank]
      delete pieces[FILES[rook] + rank]
      pieces[FILES[kingTo] + rank] = ofColor(us, "k")
      pieces[FILES[rookTo] + rank] = ofColor(us, "r")
      const [, , , , half, full] = this.chess.fen().split(" ")
      const next = new Chess960([boardField(pieces), them, formatRights(this.rights.filter((r) => r.color !== us), pieces),
        "-", Number(half) + 1, Number(full) + (us === "b" ? 1 : 0)].join(" "))
      if (next.chess.isAttacked(FILES[kingTo] + rank, them)) continue // the rook was shielding the king
      const check = next.isCheckmate() ? "#" : next.inCheck() ? "+" : ""
      const from = FILES[king] + rank
      const to = rookSquare(right)
      out.push({color: us, piece: "k", from, to, kingTo: FILES[kingTo] + rank, san: (right.kingside ? "O-O" : "O-O-O") + check,
        lan: from + to, flags: right.kingside ? "k" : "q", before: this.fen(), after: next.fen()})
    }
    return out
  }

  // Plays a move: SAN ("O-O", "Nf3"), or {from, to, promotion} (castling: the king onto its rook, or to
  // its destination). Returns the move; throws when it is not legal, as chess.js does.
  move(input) {
    let found
    if (typeof input === "string") {
      const moves = this.moves()
      found = moves.find((m) => plainSan(m.san) === plainSan(input)) || moves.find((m) => m.lan === input)
    } else {
      found = this.moves({square: input.from, targets: true}).find((m) => m.to === input.to &&
        (!m.promotion || m.promotion === (input.promotion || "q")))
    }
    if (!found) throw new Error(`Invalid move: ${typeof input === "string" ? input : JSON.stringify(input)}`)
    this.load(found.after)
    const {kingTo, ...move} = found
    return kingTo ? {...move, to: move.lan.slice(2, 4)} : move // castling by its destination is still king-to-rook
  }
}

// The first game of a PGN text under Chess960's rules: {headers, startFen, moves}; throws naming the move.
export function readPgn960(text) {
  const first = text.split(/(?:1-0|0-1|1\/2-1\/2|\*)\s*(?=\[)/)[0]
  const headers = {}
  const tag = /\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]/g
  for (const m of first.matchAll(tag)) headers[m[1]] = m[2].replace(/\\(.)/g, "$1")
  let body = first.replace(tag, " ").replace(/\{[^}]*\}/g, " ").replace(/;[^\n]*/g, " ")
  for (let before = null; before !== body;) {
    before = body
    body = body.replace(/\([^()]*\)/g, " ") // variations, innermost first
  }
  const tokens = body.split(/\s+/).map((t) => t.replace(/^\d+\.+/, ""))
    .filter((t) => t && !/^(\$\d+|1-0|0-1|1\/2-1\/2|\*)$/.test(t))
  const position = new Chess960(headers.FEN || chess960Fen(STANDARD_NUMBER))
  const startFen = position.fen()
  const moves = tokens.map((token, i) => {
    try {
      return position.move(token)
    } catch {
      throw new Error(`move ${i + 1} (${token}) is not legal in Chess960 here`)
    }
  })
  return {headers, startFen, moves}
}
