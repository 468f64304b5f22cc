import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { auditOf, type Harness, makeHarness, rows, signUp, STATIC_KEY } from "./AccountsSupport.js"

const envelope = (code: string, message: string, details: unknown = null) => ({
  error: { code, message, requestId: expect.any(String), details }
})

describe("GET and PATCH /api/auth/profile", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  const patch = (json: unknown, token?: string) =>
    h.fetch("/api/auth/profile", { method: "PATCH", json, ...(token === undefined ? {} : { token }) })

  it("answers the caller's user", async () => {
    const { token, user } = await signUp(h, { name: "Ada" })
    const response = await h.fetch("/api/auth/profile", { token })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(user)
    expect((await h.fetch("/api/auth/profile", { cookie: token })).status).toBe(200)
  })

  it("changes name and image; null removes the image; an empty change answers the profile as it is", async () => {
    const { token, user } = await signUp(h)
    const renamed = await patch({ name: "Ada Lovelace", image: "https://img.example.com/ada.png" }, token)
    expect(renamed.status).toBe(200)
    const body = await renamed.json()
    expect(body).toEqual({ ...user, name: "Ada Lovelace", image: "https://img.example.com/ada.png", updatedAt: expect.any(String) })
    expect(await (await patch({ image: null }, token)).json()).toMatchObject({ name: "Ada Lovelace", image: null })
    expect(await (await patch({}, token)).json()).toMatchObject({ name: "Ada Lovelace", image: null })
    const [row] = await rows<{ name: string; image: string | null }>(h, (sql) =>
      sql`SELECT name, image FROM iam.users WHERE id = ${user.id}`)
    expect(row).toEqual({ name: "Ada Lovelace", image: null })
    expect(await auditOf(h, "user.update")).toContainEqual(
      expect.objectContaining({ actorId: user.id, metadata: { fields: ["name", "image"] } })
    )
  })

  it("answers 400 VALIDATION_ERROR envelopes for each rule: name min length 1, image a URI or null", async () => {
    const { token } = await signUp(h)
    const empty = await patch({ name: "" }, token)
    expect(empty.status).toBe(400)
    expect(await empty.json()).toEqual(
      envelope("VALIDATION_ERROR", "Invalid request body", { issues: [{ path: "name", message: expect.any(String) }] })
    )
    for (const image of ["not a uri", 42, ""]) {
      const response = await patch({ image }, token)
      expect(response.status).toBe(400)
      expect((await response.json()).error.details.issues).toEqual([{ path: "image", message: expect.any(String) }])
    }
    const broken = await h.fetch("/api/auth/profile", {
      method: "PATCH",
      token,
      headers: { "content-type": "application/json" },
      body: "{"
    })
    expect(broken.status).toBe(400)
    expect(await broken.json()).toEqual(envelope("INVALID_JSON", "The request body is not valid JSON"))
  })

  it("answers 401 envelopes without a session (the static key is not a user)", async () => {
    for (const token of [undefined, "bogus", STATIC_KEY]) {
      const read = await h.fetch("/api/auth/profile", token === undefined ? {} : { token })
      expect(read.status).toBe(401)
      expect((await patch({ name: "x" }, token)).status).toBe(401)
    }
    expect(await (await h.fetch("/api/auth/profile")).json()).toEqual(envelope("UNAUTHORIZED", "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)"))
  })
})

describe("POST /api/auth/update-user", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  it("answers { status: true } and changes the profile", async () => {
    const { token, user } = await signUp(h)
    const response = await h.fetch("/api/auth/update-user", { token, json: { name: "Grace" } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: true })
    expect(await (await h.fetch("/api/auth/profile", { token })).json()).toMatchObject({ id: user.id, name: "Grace" })
  })

  it("answers better-auth's codes: email cannot change, something must change, fields keep their rules", async () => {
    const { token } = await signUp(h)
    const email = await h.fetch("/api/auth/update-user", { token, json: { email: "new@example.com" } })
    expect(email.status).toBe(400)
    expect(await email.json()).toEqual({ code: "EMAIL_CAN_NOT_BE_UPDATED", message: "Email can not be updated" })
    const nothing = await h.fetch("/api/auth/update-user", { token, json: {} })
    expect(nothing.status).toBe(400)
    expect(await nothing.json()).toEqual({ code: "NO_FIELDS_TO_UPDATE", message: "No fields to update" })
    const bad = await h.fetch("/api/auth/update-user", { token, json: { image: "nope" } })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ code: "VALIDATION_ERROR", message: expect.stringContaining("[body.image]") })
    const anonymous = await h.fetch("/api/auth/update-user", { json: { name: "x" } })
    expect(anonymous.status).toBe(401)
    expect(await anonymous.json()).toEqual({ code: "UNAUTHORIZED", message: "Unauthorized" })
  })
})
