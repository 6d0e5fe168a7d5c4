// The analysis API on this page's own origin: POST analyze (a relative URL, so it works under a stage
// prefix such as /Prod/ as at the root). Never throws: every outcome is {ok: true, answer} or
// {ok: false, message, errors}, with the API's own words where it gave any.

const EXTRA_WAIT_MS = 30000 // beyond the think time: a cold start, the network

export async function analyse(request, signal) {
  const timeout = AbortSignal.timeout((request.movetime_ms || 1000) + EXTRA_WAIT_MS)
  const signals = signal ? AbortSignal.any([signal, timeout]) : timeout
  let response
  try {
    response = await fetch("analyze", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify(request),
      signal: signals,
    })
  } catch (e) {
    if (signal && signal.aborted) return {ok: false, aborted: true, message: "cancelled", errors: []}
    const why = timeout.aborted ? "no answer in time" : (e && e.message) || "network error"
    return {ok: false, message: `Could not reach the API: ${why}`, errors: []}
  }
  let body = null
  try {
    body = await response.json()
  } catch {
    body = null
  }
  if (response.ok && body && typeof body === "object") return {ok: true, answer: body}
  return refused(response.status, body)
}

// The API's errors are {status, message, errors: [{field, reason}]}; API Gateway's own (403, 429,
// 502, 504) are {message}; anything else gets its status.
function refused(status, body) {
  if (body && Array.isArray(body.errors) && body.errors.length) {
    return {ok: false, status, message: body.message || "", errors: body.errors}
  }
  const said = body && typeof body.message === "string" ? body.message : "no readable answer"
  return {ok: false, status, message: `HTTP ${status}: ${said}`, errors: []}
}
