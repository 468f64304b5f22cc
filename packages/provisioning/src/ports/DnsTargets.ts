import { Context, type Effect, type Option } from "effect"

/**
 * Where `domain.add` learns what a custom hostname routes to: the content of the platform's DNS
 * record it names. The registry implements it (`@core/registry`'s `DnsTargetsLive`); the server
 * wires it.
 */
export class DnsTargets extends Context.Tag("@core/provisioning/DnsTargets")<DnsTargets, {
  /** The content of DNS record `dnsRecordId` of the platform, if it exists. */
  readonly target: (platformId: string, dnsRecordId: string) => Effect.Effect<Option.Option<string>>
}>() {}
