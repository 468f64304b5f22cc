import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

/** A request the server received. */
export interface RecordedRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly at: number
}

/** One scripted answer. An object body is sent as JSON. */
export interface Reply {
  readonly status: number
  readonly headers?: Record<string, string>
  readonly body?: string | object
  /** Wait this long before answering (for timeouts and aborts). */
  readonly delayMs?: number
}

/** A real HTTP server on 127.0.0.1 answering from a script. */
export interface ScriptServer {
  readonly url: string
  readonly requests: ReadonlyArray<RecordedRequest>
  readonly close: () => Promise<void>
}

/**
 * Starts a server that answers the n-th request with `script[n]` (or `script(request, n)`);
 * requests past the end of a list get 500 `UNSCRIPTED`.
 */
export const startScriptServer = async (
  script: ReadonlyArray<Reply> | ((request: RecordedRequest, index: number) => Reply)
): Promise<ScriptServer> => {
  const requests: Array<RecordedRequest> = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now()
      }
      const index = requests.push(recorded) - 1
      const reply = typeof script === "function"
        ? script(recorded, index)
        : script[index] ?? { status: 500, body: { error: { code: "UNSCRIPTED", message: "no reply", requestId: "-" } } }
      const send = () => {
        const isJson = typeof reply.body === "object"
        const payload = reply.body === undefined ? "" : isJson ? JSON.stringify(reply.body) : String(reply.body)
        res.writeHead(reply.status, {
          ...(isJson ? { "content-type": "application/json" } : reply.body === undefined ? {} : { "content-type": "text/plain" }),
          ...reply.headers
        })
        res.end(payload)
      }
      if (reply.delayMs === undefined) send()
      else setTimeout(() => !res.destroyed && send(), reply.delayMs).unref()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** An address where nothing listens: a server is started for a free port, then closed. */
export const refusedUrl = async (): Promise<string> => {
  const server = await startScriptServer([])
  await server.close()
  return server.url
}

/** The error envelope a Core service answers with. */
export const envelope = (code: string, message: string, requestId: string, details: object | null = null) => ({
  error: { code, message, requestId, details }
})
