import { Effect } from "effect"
import { callTool, isTool, TOOLS } from "./Tools.js"
import type { Snapshot } from "./Snapshot.js"

/** The MCP protocol versions served, newest first (docs/vault-server.md). */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const
/** The version of a request that names none (the transport's own rule for a missing header). */
export const DEFAULT_PROTOCOL_VERSION = "2025-03-26"

/** JSON-RPC and MCP error codes. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ResourceNotFound: -32002
} as const

type Id = string | number | null

/** One JSON-RPC answer. */
export type Answer =
  | { readonly jsonrpc: "2.0"; readonly id: Id; readonly result: unknown }
  | { readonly jsonrpc: "2.0"; readonly id: Id; readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } }

/** A JSON-RPC error answer. */
export const failure = (id: Id, code: number, message: string, data?: unknown): Answer => ({
  jsonrpc: "2.0",
  id,
  error: data === undefined ? { code, message } : { code, message, data }
})

/** One JSON-RPC message, classified. */
export type Message =
  | { readonly kind: "request"; readonly id: string | number; readonly method: string; readonly params: Record<string, unknown> }
  | { readonly kind: "notification"; readonly method: string }
  | { readonly kind: "response" }
  | { readonly kind: "invalid"; readonly answer: Answer }

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Classify a message: a request, a notification, a client's response, or invalid (`-32600`). */
export const classify = (message: unknown): Message => {
  const id = isObject(message) && (typeof message.id === "string" || typeof message.id === "number") ? message.id : null
  const invalid = (why: string): Message => ({ kind: "invalid", answer: failure(id, ErrorCode.InvalidRequest, `Invalid Request: ${why}`) })
  if (!isObject(message)) return invalid("a message must be a JSON object")
  if (message.jsonrpc !== "2.0") return invalid('jsonrpc must be "2.0"')
  if (typeof message.method !== "string") {
    if ("result" in message || "error" in message) return { kind: "response" }
    return invalid("method must be a string")
  }
  if (message.method.length > 200) return invalid("method is too long")
  if (message.params !== undefined && !isObject(message.params)) return invalid("params must be an object")
  if (!("id" in message)) return { kind: "notification", method: message.method }
  if (id === null || (typeof id === "string" && id.length > 200)) return invalid("id must be a string or a number")
  return { kind: "request", id, method: message.method, params: (message.params ?? {}) as Record<string, unknown> }
}

/** The version `initialize` answers: the client's when served, else the newest (the client decides). */
export const negotiate = (requested: unknown): string =>
  requested === undefined ? DEFAULT_PROTOCOL_VERSION
  : (PROTOCOL_VERSIONS as ReadonlyArray<unknown>).includes(requested) ? (requested as string)
  : PROTOCOL_VERSIONS[0]

/** `vault://services/gateway` → `services/gateway`. */
const URI_PREFIX = "vault://"
export const uriOf = (path: string) => `${URI_PREFIX}${path.split("/").map(encodeURIComponent).join("/")}`
const pathOfUri = (uri: string): string | undefined => {
  if (!uri.startsWith(URI_PREFIX)) return undefined
  try {
    return decodeURIComponent(uri.slice(URI_PREFIX.length)).replace(/\.md$/i, "")
  } catch {
    return undefined
  }
}

/** Resources per `resources/list` page. */
const PAGE = 500

/** What a request is answered with, besides the snapshot: the server's name and version. */
export interface ServerInfo {
  readonly name: string
  readonly version: string
}

/**
 * Answer one request (`initialize` is answered here too; the HTTP layer issues its session).
 * Never fails: every problem is a JSON-RPC error or a tool result with `isError`.
 */
export const answer = (
  snapshot: Snapshot,
  request: Extract<Message, { kind: "request" }>,
  server: ServerInfo
): Effect.Effect<Answer> =>
  Effect.sync((): Answer => {
    const { id, params } = request
    const ok = (result: unknown): Answer => ({ jsonrpc: "2.0", id, result })
    switch (request.method) {
      case "initialize":
        return ok({
          protocolVersion: negotiate(params.protocolVersion),
          capabilities: { tools: { listChanged: false }, resources: { listChanged: false, subscribe: false } },
          serverInfo: { name: server.name, title: "Core architecture vault", version: server.version },
          instructions: "Core's architecture docs: search_docs first, then read_doc or read_section on a path it returns."
        })
      case "ping":
        return ok({})
      case "tools/list":
        return ok({ tools: TOOLS })
      case "tools/call": {
        const name = params.name
        if (typeof name !== "string") return failure(id, ErrorCode.InvalidParams, "Invalid params: name must be a string")
        if (!isTool(name)) return failure(id, ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 100)}`)
        return ok(callTool(snapshot, name, params.arguments))
      }
      case "resources/list": {
        const cursor = params.cursor
        const start = typeof cursor === "string" && /^\d{1,9}$/.test(cursor) ? Number(cursor) : 0
        if (cursor !== undefined && (typeof cursor !== "string" || !/^\d{1,9}$/.test(cursor))) {
          return failure(id, ErrorCode.InvalidParams, "Invalid params: cursor is not one this server issued")
        }
        const docs = [...snapshot.documents.values()]
        const page = docs.slice(start, start + PAGE).map((doc) => ({
          uri: uriOf(doc.path),
          name: doc.path,
          title: doc.title,
          ...(doc.summary === "" ? {} : { description: doc.summary }),
          mimeType: "text/markdown"
        }))
        return ok(start + PAGE < docs.length ? { resources: page, nextCursor: String(start + PAGE) } : { resources: page })
      }
      case "resources/templates/list":
        return ok({
          resourceTemplates: [{
            uriTemplate: "vault://{+path}",
            name: "vault-document",
            title: "Vault document",
            description: "A document of the vault by its path without extension (vault://services/gateway)",
            mimeType: "text/markdown"
          }]
        })
      case "resources/read": {
        const uri = params.uri
        if (typeof uri !== "string" || uri.length > 1024) return failure(id, ErrorCode.InvalidParams, "Invalid params: uri must be a string")
        const path = pathOfUri(uri)
        const doc = path === undefined ? undefined : snapshot.documents.get(path)
        if (doc === undefined) return failure(id, ErrorCode.ResourceNotFound, "Resource not found", { uri })
        return ok({ contents: [{ uri: uriOf(doc.path), mimeType: "text/markdown", text: doc.source }] })
      }
      default:
        return failure(id, ErrorCode.MethodNotFound, `Method not found: ${request.method.slice(0, 100)}`)
    }
  }).pipe(
    // A bug in a tool answers -32603 for that message alone, logged once; the HTTP answer stays 200.
    Effect.catchAllDefect((defect) =>
      Effect.as(Effect.logError("vault: a request failed", defect), failure(request.id, ErrorCode.InternalError, "Internal error"))
    )
  )
