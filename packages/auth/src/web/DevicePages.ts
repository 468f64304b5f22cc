import { HttpServerResponse } from "@effect/platform"
import { Iam } from "@core/contracts"
import { RequestContext, Route } from "@core/kernel"
import { Effect, Either, Option } from "effect"
import { DeviceAuthorization } from "../device/DeviceAuthorization.js"
import type { OAuthError } from "../device/OAuthErrors.js"
import { deviceApprovedPage, deviceConfirmPage, deviceDeniedPage, deviceEntryPage } from "./DevicePage.js"
import { href, PAGE } from "./Links.js"
import { browserSession, CSRF_MESSAGE, pageContext, refusedForm, renderForm, signInFirst, signInRequired } from "./PageContext.js"
import { page } from "./Respond.js"

const Routes = Iam.WebRoutes

const MAX_CODE = 64

/** The code the visitor brought (`verification_uri_complete`'s `user_code`), trimmed; `undefined` if none. */
const typedCode = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  const trimmed = value.trim().slice(0, MAX_CODE)
  return trimmed === "" ? undefined : trimmed
}

/** Why an entered code was refused, as the person reads it, and the status it answers with. */
const refusal = (error: OAuthError): { readonly status: number; readonly message: string } => {
  switch (error.error) {
    case "expired_token":
      return { status: 400, message: "This code has expired. Start the login again on your device." }
    case "slow_down": {
      const seconds = error.retryAfterSeconds ?? 60
      return { status: 429, message: `Too many wrong codes. Try again in ${seconds} second${seconds === 1 ? "" : "s"}.` }
    }
    default:
      return { status: 400, message: "This code is not valid, or it was already used. Check the code on your device." }
  }
}

/** The entry form again, with the refusal and the typed code. */
const refused = (base: string, email: string, userCode: string | undefined, error: OAuthError) => {
  const { message, status } = refusal(error)
  const answer = page(deviceEntryPage({ base, email, userCode, error: message }), status)
  return error.retryAfterSeconds === undefined
    ? answer
    : HttpServerResponse.setHeader(answer, "retry-after", String(error.retryAfterSeconds))
}

/**
 * `GET /device[?user_code=…]`: sign in first (coming back here), then the code entry form, or — for
 * a live code — the client's name and the question. Looking a code up counts as an entry attempt
 * (the same limit as approving: the page is no oracle for guessing codes).
 */
const activation = ({ query }: Route.Input<typeof Routes.devicePage>) =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const userCode = typedCode(query.user_code)
    const session = yield* browserSession
    if (Option.isNone(session)) return signInFirst(base, href(base, PAGE.device, { user_code: userCode }))
    const who = session.value
    if (userCode === undefined) return page(deviceEntryPage({ base, email: who.email }))
    const facts = yield* RequestContext.facts
    const device = yield* DeviceAuthorization
    const found = yield* Effect.either(device.lookup(userCode, { ip: facts.ip, sessionId: who.sessionId }))
    if (Either.isLeft(found)) return refused(base, who.email, userCode, found.left)
    const pending = found.right
    return yield* renderForm("device", who.sessionId, (csrf) =>
      deviceConfirmPage({ base, csrf, email: who.email, userCode: pending.userCode, clientId: pending.clientId }))
  })

/** `POST /device`: approve or deny the code for the signed-in user, then say what happened. */
const decide = ({ body }: Route.Input<typeof Routes.submitDeviceDecision>) =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const session = yield* browserSession
    if (Option.isNone(session)) return signInRequired(base, PAGE.device, "Sign in to approve a device.")
    const who = session.value
    const userCode = typedCode(body.user_code)
    const action = body.action
    if (yield* refusedForm("device", body.csrf, who.sessionId)) {
      return page(deviceEntryPage({ base, email: who.email, userCode, error: CSRF_MESSAGE }), 403)
    }
    if (userCode === undefined || (action !== "approve" && action !== "deny")) {
      return page(deviceEntryPage({ base, email: who.email, userCode, error: "Enter the code, then approve or deny." }), 400)
    }
    const device = yield* DeviceAuthorization
    const outcome = yield* Effect.either(device[action](who, userCode, yield* RequestContext.facts))
    if (Either.isLeft(outcome)) return refused(base, who.email, userCode, outcome.left)
    return page(action === "approve" ? deviceApprovedPage(outcome.right.clientId) : deviceDeniedPage(outcome.right.clientId))
  })

/** The device activation page at `verification_uri` (`/device`) and its decision form. */
export const DevicePageHandlers = [
  Route.handle(Routes.devicePage, activation),
  Route.handle(Routes.submitDeviceDecision, decide)
] as const
