import {
  AccountsLive,
  AuthorizationLive,
  deviceAuthorizationLayer,
  type DeviceAuthorizationOptions,
  IamMigrations,
  IdentityApp,
  OrganizationsLive,
  OutboxMailer,
  PlatformSetup,
  RegistryPlatformSetup, PagesLive } from "@core/auth"
import { Gateway, Upstream } from "@core/gateway"
import * as Node from "@core/http/node"
import { CoreConfig, Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { Platforms, RegistryMigrations } from "@core/registry"
import { Duration, Effect, Layer, Logger, ManagedRuntime } from "effect"

/** The password every user of the stack signs up with. */
export const PASSWORD = "correct horse battery staple"

/** How the identity stack is configured. */
export interface IdentityStackOptions {
  readonly device?: DeviceAuthorizationOptions
}

/** Request logs stay out of the test output. */
const quiet = Logger.replace(Logger.defaultLogger, Logger.none)

const platformSetup = Layer.effect(
  PlatformSetup,
  Effect.map(Platforms, (platforms) => RegistryPlatformSetup.make(platforms.create))
).pipe(Layer.provide(Platforms.Default))

/** `IdentityLive` (of `@core/auth`) with device codes polled every second, or as `options` say. */
const stackLayer = (options: IdentityStackOptions) =>
  Layer.mergeAll(OrganizationsLive, PagesLive, deviceAuthorizationLayer({ interval: 1, ...options.device })).pipe(
    Layer.provideMerge(AccountsLive),
    Layer.provideMerge(AuthorizationLive),
    Layer.provideMerge(OutboxMailer.layer),
    Layer.provideMerge(platformSetup),
    Layer.provideMerge(Layer.mergeAll(
      TestDatabase.layer([IamMigrations, RegistryMigrations]),
      CoreConfig.layer({ NODE_ENV: "test", CORE_SECRET: "cli-identity-secret-0123456789-abcdef" }),
      Ids.layer
    )),
    Layer.provideMerge(quiet),
    Layer.orDie
  )

/** The real identity service behind the real gateway, on 127.0.0.1, over an in-memory PGlite database. */
export interface IdentityStack {
  /** The gateway: `core`'s API address. */
  readonly url: string
  /** `<url>/api/v1/iam`. */
  readonly iamUrl: string
  /** JSON request to the gateway, with a bearer when given; answers status and parsed body. */
  readonly call: (method: string, path: string, init?: { readonly token?: string; readonly json?: unknown }) => Promise<{ status: number; body: any }>
  /** Signs a new user up; answers the user's id, email and session token. */
  readonly signUp: (name: string) => Promise<{ id: string; email: string; token: string }>
  readonly close: () => Promise<void>
}

let counter = 0

/** Starts the identity stack (migrations included; about a second on PGlite). */
export const startIdentityStack = async (options: IdentityStackOptions = {}): Promise<IdentityStack> => {
  const runtime = ManagedRuntime.make(stackLayer(options))
  const upstream = await runtime.runPromise(Upstream.fromHttpApp("IAM", IdentityApp))
  const served = await Node.serve(Gateway.make({ upstreams: [upstream] }), { gracePeriod: 1_000, layer: quiet })
  const iamUrl = `${served.url}/api/v1/iam`
  const call: IdentityStack["call"] = async (method, path, init = {}) => {
    const response = await fetch(`${served.url}${path}`, {
      method,
      headers: {
        ...(init.token === undefined ? {} : { authorization: `Bearer ${init.token}` }),
        ...(init.json === undefined ? {} : { "content-type": "application/json" })
      },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) })
    })
    const text = await response.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      /* Not JSON: keep the text. */
    }
    return { status: response.status, body }
  }
  return {
    url: served.url,
    iamUrl,
    call,
    signUp: async (name) => {
      const email = `${name}-${Date.now().toString(36)}${(counter++).toString(36)}@example.com`
      const { status, body } = await call("POST", "/api/v1/iam/api/auth/sign-up/email", { json: { name, email, password: PASSWORD } })
      if (status !== 200) throw new Error(`sign-up answered ${status}: ${JSON.stringify(body)}`)
      return { id: body.user.id, email, token: body.token }
    },
    close: async () => {
      await served.close()
      await runtime.dispose()
    }
  }
}

/** Code lifetimes for the expiry test: a code that lives two seconds. */
export const shortCodes: DeviceAuthorizationOptions = { codeTtl: Duration.seconds(2) }
