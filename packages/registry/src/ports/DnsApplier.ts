import type { Registry } from "@core/contracts"
import { Context, Effect, Layer } from "effect"

/**
 * Where the registry applies a platform's DNS records: the edge provider's DNS (decision 0244).
 * `apply` runs inside the transaction that records the record, so a failure leaves nothing
 * recorded; `remove` likewise. The local default (`DnsApplier.local`) records nothing beyond the
 * registry's own row; the provisioning issue binds the edge provider (Cloudflare's DNS API).
 */
export class DnsApplier extends Context.Tag("@core/registry/DnsApplier")<DnsApplier, {
  readonly apply: (record: Registry.DnsRecord) => Effect.Effect<void>
  readonly remove: (record: Registry.DnsRecord) => Effect.Effect<void>
}>() {
  /** The local edge: the registry's row is the whole record; nothing else to apply. */
  static readonly localApplier: Context.Tag.Service<DnsApplier> = { apply: () => Effect.void, remove: () => Effect.void }
  /** The local default as a layer (what the registry uses when no `DnsApplier` is provided). */
  static readonly local: Layer.Layer<DnsApplier> = Layer.succeed(DnsApplier, DnsApplier.localApplier)
}
