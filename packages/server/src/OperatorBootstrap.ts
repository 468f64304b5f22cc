import { AuthorizationLive, Bootstrap } from "@core/auth"
import { type Configuration, CoreConfig, Ids } from "@core/kernel"
import { Effect, Layer } from "effect"
import { type CommandFailed, failed } from "./Failure.js"
import * as Migrations from "./Migrations.js"
import { PlatformSetupLive } from "./PlatformSetupLive.js"
import type { DomainSettings } from "./Settings.js"
import * as Storage from "./Storage.js"

/**
 * `core-server bootstrap --email E`: migrate, create the operator organization (`core-operator`)
 * if needed, and make the user with that email its owner — the first operator of a new install.
 * The operator organization's platform gets its subscription at once, like every other (decision 0447).
 * Fails (exit 1) when no user has the email.
 */
export const bootstrap = (config: Configuration, email: string): Effect.Effect<string, CommandFailed, DomainSettings> =>
  Effect.scoped(
    Effect.gen(function*() {
      const database = yield* Storage.open(config)
      yield* Migrations.runAll(config).pipe(Effect.provide(database))
      const services = Bootstrap.Default.pipe(
        Layer.provide(PlatformSetupLive),
        Layer.provide(AuthorizationLive),
        Layer.provide(Layer.mergeAll(Layer.succeed(CoreConfig, config), Ids.layer)),
        Layer.provide(Layer.succeedContext(database))
      )
      const result = yield* Effect.flatMap(Bootstrap, (bootstrap) => bootstrap.makeOwner(email)).pipe(
        Effect.provide(services),
        Effect.mapError((error) => failed(error.message))
      )
      const organization = `${result.organization.slug} (${result.organization.id})`
      return result.created
        ? `Created the operator organization ${organization}; ${email} is its owner and a platform operator.`
        : `${email} is an owner of the operator organization ${organization} and a platform operator.`
    })
  )
