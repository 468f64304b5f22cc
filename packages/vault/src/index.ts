/**
 * @core/vault — the MCP tool server over Core's architecture docs (docs/vault-server.md): `Vault` (the served
 * snapshot, reloaded on file changes), `Loader`/`Document`/`SearchIndex` (reading and ranking),
 * `Tools` (the 11 tools), `Protocol` (JSON-RPC), `Http` (`/mcp`), `Sessions`.
 */
export * from "./Config.js"
export * from "./Document.js"
export { Loader } from "./Loader.js"
export { Snapshot, type Link } from "./Snapshot.js"
export { type Hit, SearchIndex, type SearchOptions } from "./SearchIndex.js"
export * as Tools from "./Tools.js"
export * as Protocol from "./Protocol.js"
export { Sessions } from "./Sessions.js"
export { Vault } from "./Vault.js"
export { renderer as VaultRenderer, VaultHandlers, VaultRouter } from "./Http.js"

import { Layer } from "effect"
import { Sessions } from "./Sessions.js"
import { Vault } from "./Vault.js"

/** The vault's services over its `VaultConfig`: the served snapshot and the MCP sessions. */
export const VaultLive = Layer.mergeAll(Vault.Default, Sessions.Default)
