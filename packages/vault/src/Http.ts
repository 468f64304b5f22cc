import { readFileSync } from "node:fs"
import { HttpServerResponse } from "@effect/platform"
import { GATEWAY_PREFIXES, Vault as Contracts } from "@core/contracts"
import { type Caller, ErrorResponse, PublicUrl, Route } from "@core/kernel"
import { Effect } from "effect"
import { ownerOf } from "./Policy.js"
import { type Answer, answer, classify, DEFAULT_PROTOCOL_VERSION, ErrorCode, failure, type Message, PROTOCOL_VERSIONS } from "./Protocol.js"
import { Sessions } from "./Sessions.js"
import { Vault } from "./Vault.js"

/** The server's name and version in `initialize`. */
const SERVER = {
  name: "core-vault",
  version: (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version
}

const SESSION_HEADER = "mcp-session-id"
/** The protocol versions that take JSON-RPC batches (2025-06-18 removed them). */
const BATCHING_VERSIONS: ReadonlySet<string> = new Set(["2025-03-26"])
const VERSION_HEADER = "mcp-protocol-version"

const jsonRpc = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers })

/**
 * The kernel's failures before the handler runs (401, a body that is not JSON, a body too large)
 * as JSON-RPC errors with the same HTTP status: what an MCP client can read. The gateway answers
 * its own refusals of `/mcp` (no or bad credentials, rate limits, DNS rebinding) with it too.
 */
export const renderer: ErrorResponse.Renderer = {
  render: (problem, requestId) => {
    const code = problem.code === "INVALID_JSON" ? ErrorCode.ParseError
      : problem.status === 400 ? ErrorCode.InvalidRequest
      : problem.kind === "internal" ? ErrorCode.InternalError
      : -32000
    const message = code === ErrorCode.ParseError ? `Parse error: ${problem.message}` : problem.message
    // The table's headers go along: the 401's challenge, a 429's Retry-After.
    return jsonRpc(problem.status, failure(null, code, message, { code: problem.code, requestId }), problem.headers)
  }
}

/** What the client accepts: JSON (also when it says nothing or `*\/*`), else only an event stream, else neither. */
const acceptOf = (header: string | undefined): "json" | "sse" | "none" => {
  if (header === undefined || header.trim() === "") return "json"
  const types = header.toLowerCase().split(",").map((part) => part.split(";")[0].trim())
  if (types.some((type) => type === "application/json" || type === "*/*" || type === "application/*")) return "json"
  if (types.some((type) => type === "text/event-stream" || type === "text/*")) return "sse"
  return "none"
}

const eventStream = (answers: ReadonlyArray<Answer>, headers: Record<string, string>) =>
  HttpServerResponse.text(answers.map((one) => `event: message\ndata: ${JSON.stringify(one)}\n\n`).join(""), {
    status: 200,
    contentType: "text/event-stream",
    headers: { ...headers, "cache-control": "no-cache" }
  })

/**
 * `POST /mcp`: one JSON-RPC message or a batch. Requests are answered in JSON, or as Server-Sent
 * Events when the client accepts only those; notifications and responses alone get 202. An
 * `initialize` issues the `Mcp-Session-Id`; a later request that sends one must send a live one
 * of the same caller (404 otherwise: the client initializes again). Decision 0403.
 */
