import { Layer } from "effect"
import { DnsRecords } from "./DnsRecords.js"
import { Resources } from "./Resources.js"
import { Secrets } from "./Secrets.js"

/**
 * The services behind the resource, DNS record and secret routes (`ResourceHandlers`), over the
 * registry's `Platforms`, the database, `Ids` and `CoreConfig` (the secrets' key). A bound
 * `DnsApplier` (the edge provider) is used when present.
 */
export const ResourcesLive = Layer.mergeAll(Secrets.Default, DnsRecords.Default).pipe(
  Layer.provideMerge(Resources.Default)
)
