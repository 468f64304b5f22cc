import * as http from "node:http"
import * as net from "node:net"

/**
 * How long a connection that has sent no request yet may take to send its first one once shutdown
 * starts, counted from when it connected (Go's `http.Server.Shutdown` treats a new connection as
 * idle after 5 s the same way): a client that connected just before the signal still gets its
 * answer, a browser's speculative pre-connection does not hold the shutdown for the whole grace.
 */
export const FIRST_REQUEST_MS = 5_000

/** Event-loop turns without a new connection or request after which the accept queue is empty. */
const QUIET_TURNS = 3

/** The most turns spent draining the accept queue under a steady stream of new connections. */
const MAX_TURNS = 200

const SWEEP_MS = 25

interface Connection {
  readonly connectedAt: number
  /** Requests that arrived on it. */
  requests: number
  /** Responses on it not finished yet. */
  open: number
}

/** What tracks a server's connections from the start, for a graceful close. */
export interface Drain {
  /** Requests whose response has not closed yet. */
  readonly inFlight: () => number
  /**
   * Close gracefully: accept what already waits in the accept queue, stop listening, answer every
   * request on the connections open by then with `Connection: close`, give a connection that has
   * sent nothing yet until {@link FIRST_REQUEST_MS} after it connected, close idle keep-alive
   * connections, and cut what still runs after `graceMs`. Resolves once every connection closed
   * and the server emitted `close`.
   */
  readonly close: (graceMs: number) => Promise<void>
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Track `server`'s connections and requests (call before it listens). Node's own `server.close()`
 * destroys every connection without a request in progress at once (Node ≥ 19) — a connection
 * accepted a moment before the signal, whose request is still in the socket's buffer, is reset
 * (`ECONNRESET`) — and closing the listening socket resets the connections the kernel completed but
 * the process had not accepted yet. `close` does neither.
 */
export const track = (server: http.Server): Drain => {
  const connections = new Map<net.Socket, Connection>()
  const responses = new Set<http.ServerResponse>()
  let closing = false
  let events = 0
  const closed = new Promise<void>((resolve) => server.once("close", () => resolve()))

  /** Once closing, a response closes its connection after it: `Connection: close`, or an end after it finished. */
  const closeAfter = (response: http.ServerResponse) => {
    if (!response.headersSent) {
      response.setHeader("connection", "close")
      return
    }
    // Node detaches the socket from the response as it finishes: keep it now.
    const socket = response.socket
    response.once("finish", () => socket?.end())
  }

  server.on("connection", (socket: net.Socket) => {
    events++
    connections.set(socket, { connectedAt: Date.now(), requests: 0, open: 0 })
    socket.once("close", () => connections.delete(socket))
  })
  server.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
    events++
    const connection = connections.get(request.socket)
    if (connection !== undefined) {
      connection.requests++
      connection.open++
    }
    responses.add(response)
    response.once("close", () => {
      responses.delete(response)
      if (connection !== undefined) connection.open--
    })
    if (closing) closeAfter(response)
  })

  const sweep = () => {
    const now = Date.now()
    for (const [socket, connection] of connections) {
      if (connection.open > 0) continue
      if (connection.requests > 0 || now - connection.connectedAt >= FIRST_REQUEST_MS) socket.destroy()
    }
  }

  const close = async (graceMs: number): Promise<void> => {
    if (closing) return closed
    closing = true
    for (const response of responses) closeAfter(response)
    // What the kernel accepted before the signal, and the requests already in the sockets' buffers,
    // reach the server within a few turns of the event loop (each poll phase accepts the whole queue).
    for (let quiet = 0, turns = 0; quiet < QUIET_TURNS && turns < MAX_TURNS; turns++) {
      const before = events
      await turn()
      quiet = events === before ? quiet + 1 : 0
    }
    // `net.Server#close`, not `http.Server#close`, which would destroy the idle connections at once.
    if (server.listening) net.Server.prototype.close.call(server)
    sweep()
    const sweeping = setInterval(sweep, SWEEP_MS)
    const deadline = setTimeout(() => {
      for (const socket of connections.keys()) socket.destroy()
    }, graceMs)
    await closed
    clearInterval(sweeping)
    clearTimeout(deadline)
  }

  return { inFlight: () => responses.size, close }
}
