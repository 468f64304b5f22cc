import { Iam } from "@core/contracts"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Jose from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { auditRows, envelope, type Harness, makeHarness, seedOperator, seedTenant, STATIC_KEY } from "./AuthorizationSupport.js"

let h: Harness
let url: string
let tenant: Effect.Effect.Success<typeof seedTenant>
let operator: Effect.Effect.Success<typeof seedOperator>

beforeAll(async () => {
  h = await makeHarness()
  url = (await h.listen()).url
  tenant = await h.run(seedTenant)
  operator = await h.run(seedOperator)
})
afterAll(() => h.dispose())

const issue = (json: unknown, token?: string) =>
  fetch(`${url}/api/core/service-token`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(json)
  })

const signingKeys = () =>
  h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ kid: string; alg: string; privateJwkEncrypted: string }>`SELECT kid AS "kid", alg AS "alg",
      private_jwk_encrypted AS "privateJwkEncrypted" FROM iam.signing_keys`))

describe("POST /api/core/service-token", () => {
  it("issues a five-minute ES256 JWT that verifies against the served JWKS", async () => {
    const response = await issue({ serviceId: "billing", targetService: "registry" }, STATIC_KEY)
    expect(response.status).toBe(200)
    expect(response.headers.get("cache-control")).toBe("no-store")
    const body = await response.json()
    expect(body).toEqual({ token: expect.any(String), tokenType: "Bearer", expiresAt: expect.any(String), expiresIn: 300 })

    const jwks = Jose.createRemoteJWKSet(new URL(`${url}/.well-known/jwks.json`))
    const { payload, protectedHeader } = await Jose.jwtVerify(body.token, jwks, {
      issuer: Iam.SERVICE_TOKEN_ISSUER,
      audience: "registry",
      algorithms: ["ES256"]
    })
    expect(payload.sub).toBe("billing")
    expect(payload.iss).toBe("core-iam")
    expect(payload.exp! - payload.iat!).toBe(300)
    expect(typeof payload.jti).toBe("string")
    expect(new Date(payload.exp! * 1000).toISOString()).toBe(body.expiresAt)
    const [key] = await signingKeys()
    expect(protectedHeader).toEqual({ alg: "ES256", kid: key.kid, typ: "JWT" })

    await expect(Jose.jwtVerify(body.token, jwks, { issuer: "core-iam", audience: "billing" })).rejects.toThrow()
    const entry = (await h.run(auditRows("service_token.issue"))).at(-1)
    expect(entry).toMatchObject({ actorType: "service", targetId: "billing", metadata: { targetService: "registry", kid: key.kid } })
    expect(JSON.stringify(entry)).not.toContain(body.token)
  })

  it("keeps one signing key, its private half encrypted at rest, and signs every token with it", async () => {
    const first = await (await issue({ serviceId: "a", targetService: "b" }, operator.token)).json()
    const second = await (await issue({ serviceId: "c", targetService: "d" }, STATIC_KEY)).json()
    const keys = await signingKeys()
    expect(keys).toHaveLength(1)
    expect(keys[0].alg).toBe("ES256")
    expect(keys[0].privateJwkEncrypted).not.toContain("\"d\"")
    expect(() => JSON.parse(keys[0].privateJwkEncrypted)).toThrow()
    expect(Jose.decodeProtectedHeader(first.token).kid).toBe(keys[0].kid)
    expect(Jose.decodeProtectedHeader(second.token).kid).toBe(keys[0].kid)
  })

  it("answers 401 without credentials, 403 to users who are not operators, 400 for broken rules", async () => {
    const none = await issue({ serviceId: "a", targetService: "b" })
    expect(none.status).toBe(401)
    const owner = await issue({ serviceId: "a", targetService: "b" }, tenant.owner.token)
    expect(owner.status).toBe(403)
    expect(await owner.json()).toEqual(envelope("FORBIDDEN", "This action needs the operator role or the service key"))
    const cases: Array<[unknown, string]> = [
      [{ targetService: "b" }, "serviceId"],
      [{ serviceId: "", targetService: "b" }, "serviceId"],
      [{ serviceId: "a" }, "targetService"],
      [{ serviceId: "a", targetService: "" }, "targetService"],
      [{ serviceId: 1, targetService: "b" }, "serviceId"]
    ]
    for (const [json, path] of cases) {
      const response = await issue(json, STATIC_KEY)
      expect(response.status).toBe(400)
      const body = await response.json()
      expect(body.error.code).toBe("VALIDATION_ERROR")
      expect(body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path)
    }
  })
})

describe("GET /.well-known/jwks.json", () => {
  it("publishes public keys only, cacheable, without credentials", async () => {
    const response = await fetch(`${url}/.well-known/jwks.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get("cache-control")).toBe("public, max-age=300")
    const body = await response.json()
    const [key] = await signingKeys()
    expect(body).toEqual({
      keys: [{ kty: "EC", crv: "P-256", x: expect.any(String), y: expect.any(String), kid: key.kid, alg: "ES256", use: "sig" }]
    })
  })
})

describe("a fresh database", () => {
  it("makes its first signing key when the JWKS is asked for, so verifiers never see an empty set", async () => {
    const fresh = await makeHarness()
    try {
      const response = await fresh.fetch("/.well-known/jwks.json")
      expect((await response.json()).keys).toHaveLength(1)
    } finally {
      await fresh.dispose()
    }
  })
})
