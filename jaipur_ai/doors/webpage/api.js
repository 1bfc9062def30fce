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

// JSON.parse, except that a "seed" too large for JavaScript's numbers (seeds are 63-bit)
// is kept as its digits: shown rounded, it would name another game or search.
export function parseJson(text) {
  return JSON.parse(text.replace(/"seed"(\s*):(\s*)(\d{16,})/g, '"seed"$1:$2"$3"'));
}

// The JSON text of `fields` plus "seed" from a form's box, its digits sent exactly.
export function withSeed(fields, seedText) {
  const text = JSON.stringify(fields);
  if (seedText === "") return text;
  const seed = /^\d+$/.test(seedText) ? seedText : JSON.stringify(seedText);
  return `${text.slice(0, -1)}${text === "{}" ? "" : ", "}"seed": ${seed}}`;
}

async function answerOf(response) {
  let data = null;
  try { data = parseJson(await response.text()); } catch (e) { data = null; }
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
      if (data.length) onEvent(name, parseJson(data.join("\n")));
    }
  }
}