const post = (caller: Caller, body: unknown, headers: Readonly<Record<string, string | undefined>>) =>
  Effect.gen(function*() {
    const accept = acceptOf(headers.accept)
    if (accept === "none") {
      return jsonRpc(406, failure(null, ErrorCode.InvalidRequest, "Not Acceptable: accept application/json or text/event-stream"))
    }
    const version = headers[VERSION_HEADER]
    if (version !== undefined && !(PROTOCOL_VERSIONS as ReadonlyArray<string>).includes(version.trim())) {
      return jsonRpc(400, failure(null, ErrorCode.InvalidRequest, `Unsupported MCP-Protocol-Version: ${version.slice(0, 40)} (supported: ${PROTOCOL_VERSIONS.join(", ")})`))
    }
    const batch = Array.isArray(body)
    const messages = (batch ? body : [body]).map(classify)
    if (messages.length === 0) return jsonRpc(400, failure(null, ErrorCode.InvalidRequest, "Invalid Request: an empty batch"))

    const owner = ownerOf(caller)
    const sessions = yield* Sessions
    const initialize = messages.find((m): m is Extract<Message, { kind: "request" }> => m.kind === "request" && m.method === "initialize")
    const sent = headers[SESSION_HEADER]
    const responseHeaders: Record<string, string> = {}
    const session = sent === undefined ? undefined : yield* sessions.find(sent.trim(), owner)
    if (sent !== undefined && session === undefined) {
      return jsonRpc(404, failure(null, -32001, "Session not found: initialize again"))
    }
    // As the SDK's servers answer: a session is initialized once, by a message of its own.
    if (initialize !== undefined && session !== undefined) {
      return jsonRpc(400, failure(null, ErrorCode.InvalidRequest, "Invalid Request: Server already initialized"))
    }
    if (initialize !== undefined && batch) {
      return jsonRpc(400, failure(null, ErrorCode.InvalidRequest, "Invalid Request: initialize must not be part of a batch"))
    }
    // JSON-RPC batches exist in 2025-03-26 only: 2025-06-18 removed them (decision 0607).
    const protocolVersion = session?.protocolVersion ?? version?.trim() ?? DEFAULT_PROTOCOL_VERSION
    if (batch && !BATCHING_VERSIONS.has(protocolVersion)) {
      return jsonRpc(400, failure(null, ErrorCode.InvalidRequest, `Invalid Request: protocol version ${protocolVersion} has no JSON-RPC batches; send one message per request`))
    }

    const snapshot = yield* Effect.flatMap(Vault, (vault) => vault.snapshot)
    const answers: Array<Answer> = []
    for (const message of messages) {
      if (message.kind === "invalid") answers.push(message.answer)
      else if (message.kind === "request") answers.push(yield* answer(snapshot, message, SERVER))
    }
    if (initialize !== undefined) {
      const given = answers.find((one) => one.id === initialize.id && "result" in one)
      const negotiated = (given as { result?: { protocolVersion?: string } } | undefined)?.result?.protocolVersion
      if (negotiated !== undefined) responseHeaders[SESSION_HEADER] = yield* sessions.open(owner, negotiated)
    }
    if (answers.length === 0) return HttpServerResponse.empty({ status: 202, headers: responseHeaders })
    // A single invalid message is a bad request as a whole; a batch answers each message in its place.
    const status = !batch && messages[0].kind === "invalid" ? 400 : 200
    if (accept === "sse" && status === 200) return eventStream(answers, responseHeaders)
    return jsonRpc(status, batch ? answers : answers[0], responseHeaders)
  }).pipe(Effect.withSpan("Vault.mcp"))

/** `DELETE /mcp`: end the caller's session (400 without a session id, 404 for an unknown one). */
const remove = (caller: Caller, headers: Readonly<Record<string, string | undefined>>) =>
  Effect.gen(function*() {
    const sent = headers[SESSION_HEADER]
    if (sent === undefined || sent.trim() === "") {
      return jsonRpc(400, failure(null, ErrorCode.InvalidRequest, "Mcp-Session-Id header is required"))
    }
    const sessions = yield* Sessions
    const closed = yield* sessions.close(sent.trim(), ownerOf(caller))
    return closed ? HttpServerResponse.empty({ status: 204 }) : jsonRpc(404, failure(null, -32001, "Session not found"))
  })

/**
 * The protected resource metadata of `/mcp` (RFC 9728) at the public root: the resource is
 * `<root>/mcp`, its authorization server the identity service's issuer behind the gateway
 * (`<root>/api/v1/iam`, whose RFC 8414 metadata lists the device grant). Decision 0606.
 */
export const protectedResourceMetadataAt = (root: string): Contracts.ProtectedResourceMetadata => ({
  resource: `${root}${Contracts.VaultRoutes.mcpPost.path}`,
  authorization_servers: [`${root}${GATEWAY_PREFIXES.identity}`],
  bearer_methods_supported: ["header"],
  resource_name: "Core architecture vault (MCP)"
})

/** The vault's routes (`Vault.VaultRoutes`), failures rendered as JSON-RPC errors. */
export const VaultHandlers = Route.rendered(renderer, [
  Route.handle(Contracts.VaultRoutes.protectedResourceMetadata, () =>
    Effect.map(PublicUrl.root, (root) => Route.json(protectedResourceMetadataAt(root), { headers: { "cache-control": "no-store" } }))),
  Route.handle(Contracts.VaultRoutes.mcpPost, ({ caller, body, request }) => post(caller, body, request.headers)),
  // No server-initiated messages: the transport lets a server answer GET with 405.
  Route.handle(Contracts.VaultRoutes.mcpGet, () =>
    Effect.succeed(
      jsonRpc(405, failure(null, ErrorCode.MethodNotFound, "Method Not Allowed: this server sends no server-initiated messages"), {
        allow: "POST, DELETE"
      })
    )),
  Route.handle(Contracts.VaultRoutes.mcpDelete, ({ caller, request }) => remove(caller, request.headers))
])

/** The vault as an app: `/mcp`. */
export const VaultRouter = Route.router(VaultHandlers)
