import * as Node from "@core/http/node"
import { createAuthClient } from "better-auth/client"
import { magicLinkClient, organizationClient } from "better-auth/client/plugins"
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { app, freshEmail, latestMailText, linkIn, PASSWORD, stackLayer } from "./AccountsSupport.js"

/**
 * better-auth's own client (`better-auth/client` with the magic-link and organization plugins)
 * against the identity routes served by a real Node server on 127.0.0.1. In Node the client has
 * no cookie jar, so it authenticates with the session token as a bearer, read from the
 * `set-auth-token` header as better-auth's bearer plugin documents.
 */
describe("better-auth client", () => {
  const runtime = ManagedRuntime.make(stackLayer())
  let server: Node.Served
  let bearer: string | undefined

  const client = () =>
    createAuthClient({
      baseURL: server.url,
      plugins: [magicLinkClient(), organizationClient()],
      fetchOptions: {
        auth: { type: "Bearer", token: () => bearer },
        onSuccess: (context) => {
          const token = context.response.headers.get("set-auth-token")
          if (token !== null) bearer = token
        }
      }
    })

  const latestMail = (email: string) => latestMailText((effect) => runtime.runPromise(effect), email)

  beforeAll(async () => {
    const context = (await runtime.runtime()).context
    server = await Node.serve(app, { layer: Layer.succeedContext(context) })
  })
  afterAll(async () => {
    await server.close()
    await runtime.dispose()
  })

  it("signs up, reads the session, signs out", async () => {
    const auth = client()
    const email = freshEmail("client")
    const signedUp = await auth.signUp.email({ name: "Ada", email, password: PASSWORD })
    expect(signedUp.error).toBeNull()
    expect(signedUp.data).toMatchObject({ token: expect.any(String), user: { email, name: "Ada", emailVerified: false } })
    expect(bearer).toBe(signedUp.data?.token)

    const session = await auth.getSession()
    expect(session.error).toBeNull()
    expect(session.data?.user).toMatchObject({ id: signedUp.data?.user.id, email })
    expect(session.data?.session).toMatchObject({ userId: signedUp.data?.user.id })

    const signedOut = await auth.signOut()
    expect(signedOut.data).toEqual({ success: true })
    expect((await auth.getSession()).data).toBeNull()
  })

  it("signs in, and reports a wrong password with better-auth's error code", async () => {
    const auth = client()
    const email = freshEmail("client")
    await auth.signUp.email({ name: "Grace", email, password: PASSWORD })
    bearer = undefined

    const wrong = await auth.signIn.email({ email, password: "not the password" })
    expect(wrong.data).toBeNull()
    expect(wrong.error).toMatchObject({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" })

    const signedIn = await auth.signIn.email({ email, password: PASSWORD })
    expect(signedIn.error).toBeNull()
    expect(signedIn.data).toMatchObject({ redirect: false, token: bearer, user: { email } })
    expect((await auth.getSession()).data?.user.email).toBe(email)

    const taken = await auth.signUp.email({ name: "Eve", email, password: PASSWORD })
    expect(taken.error).toMatchObject({ status: 422, code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL" })
  })

  it("requests a magic link, then verifies the mailed token", async () => {
    const auth = client()
    bearer = undefined
    const email = freshEmail("magic")
    const sent = await auth.signIn.magicLink({ email, name: "Magic", callbackURL: "/dashboard" })
    expect(sent.error).toBeNull()
    expect(sent.data).toEqual({ status: true })

    const token = linkIn(await latestMail(email)).searchParams.get("token") ?? ""
    const verified = await auth.magicLink.verify({ query: { token } })
    expect(verified.error).toBeNull()
    expect(verified.data).toMatchObject({ token: bearer, user: { email, name: "Magic", emailVerified: true } })
    expect((await auth.getSession()).data?.user.email).toBe(email)

    const reused = await auth.magicLink.verify({ query: { token } })
    expect(reused.error).toMatchObject({ status: 401, code: "INVALID_TOKEN" })
  })

  it("updates the user, lists and revokes sessions, changes the password", async () => {
    const auth = client()
    const email = freshEmail("manage")
    await auth.signUp.email({ name: "Lin", email, password: PASSWORD })
    expect((await auth.updateUser({ name: "Lin Manuel" })).data).toEqual({ status: true })
    expect((await auth.getSession()).data?.user.name).toBe("Lin Manuel")

    const first = bearer
    await auth.signIn.email({ email, password: PASSWORD })
    const sessions = await auth.listSessions()
    expect(sessions.data).toHaveLength(2)
    expect((await auth.revokeOtherSessions()).data).toEqual({ status: true })
    const current = bearer
    bearer = first
    expect((await auth.getSession()).data).toBeNull()
    bearer = current

    const changed = await auth.changePassword({ currentPassword: PASSWORD, newPassword: "another long password" })
    expect(changed.error).toBeNull()
    expect(changed.data).toMatchObject({ token: null, user: { email } })
    bearer = undefined
    expect((await auth.signIn.email({ email, password: "another long password" })).error).toBeNull()
  })

  it("resets a forgotten password", async () => {
    const auth = client()
    const email = freshEmail("reset")
    await auth.signUp.email({ name: "Max", email, password: PASSWORD })
    const requested = await auth.requestPasswordReset({ email, redirectTo: "/reset" })
    expect(requested.data).toMatchObject({ status: true })
    const link = linkIn(await latestMail(email))
    const token = decodeURIComponent(link.pathname.split("/").pop() ?? "")
    expect((await auth.resetPassword({ newPassword: "reset long password", token })).data).toEqual({ status: true })
    expect((await auth.getSession()).data).toBeNull()
    expect((await auth.signIn.email({ email, password: "reset long password" })).error).toBeNull()
  })
})
