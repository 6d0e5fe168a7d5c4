// Text for people: scores, counts, durations and numbered moves.

// {cp: 31} -> "+0.31"; {mate: 3} -> "#3"; {mate: -3} -> "#-3" (the API's score objects).
export function scoreText(score) {
  if (!score) return ""
  if (typeof score.mate === "number") return score.mate === 0 ? "#" : `#${score.mate}`
  const pawns = (score.cp || 0) / 100
  return (pawns > 0 ? "+" : "") + pawns.toFixed(2)
}

// The same, in words: "Mate in 3", "Mated in 2", "+0.31".
export function scoreWords(score, side) {
  if (!score) return ""
  if (typeof score.mate === "number") {
    if (score.mate === 0) return `${side} is mated`
    return score.mate > 0 ? `${side} mates in ${score.mate}` : `${side} is mated in ${-score.mate}`
  }
  return scoreText(score)
}

// 1234567 -> "1.23M"; 45200 -> "45.2k".
export function compact(n) {
  if (typeof n !== "number" || !isFinite(n)) return "–"
  for (const [size, unit] of [[1e9, "G"], [1e6, "M"], [1e3, "k"]]) {
    if (Math.abs(n) >= size) return `${(n / size).toPrecision(3)}${unit}`
  }
  return String(n)
}

// 100 -> "100 ms"; 1000 -> "1 s"; 2500 -> "2.5 s".
export function duration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`
  const s = ms / 1000
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`
}

// The move number and colour of each ply of a line starting at `fen`:
// [{label: "12.", san}, {label: "", san}, ...], or "12…" when Black starts.
export function numbered(fen, sans) {
  const fields = (fen || "").split(" ")
  let number = parseInt(fields[5], 10) || 1
  let black = fields[1] === "b"
  return sans.map((san, i) => {
    const label = !black ? `${number}.` : (i === 0 ? `${number}…` : "")
    if (black) number += 1
    black = !black
    return {label, san}
  })
}
