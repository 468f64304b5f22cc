import type { RouteSpec } from "@core/contracts"
import type { Database } from "@core/kernel"
import { expect } from "vitest"
import { logLines, type SharedServer, useServer } from "../../packages/server/test/ServerProcess.js"
import { call, type Tenant } from "../support/tenants.js"
import { casesOf, type FuzzCase, type Known, random, type Sender } from "./inputs.js"
import { sendAll } from "./send.js"

/**
 * What the route fuzz suites (`tests/*-fuzz.test.ts`) share: the server they send to, the senders'
 * credentials, the cases of a catalogue in a fixed order, and sending them with the checks every
 * suite makes. Each suite keeps its routes, its records and its own assertions.
 */

/** How long a fuzz suite's server and tests may take on a loaded machine. */
export const SLOW = 240_000

/** The all-in-one server a fuzz sends to: `staticKey` as the service key, rate limits out of the way. */
export const useFuzzServer = (staticKey: string, driver: Database.Driver, env: Record<string, string> = {}): SharedServer =>
  useServer({
    CORE_STATIC_API_KEY: staticKey,
    CORE_RATE_LIMIT_PER_MINUTE: "1000000",
    CORE_RATE_LIMIT_AUTH_PER_MINUTE: "1000000",
    ...env
  }, SLOW, { driver })

/**
 * Each sender's headers for `owner`'s platform: its bearer (as owner and as the spare user), its
 * session cookie, an API key made for it (read and manage of the platform and what it keeps:
 * entities, resources, features, secrets; decision 0596), the static key, and none.
 */
export const sendersOf = async (base: string, owner: Tenant, staticKey: string): Promise<Record<Sender, Record<string, string>>> => {
  const key = await call(base, "POST", "/api/v1/iam/api/core/apikeys", owner.bearer, {
    organizationId: owner.orgId, name: "fuzz", permissions: ["platforms", "entities", "resources", "features", "secrets"].flatMap((area) => [`${area}:read`, `${area}:manage`])
  })
  expect(key.status).toBe(201)
  return {
    owner: owner.bearer,
    spare: owner.bearer,
    cookie: { cookie: `core.session_token=${owner.token}` },
    apikey: { "x-api-key": key.body.key as string },
    service: { authorization: `Bearer ${staticKey}` },
    anonymous: {}
  }
}

/** How {@link casesFor} draws the cases. */
export interface CaseOptions {
  /** The seed of the sampler: the same seed, the same cases. */
  readonly seed: number
  /** Routes whose well-formed rest could end what the fuzz stands on: sent after the others. */
  readonly last: RegExp
  /** The path a case is sent to, from the route's own (a gateway prefix). @default the route's */
  readonly path?: (path: string) => string
  /** Fewer cases than this fails the suite. */
  readonly atLeast: number
}

/** The bad inputs tests/fuzz/inputs.ts derives from every route of `routes`; every route has some. */
export const casesFor = (routes: ReadonlyArray<readonly [string, RouteSpec]>, known: Known, options: CaseOptions): Array<FuzzCase> => {
  const rng = random(options.seed)
  const ordered = [...routes.filter(([name]) => !options.last.test(name)), ...routes.filter(([name]) => options.last.test(name))]
  const cases = ordered.flatMap(([name, route]) =>
    casesOf(name, route, known, rng, new Set()).map((fuzz) => options.path === undefined ? fuzz : { ...fuzz, path: options.path(fuzz.path) }))
  expect(new Set(cases.map((fuzz) => fuzz.route)).size).toBe(new Set(routes.map(([name]) => name)).size)
  expect(cases.length).toBeGreaterThanOrEqual(options.atLeast)
  return cases
}

/**
 * Send `cases` four at a time and log their statuses under `label`; the server must log no error.
 * Answers the findings (5xx, or a 4xx outside the error envelope) for the suite to judge.
 */
export const sendCases = async (
  label: string,
  server: SharedServer,
  cases: ReadonlyArray<FuzzCase>,
  senders: Readonly<Record<Sender, Readonly<Record<string, string>>>>
): Promise<ReadonlyArray<string>> => {
  const routes = new Set(cases.map((fuzz) => fuzz.route)).size
  const { findings, counts } = await sendAll(server.base, cases, senders, 4)
  console.info(`${label}: ${cases.length} bad inputs over ${routes} routes: ${counts}`)
  expect(logLines(server.running.output.stdout).filter((line) => line.level === "error")).toEqual([])
  return findings
}
