import { defineRoutes } from "../Routes.js"
import { McpAnswer, McpErrorAnswer, McpMessage, ProtectedResourceMetadata } from "./schemas.js"

const tags = ["vault"]

const SESSION = { "Mcp-Session-Id": "The session issued by initialize; send it back on every later request" }

/** `/mcp`'s errors are JSON-RPC errors, not the error envelope (decision 0605). */
const rpcError = (description: string) => ({ schema: McpErrorAnswer, description })
const RPC_UNAUTHORIZED = {
  ...rpcError("No credential, or a bad one (a JSON-RPC error, `data.code` `UNAUTHORIZED`)"),
  headers: { "WWW-Authenticate": "`Bearer realm=\"core\", resource_metadata=\"<root>/.well-known/oauth-protected-resource/mcp\"`" }
}

/**
 * The vault tool server (docs/vault-server.md): MCP Streamable HTTP at `/mcp`,
 * with the gateway's credentials (any caller: a session bearer, an API key, the static key).
 */
export const VaultRoutes = defineRoutes({
  mcpPost: {
    method: "POST",
    path: "/mcp",
    summary: "Send MCP JSON-RPC messages (initialize, tools/list, tools/call, resources/*, ping)",
    description: "Answers JSON, or a Server-Sent Events stream when the client accepts only `text/event-stream`. " +
      "A notification or response alone is acknowledged with 202.",
    auth: "caller",
    request: { body: McpMessage },
    responses: {
      200: { schema: McpAnswer, headers: SESSION },
      202: null,
      400: rpcError("Not a JSON-RPC message, a batch on a protocol version without batches, or a second initialize"),
      401: RPC_UNAUTHORIZED,
      404: rpcError("The session named by `Mcp-Session-Id` is not live"),
      406: rpcError("The client accepts neither JSON nor an event stream")
    },
    tags
  },
  mcpGet: {
    method: "GET",
    path: "/mcp",
    summary: "Server-to-client stream (not offered: 405, as the transport allows)",
    description: "The Streamable HTTP transport's server-to-client stream, which this server does not offer: 405, as the MCP specification allows; clients then use POST responses only.",
    auth: "caller",
    responses: { 200: null, 401: RPC_UNAUTHORIZED, 405: rpcError("No server-initiated stream is offered") },
    tags
  },
  mcpDelete: {
    method: "DELETE",
    path: "/mcp",
    summary: "End an MCP session",
    description: "Ends the MCP session named by `Mcp-Session-Id`: later requests with it answer 404. A missing session id is 400.",
    auth: "caller",
    responses: { 204: null, 400: rpcError("No `Mcp-Session-Id`"), 401: RPC_UNAUTHORIZED, 404: rpcError("The session is not live") },
    tags
  },
  protectedResourceMetadata: {
    method: "GET",
    path: "/.well-known/oauth-protected-resource/mcp",
    summary: "OAuth protected resource metadata of /mcp (RFC 9728, path inserted), as the MCP authorization specification asks",
    description: "Names the authorization server (the identity service's issuer, `<root>/api/v1/iam`) where an " +
      "OAuth-capable MCP client signs in; every 401 of `/mcp` points here with `resource_metadata`.",
    auth: "public",
    responses: { 200: ProtectedResourceMetadata },
    tags
  }
})
