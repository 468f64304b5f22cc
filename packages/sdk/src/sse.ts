/** One Server-Sent Event as the stream carries it. */
export interface ServerSentEvent {
  readonly id: string | undefined
  readonly event: string
  readonly data: string
  /** A `retry:` field: the reconnection delay the server asks for, in milliseconds. */
  readonly retry: number | undefined
}

/**
 * Parses a `text/event-stream` (the WHATWG rules): lines end in CRLF, LF or CR; a blank line
 * dispatches the event; `:` starts a comment (a keep-alive); `data` lines join with `\n`; a field
 * without a colon has an empty value; one space after the colon is dropped. An event without data
 * is not dispatched, unless it sets an `id` (a position without an event: `data` is then empty).
 * Yields `{ id, event, data, retry }`, `event` being `message` when unnamed.
 */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent, void, undefined> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  let data: Array<string> = []
  let event = ""
  let id: string | undefined
  let retry: number | undefined
  /** The block being read set an `id`. */
  let named = false
  /** The previous chunk ended in CR: a LF starting this one belongs to it. */
  let pendingCr = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buffer += decoder.decode(value, { stream: true })
      if (pendingCr && buffer.startsWith("\n")) buffer = buffer.slice(1)
      pendingCr = false
      for (;;) {
        const end = buffer.search(/\r\n|\n|\r/)
        if (end === -1) break
        if (buffer[end] === "\r" && end === buffer.length - 1) {
          pendingCr = true
        }
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1))
        if (line === "") {
          if (data.length > 0 || named) yield { id, event: event === "" ? "message" : event, data: data.join("\n"), retry }
          named = false
          data = []
          event = ""
          retry = undefined
          continue
        }
        if (line.startsWith(":")) continue
        const colon = line.indexOf(":")
        const field = colon === -1 ? line : line.slice(0, colon)
        const raw = colon === -1 ? "" : line.slice(colon + 1)
        const text = raw.startsWith(" ") ? raw.slice(1) : raw
        if (field === "data") data.push(text)
        else if (field === "event") event = text
        else if (field === "id" && !text.includes("\0")) {
          id = text
          named = true
        } else if (field === "retry" && /^\d+$/.test(text)) retry = Number(text)
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}
