import { HttpServerRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Either, Layer, Tracer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Callers } from "@core/kernel"
import { SessionCache } from "../src/accounts/SessionCache.js"
import {
  addMember,
  type Harness,
  makeHarness,
  PASSWORD,
  seedOrganization,
  signUp,
  STATIC_KEY
} from "./AccountsSupport.js"

/** Every SQL statement the harness runs, in order (from `@effect/sql`'s `sql.execute` spans). */
const statements: Array<string> = []

const recordingTracer = Layer.unwrapEffect(Effect.map(Effect.tracer, (native) =>
  Layer.setTracer(Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) => {
      const span = native.span(name, parent, context, links, startTime, kind, options)
      if (name !== "sql.execute") return span
      const attribute = span.attribute.bind(span)
      span.attribute = (key, value) => {
        if (key === "db.query.text") statements.push(String(value))
        attribute(key, value)
      }
      return span
    },
    context: (f, fiber) => native.context(f, fiber)
  }))))

describe("identity's Callers: the caller of a request from the credentials it presents", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  const as = (headers: Record<string, string>, options?: { readonly cookieOnly?: boolean }) =>
    h.run(Effect.either(Effect.flatMap(Callers, (callers) =>
      callers.resolve(HttpServerRequest.fromWeb(new Request("http://iam.test/anything", { headers })), options))))

  it("the static key (constant-time compared) is the service caller; another bearer is a session", async () => {
    expect(await as({ authorization: `Bearer ${STATIC_KEY}` })).toEqual(Either.right({ kind: "service" }))
    const wrongKey = await as({ authorization: `Bearer ${STATIC_KEY}x` })
    expect(Either.isLeft(wrongKey) && wrongKey.left).toMatchObject({ _tag: "Unauthorized", message: "Invalid or expired session" })
    expect(await as({ authorization: `Bearer ${STATIC_KEY}` }, { cookieOnly: true })).toEqual(Either.right(undefined))
  })

  it("a session arrives by bearer or by cookie; cookieOnly takes the cookie only; none is no caller", async () => {
    const { token, user } = await signUp(h)
    const expected = { kind: "user", userId: user.id, sessionId: expect.stringMatching(/^ses_/), email: user.email, organizationId: null }
    expect(await as({ authorization: `Bearer ${token}` })).toEqual(Either.right({ ...expected, via: "bearer" }))
    expect(await as({ cookie: `core.session_token=${token}` })).toEqual(Either.right({ ...expected, via: "cookie" }))
    expect(await as({ cookie: `other=1; core.session_token=${token}` }, { cookieOnly: true })).toEqual(
      Either.right({ ...expected, via: "cookie" })
    )
    expect(await as({ authorization: `Bearer ${token}` }, { cookieOnly: true })).toEqual(Either.right(undefined))
    expect(await as({})).toEqual(Either.right(undefined))
    await h.fetch("/api/auth/sign-out", { method: "POST", token })
    const revoked = await as({ authorization: `Bearer ${token}` })
    expect(Either.isLeft(revoked) && revoked.left.message).toBe("Invalid or expired session")
  })

  it("an unknown API key is refused, whatever else the request carries", async () => {
    const { token } = await signUp(h)
    const refused = await as({ "x-api-key": `core_${"x".repeat(43)}`, authorization: `Bearer ${token}` })
    expect(Either.isLeft(refused) && refused.left).toMatchObject({ _tag: "Unauthorized", message: "Invalid API key" })
  })
})

describe("GET /api/core/session cost", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ extra: recordingTracer })
  })
  afterAll(() => h.dispose())

  it("is one statement on the token hash once permissions are cached, none within the next second", async () => {
    const org = await seedOrganization(h)
    const { email, user } = await signUp(h)
    await addMember(h, org.id, user.id, "member")
    const { token } = await (await h.fetch("/api/auth/sign-in/email", { json: { email, password: PASSWORD } })).json()
    expect((await h.fetch("/api/core/session", { token })).status).toBe(200)
    await h.run(Effect.flatMap(SessionCache, (cache) => cache.clear))
    statements.length = 0
    const response = await h.fetch("/api/core/session", { token })
    expect(response.status).toBe(200)
    expect((await response.json()).role).toBe("member")
    expect(statements).toHaveLength(1)
    expect(statements[0]).toMatch(/FROM iam\.sessions s\s+JOIN iam\.users u/)
    expect(statements[0]).toMatch(/WHERE s\.token_hash = \$1/)
    statements.length = 0
    expect((await h.fetch("/api/core/session", { token })).status).toBe(200)
    expect(statements).toEqual([])
  })

  it("the token-hash lookup uses the unique index", async () => {
    const { token } = await signUp(h)
    const plans = await h.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`SET enable_seqscan = off`
      const plan = yield* sql<{ "QUERY PLAN": string }>`EXPLAIN SELECT id FROM iam.sessions WHERE token_hash = ${token}`
      yield* sql`SET enable_seqscan = on`
      return plan
    }).pipe(Effect.orDie))
    expect(plans.map((row) => row["QUERY PLAN"]).join("\n")).toMatch(/Index (Only )?Scan using sessions_token_hash_key/)
  })
})
