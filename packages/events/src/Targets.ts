import { Effect, Either } from "effect"
import { lookup } from "node:dns"
import { BlockList, isIP, type LookupFunction } from "node:net"
import { Agent } from "undici"
import { credentialsInUrl, httpsRequired, privateTarget } from "./Errors.js"

/**
 * Where a webhook may be sent: `https` (unless plain HTTP is allowed) to a host that resolves to
 * public addresses only (unless private targets are allowed). The check runs when an endpoint is
 * saved and again inside every attempt's connection, after DNS resolution (`deliveryAgent`), so a
 * name that later resolves to 127.0.0.1 is refused too; redirects are never followed.
 */

const blocked = new BlockList()
for (const [network, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4]
] as const) blocked.addSubnet(network, prefix, "ipv4")
for (const [network, prefix] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8], ["64:ff9b::", 96]] as const) {
  blocked.addSubnet(network, prefix, "ipv6")
}

/** Whether an address is private, loopback, link-local, unspecified or multicast (an IPv4-mapped IPv6 address by its IPv4). */
export const isPrivateAddress = (address: string): boolean => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped !== null) return blocked.check(mapped[1], "ipv4")
  const family = isIP(address)
  return family === 4 ? blocked.check(address, "ipv4") : family === 6 ? blocked.check(address, "ipv6") : true
}

/** The rules a target is checked by. */
export interface TargetRules {
  readonly allowHttp: boolean
  readonly allowPrivate: boolean
}

const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, "")

const resolveAll = (host: string): Promise<ReadonlyArray<string>> =>
  isIP(host) !== 0
    ? Promise.resolve([host])
    : new Promise((resolve) => lookup(host, { all: true }, (error, addresses) => resolve(error ? [] : addresses.map((entry) => entry.address))))

/**
 * Check a URL as an endpoint is saved: 400 naming the variable that would allow it. A name that
 * does not resolve (yet) is accepted: every attempt checks again.
 */
export const checkTarget = (raw: string, rules: TargetRules) =>
  Effect.gen(function*() {
    const url = new URL(raw)
    if (url.username !== "" || url.password !== "") return yield* Effect.fail(credentialsInUrl)
    if (url.protocol !== "https:" && !rules.allowHttp) return yield* Effect.fail(httpsRequired)
    if (rules.allowPrivate) return
    const host = hostOf(url)
    const addresses = yield* Effect.promise(() => resolveAll(host))
    const refused = addresses.find(isPrivateAddress)
    if (refused !== undefined) return yield* Effect.fail(privateTarget(host, refused))
  })

/** The message of an attempt refused before it connected. */
export const refusalOf = (raw: string, rules: TargetRules): string | undefined => {
  const url = new URL(raw)
  if (url.protocol !== "https:" && !rules.allowHttp) return httpsRequired.message
  return undefined
}

/** The error a connection refused by the address check carries. */
export class PrivateAddressRefused extends Error {
  constructor(host: string, address: string) {
    super(privateTarget(host, address).message)
    this.name = "PrivateAddressRefused"
  }
}

/**
 * The connection pool deliveries go through: its DNS lookup refuses private addresses (unless
 * allowed), so the address checked is the address connected to.
 */
export const deliveryAgent = (rules: TargetRules, timeoutMs: number): Agent => {
  const checkedLookup: LookupFunction = (hostname, options, callback) =>
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return (callback as (e: Error) => void)(error)
      const list = addresses as unknown as ReadonlyArray<{ address: string; family: number }>
      const refused = rules.allowPrivate ? undefined : list.find((entry) => isPrivateAddress(entry.address))
      if (refused !== undefined) return (callback as (e: Error) => void)(new PrivateAddressRefused(hostname, refused.address))
      if ((options as { all?: boolean }).all === true) return (callback as (e: null, a: typeof list) => void)(null, list)
      return (callback as (e: null, a: string, f: number) => void)(null, list[0].address, list[0].family)
    })
  return new Agent({ connect: { lookup: checkedLookup, timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
}

/** An IP literal in the URL is never looked up: check it before connecting. */
export const literalRefusal = (raw: string, rules: TargetRules): string | undefined => {
  if (rules.allowPrivate) return undefined
  const host = hostOf(new URL(raw))
  return isIP(host) !== 0 && isPrivateAddress(host) ? privateTarget(host, host).message : undefined
}

/** `Either` of the pre-connection checks of one attempt. */
export const precheck = (raw: string, rules: TargetRules): Either.Either<void, string> => {
  const refusal = refusalOf(raw, rules) ?? literalRefusal(raw, rules)
  return refusal === undefined ? Either.right(undefined) : Either.left(refusal)
}
