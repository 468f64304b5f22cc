import { TestDatabase } from "@core/kernel/testing"
import { Effect, Exit, Scope } from "effect"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePorts, launch, type Member, stopMember } from "../src/cluster.js"

/**
 * The addresses identity publishes when it runs in its own process behind a gateway on another
 * port (decision 0577): the OAuth metadata's `issuer` and the device flow's `verification_uri` are
 * the public address — `CORE_PUBLIC_URL` even when it reads `http://localhost:<PORT>`; without it,
 * the origin the client used, which identity takes from the gateway's `X-Forwarded-Host` only when
 * it trusts proxies (`CORE_TRUST_PROXY`). Never identity's own port. Needs PostgreSQL
 * (`CORE_TEST_DATABASE_URL`): the processes share one database.
 */
const adminUrl = process.env.CORE_TEST_DATABASE_URL
const SLOW = 240_000

interface Pair {
  readonly gateway: Member
  readonly iam: Member
  readonly gatewayPort: number
  readonly iamPort: number
}

describe.skipIf(adminUrl === undefined)("identity in its own process behind a gateway on another port", () => {
  let scope: Scope.CloseableScope
  const running: Array<Member> = []
  const lines: Array<string> = []
  let databaseUrl = ""

  /** Identity alone (`serve --service iam`) and a gateway (`start`) reaching it, with `env` for both. */
  const startPair = async (env: (ports: { gateway: number; iam: number }) => Record<string, string>): Promise<Pair> => {
    const [gatewayPort, iamPort] = await freePorts(2) as [number, number]
    const shared = {
      NODE_ENV: "development",
      DATABASE_URL: databaseUrl,
      CORE_SECRET: randomBytes(32).toString("base64url"),
      CORE_STATIC_API_KEY: randomBytes(24).toString("base64url"),
      LOG_LEVEL: "warn",
      ...env({ gateway: gatewayPort, iam: iamPort })
    }
    const iam = await launch("iam", { port: iamPort }, ["serve", "--service", "iam", "--port", String(iamPort)], shared, (line) => lines.push(line))
    running.push(iam)
    const gateway = await launch("gateway", { port: gatewayPort }, ["start"], {
      ...shared,
      PORT: String(gatewayPort),
      CORE_UPSTREAM_IAM_URL: iam.url
    }, (line) => lines.push(line))
    running.push(gateway)
    return { gateway, iam, gatewayPort, iamPort }
  }

  const deviceCode = async (base: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}/oauth/device/code`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: "client_id=core-cli"
    })
    expect(response.status).toBe(200)
    return (await response.json()) as { verification_uri: string; verification_uri_complete: string }
  }

  const issuer = async (url: string, headers: Record<string, string> = {}) => {
    const response = await fetch(url, { headers })
    expect(response.status).toBe(200)
    return ((await response.json()) as { issuer: string }).issuer
  }

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    databaseUrl = await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(adminUrl!), scope))
  }, SLOW)

  afterAll(async () => {
    await Promise.all(running.map((member) => stopMember(member, 5_000)))
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
    if (process.env.DEBUG_CLUSTER === "1") console.log(lines.slice(-40).join("\n"))
  }, SLOW)

  it("CORE_PUBLIC_URL=http://localhost:<gateway port> (the PORT of every process): the issuer and verification_uri name it", async () => {
    const pair = await startPair(({ gateway }) => ({ CORE_PUBLIC_URL: `http://localhost:${gateway}`, PORT: String(gateway) }))
    const publicBase = `http://localhost:${pair.gatewayPort}/api/v1/iam`
    // Through the gateway at 127.0.0.1: the public address wins over the request's.
    const code = await deviceCode(`${pair.gateway.url}/api/v1/iam`)
    expect(code.verification_uri).toBe(`${publicBase}/device`)
    expect(code.verification_uri_complete.startsWith(`${publicBase}/device?user_code=`)).toBe(true)
    expect(await issuer(`${pair.gateway.url}/api/v1/iam/.well-known/oauth-authorization-server`)).toBe(publicBase)
    // Asked directly, identity still publishes the public address, never its own port.
    const direct = await deviceCode(pair.iam.url, { "x-forwarded-host": "evil.example" })
    expect(direct.verification_uri).toBe(`http://localhost:${pair.gatewayPort}/device`)
    expect(JSON.stringify([code, direct])).not.toContain(String(pair.iamPort))
    await Promise.all([pair.gateway, pair.iam].map((member) => stopMember(member, 5_000)))
  }, SLOW)

  it("without CORE_PUBLIC_URL: the origin the client used, through the gateway's X-Forwarded-Host only when identity trusts proxies", async () => {
    const pair = await startPair(() => ({ CORE_TRUST_PROXY: "1" }))
    const code = await deviceCode(`http://localhost:${pair.gatewayPort}/api/v1/iam`)
    expect(code.verification_uri).toBe(`http://localhost:${pair.gatewayPort}/api/v1/iam/device`)
    expect(await issuer(`http://127.0.0.1:${pair.gatewayPort}/api/v1/iam/.well-known/oauth-authorization-server`)).toBe(
      `http://127.0.0.1:${pair.gatewayPort}/api/v1/iam`
    )
    await Promise.all([pair.gateway, pair.iam].map((member) => stopMember(member, 5_000)))

    // Not trusted: identity sees only the Host it was sent to; a forwarded host is ignored.
    const untrusted = await startPair(() => ({}))
    const direct = await deviceCode(untrusted.iam.url, { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" })
    expect(direct.verification_uri).toBe(`http://127.0.0.1:${untrusted.iamPort}/device`)
  }, SLOW)
})
