import * as CoreExpress from "@core/http/express"
import { Embedded } from "@core/server"
import express, { type NextFunction, type Request, type Response } from "express"

/** The session cookie identity sets on sign-in (the host reads it too). */
const SESSION_COOKIE = "core.session_token"

const tokenOf = (req: Request): string | undefined => {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")
  if (bearer !== null) return bearer[1]
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=")
    if (name === SESSION_COOKIE && value.length > 0) return value.join("=")
  }
  return undefined
}

/**
 * An Express 5 app of the host's own, with Core embedded:
 * - `/auth/*`: Core's identity service (sign-up, sign-in, organizations, keys, pages), which
 *   authenticates its own callers;
 * - `/registry/*` and `/billing/*`: Core's registry and billing, behind the host's `requireUser`
 *   (the host decides who may come in, then signs that caller for the service);
 * - `/me`: a route of the host's own that reads the embedded registry and billing for its user.
 */
export const makeHost = (env: Record<string, string | undefined>) => {
  const core = Embedded.make(env, { identityPath: "/auth" })
  const app = express()
  app.disable("x-powered-by")

  /** The host's own authentication: a Core session (bearer or cookie), checked with the embedded identity. */
  const requireUser = async (req: Request, res: Response, next: NextFunction) => {
    const token = tokenOf(req)
    const caller = token === undefined || token.length > 4096 ? undefined : await core.sessionOf(token)
    if (caller === undefined) {
      res.status(401).set("www-authenticate", "Bearer").json({ error: "unauthorized", message: "Sign in at /auth first" })
      return
    }
    res.locals.caller = caller
    next()
  }

  /**
   * Serve `service` to the authenticated caller: the request it sees carries the caller signed for
   * it, and no identity header of the client's own.
   */
  const serve = (service: Embedded.TrustedService) => (req: Request, res: Response) => {
    const caller = res.locals.caller as Embedded.SessionCaller
    const handler = (request: globalThis.Request) => core[service](core.forCaller(request, caller, service))
    return CoreExpress.middleware(handler)(req, res, () => {})
  }

  app.get("/", (_req, res) => void res.type("text/plain").send("Hello from the Express host. Core: /auth (identity), /registry, /billing."))
  app.use("/auth", CoreExpress.middleware(core.identity))
  app.use("/registry", requireUser, serve("registry"))
  app.use("/billing", requireUser, serve("billing"))

  app.get("/me", requireUser, async (_req, res) => {
    const caller = res.locals.caller as Embedded.SessionCaller
    if (caller.platformId === null || caller.platformId === undefined) {
      res.json({ email: caller.email, platform: null, subscription: null })
      return
    }
    const [platform, subscription] = await Promise.all([
      core.registry(new Request(`http://core.internal/api/v1/platforms/${caller.platformId}`, { headers: core.signedHeaders(caller, "registry") })),
      core.billing(new Request(`http://core.internal/api/billing/subscription?platformId=${caller.platformId}`, { headers: core.signedHeaders(caller, "billing") }))
    ])
    const [p, s] = await Promise.all([platform.json() as Promise<{ slug?: string; status?: string }>, subscription.json() as Promise<{ tier?: string; status?: string }>])
    res.json({
      email: caller.email,
      platform: platform.ok ? { slug: p.slug, status: p.status } : null,
      subscription: subscription.ok ? { tier: s.tier, status: s.status } : null
    })
  })

  return { app, dispose: core.dispose }
}
