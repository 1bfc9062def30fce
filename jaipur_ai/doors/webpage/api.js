// The JSON API of jaipur-ai web (docs/web.md): plain fetch, and server-sent events
// read from a POST answer's body.

export class ApiError extends Error {
  constructor(error) {
    super(error && error.message ? error.message : "the server gave no answer");
    this.type = error && error.type;
    this.field = error && error.field;
    this.reason = error && error.reason;
  }
}

async function answerOf(response) {
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok || data === null || data.error) {
    throw new ApiError(data && data.error ? data.error
      : { message: `HTTP ${response.status} ${response.statusText}` });
  }
  return data;
}

// api("POST", "/api/games", {level: "easy"}) -> the answer's JSON, or throws ApiError.
// A body given as a string is sent as it is (JSON text the page must not re-encode).
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  return answerOf(await fetch(path, init));
}

// The answer's JSON text, unparsed: records hold 64-bit seeds, which JavaScript's numbers
// would round, so the page keeps and sends records as text.
export async function apiText(path) {
  const response = await fetch(path);
  if (!response.ok) await answerOf(response);
  return response.text();
}

// The body {"record": <text>, ...fields} with the record's text kept exactly.
export function withRecord(recordText, fields = {}) {
  const rest = JSON.stringify(fields).slice(1, -1);
  return `{"record": ${recordText}${rest ? ", " + rest : ""}}`;
}

// Reads the event stream of a POST: onEvent(name, data) for each event; resolves at its
// end.  `signal` (an AbortController's) stops it, and the server stops the search.
export async function stream(path, body, onEvent, signal) {
  const response = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body), signal,
  });
  if (!response.ok || !(response.headers.get("Content-Type") || "").startsWith("text/event-stream")) {
    await answerOf(response);       // throws the server's error
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trim());
      }
      if (data.length) onEvent(name, JSON.parse(data.join("\n")));
    }
  }
}
