import * as Node from "@core/http/node"
import { BadRequestError, CoreApiError, NotFoundError, UnauthorizedError } from "@core/sdk"
import { iamAccounts } from "../../sdk/src/resources/iam-accounts.js"
import { createTransport } from "../../sdk/src/transport.js"
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { app, freshEmail, latestMailText, linkIn, PASSWORD, stackLayer } from "./AccountsSupport.js"

/** The SDK's accounts resource against the identity routes on a real server (no gateway: base path ""). */
describe("SDK client.iam accounts", () => {
  const runtime = ManagedRuntime.make(stackLayer())
  let server: Node.Served

  const iam = (token?: string) =>
    iamAccounts(createTransport({ baseUrl: server.url, retry: 0, ...(token === undefined ? {} : { token }) }), "")

  const latestMail = (email: string) => latestMailText((effect) => runtime.runPromise(effect), email)

  beforeAll(async () => {
    server = await Node.serve(app, { layer: Layer.succeedContext((await runtime.runtime()).context) })
  })
  afterAll(async () => {
    await server.close()
    await runtime.dispose()
  })

  it("covers sign-up, sign-in, sessions, profile and sign-out", async () => {
    const email = freshEmail("sdk")
    const signedUp = await iam().signUp({ name: "Ada", email, password: PASSWORD })
    expect(signedUp.user.email).toBe(email)
    const signedIn = await iam().signIn({ email, password: PASSWORD })
    const me = iam(signedIn.token)
    expect((await me.getSession())?.user.id).toBe(signedUp.user.id)
    expect((await me.profile.update({ name: "Ada L." })).name).toBe("Ada L.")
    expect((await me.profile.get()).name).toBe("Ada L.")
    const sessions = await me.sessions.list()
    expect(sessions.data.map((session) => session.current)).toEqual([true, false])
    expect(await me.sessions.current()).toMatchObject({ user: { email }, role: null, permissions: [] })
    expect(await iam().sessions.validate(signedIn.token)).toMatchObject({ valid: true, userId: signedUp.user.id })
    expect(await me.sessions.revoke(sessions.data[1].id)).toEqual({ id: sessions.data[1].id })
    expect(await me.sessions.revokeOthers()).toEqual({ status: true })
    expect(await me.signOut()).toEqual({ success: true })
    expect(await me.getSession()).toBeNull()
    expect(await iam().sessions.validate(signedIn.token)).toEqual({ valid: false })
  })

  it("raises better-auth's codes and the envelope's as typed errors", async () => {
    const email = freshEmail("sdk")
    await iam().signUp({ name: "Ada", email, password: PASSWORD })
    const wrong = await iam().signIn({ email, password: "wrong password" }).catch((error: unknown) => error)
    expect(wrong).toBeInstanceOf(UnauthorizedError)
    expect(wrong).toMatchObject({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" })
    const short = await iam().signUp({ name: "A", email: freshEmail(), password: "short" }).catch((error: unknown) => error)
    expect(short).toBeInstanceOf(BadRequestError)
    expect(short).toMatchObject({ code: "PASSWORD_TOO_SHORT" })
    const invalid = await iam().magicLink.send({ email: "nope" }).catch((error: unknown) => error)
    expect(invalid).toMatchObject({ status: 400, code: "VALIDATION_ERROR", details: { issues: [expect.objectContaining({ path: "email" })] } })
    const { token } = await iam().signIn({ email, password: PASSWORD })
    const missing = await iam(token).sessions.revoke("ses_00000000000000000000000000").catch((error: unknown) => error)
    expect(missing).toBeInstanceOf(NotFoundError)
    expect(missing).toMatchObject({ code: "NOT_FOUND", requestId: expect.any(String) })
    const anonymous = await iam().profile.get().catch((error: unknown) => error)
    expect(anonymous).toBeInstanceOf(CoreApiError)
    expect(anonymous).toMatchObject({ status: 401, code: "UNAUTHORIZED" })
  })

  it("covers magic links, password change and reset, email verification and deletion", async () => {
    const email = freshEmail("sdk-magic")
    expect(await iam().magicLink.send({ email })).toEqual({ status: true })
    const magic = await iam().magicLink.verify(linkIn(await latestMail(email)).searchParams.get("token") ?? "")
    expect(magic.user).toMatchObject({ email, emailVerified: true })

    const other = freshEmail("sdk-password")
    const { token } = await iam().signUp({ name: "Bo", email: other, password: PASSWORD })
    const changed = await iam(token).password.change({ currentPassword: PASSWORD, newPassword: "changed passphrase" })
    expect(changed.token).toBeNull()
    expect(await iam().password.requestReset({ email: other })).toMatchObject({ status: true })
    const resetToken = decodeURIComponent(linkIn(await latestMail(other)).pathname.split("/").pop() ?? "")
    expect(await iam().password.reset({ token: resetToken, newPassword: "reset passphrase" })).toEqual({ status: true })
    const fresh = await iam().signIn({ email: other, password: "reset passphrase" })

    expect(await iam(fresh.token).emailVerification.send({ email: other })).toEqual({ status: true })
    const verified = await iam().emailVerification.verify(linkIn(await latestMail(other)).searchParams.get("token") ?? "")
    expect(verified).toMatchObject({ status: true, user: { email: other, emailVerified: true } })

    expect(await iam(fresh.token).deleteUser({ password: "reset passphrase" })).toEqual({ success: true, message: "User deleted" })
    expect(await iam(fresh.token).getSession()).toBeNull()
  })
})
