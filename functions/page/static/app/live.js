// The live analysis stream (docs/live.md): a WebSocket to the address the page names in
// <meta name="kibitz-live"> (the stack's LiveUrl; `kibitz serve` fills in its own). Each analysis sends
// {"action": "analyze", ..., "id"} and gets "info" messages as the search deepens, then the "result"
// (POST /analyze's answer) or an "error" (the API's {status, message, errors}). Never throws: the page
// falls back to POST /analyze when there is no stream, or it cannot be opened.
//
// A key, where the deployment requires one, comes from this page's own address (?key=...): a browser
// cannot set headers on a WebSocket, so it goes in the query string, where the stream's authorizer
// looks for it. ?live=off makes the page use POST /analyze only.

const OPEN_TIMEOUT_MS = 5000
const EXTRA_WAIT_MS = 30000 // beyond the think time: a cold start, the network

export class Live {
  static fromPage() {
    const meta = document.querySelector("meta[name=kibitz-live]")
    const url = meta ? meta.content.trim() : ""
    const params = new URLSearchParams(location.search)
    if (!/^wss?:\/\//.test(url) || params.get("live") === "off") return null
    const key = params.get("key")
    return new Live(key ? `${url}${url.includes("?") ? "&" : "?"}key=${encodeURIComponent(key)}` : url)
  }

  constructor(url) {
    this.url = url
    this.ws = null
    this.opening = null
    this.current = null // {id, onInfo, finish}
    this.count = 0
  }

  // Resolves true once the socket is open, false if it cannot be (never rejects).
  open() {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) return Promise.resolve(true)
    if (this.opening) return this.opening
    this.opening = new Promise((resolve) => {
      let ws
      try {
        ws = new WebSocket(this.url)
      } catch {
        resolve(false)
        return
      }
      const timer = setTimeout(() => { ws.close(); resolve(false) }, OPEN_TIMEOUT_MS)
      ws.onopen = () => { clearTimeout(timer); this.ws = ws; resolve(true) }
      ws.onerror = () => {} // the close that follows says it
      ws.onclose = () => {
        clearTimeout(timer)
        if (this.ws === ws) this.ws = null
        resolve(false)
        this.finish({ok: false, message: "The live connection closed; try again.", errors: []})
      }
      ws.onmessage = (event) => this.received(event.data)
    }).finally(() => { this.opening = null })
    return this.opening
  }

  // request: POST /analyze's fields. onInfo(info) for each iteration. Resolves as api.js's analyse().
  analyse(request, {onInfo, signal} = {}) {
    this.finish({ok: false, aborted: true, message: "replaced", errors: []})
    const id = `p${++this.count}`
    return new Promise((resolve) => {
      const timeout = setTimeout(() => this.finish({ok: false, message: "No answer in time from the live stream.",
        errors: []}), (request.movetime_ms || 1000) + EXTRA_WAIT_MS)
      const abort = () => {
        this.stop()
        this.finish({ok: false, aborted: true, message: "cancelled", errors: []})
      }
      if (signal) signal.addEventListener("abort", abort, {once: true})
      this.current = {id, onInfo, finish: (outcome) => {
        clearTimeout(timeout)
        if (signal) signal.removeEventListener("abort", abort)
        resolve(outcome)
      }}
      if (!this.send({action: "analyze", ...request, id})) {
        this.finish({ok: false, message: "The live connection is not open.", errors: []})
      }
    })
  }

  // Asks the search under way for its answer now (the result message still comes).
  stop() {
    return this.send({action: "stop"})
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false
    this.ws.send(JSON.stringify(message))
    return true
  }

  finish(outcome) {
    const current = this.current
    if (!current) return
    this.current = null
    current.finish(outcome)
  }

  received(data) {
    let message
    try {
      message = JSON.parse(data)
    } catch {
      return
    }
    const current = this.current
    if (!current || !message || message.id !== current.id) return // an earlier analysis's, or not ours
    if (message.type === "info") {
      if (current.onInfo) current.onInfo(message)
    } else if (message.type === "result") {
      const {type, id, ...answer} = message
      this.finish({ok: true, answer})
    } else if (message.type === "error") {
      const errors = Array.isArray(message.errors) ? message.errors : []
      this.finish({ok: false, status: message.status, message: message.message || "error", errors})
    }
  }
}
