import type { SERVICE_DECLARATIONS, ServiceName } from "@core/contracts"
import type { Routes } from "@core/gateway"
import type { CoreConfig, Route } from "@core/kernel"
import type { SqlClient } from "@effect/sql"
import type { Layer, Scope } from "effect"
import type { DomainSettings } from "./Settings.js"

/**
 * What a service's app may need when it is built: the process's database, the shared configuration
 * and every domain's own settings.
 */
export type ServiceRequirements = SqlClient.SqlClient | CoreConfig | DomainSettings | Scope.Scope

/**
 * A service this build can run, in the all-in-one server or alone with `serve --service`: its
 * declaration in `@core/contracts` (name, prefixes, base, routes; `ServiceDeclarations.ts`) with the
 * handlers and the services that implement it. `name`, `upstream` and `base` are the declaration's.
 */
export interface ServiceDefinition {
  readonly declaration: (typeof SERVICE_DECLARATIONS)[number]
  /** The name `serve --service` takes, as in `CORE_UPSTREAM_<NAME>_URL` (`iam`, `registry`, …). */
  readonly name: ServiceName
  /** The gateway upstream it answers for. */
  readonly upstream: Routes.ServiceName
  /** Its catalogued routes, one handler each. */
  readonly handlers: ReadonlyArray<Route.Handler<any, any>>
  /** The documented base its routes are also served without (`/api/v1/platforms`). */
  readonly base?: string
  /** Its services, built once at start over the process's database and configuration. */
  readonly layer: Layer.Layer<any, unknown, ServiceRequirements>
}

/** A service of this build: its declaration, implemented by `handlers` over `layer`. */
export const implement = (
  declaration: (typeof SERVICE_DECLARATIONS)[number],
  implementation: Pick<ServiceDefinition, "handlers" | "layer">
): ServiceDefinition => ({
  declaration,
  name: declaration.name,
  upstream: declaration.upstream,
  ...("base" in declaration ? { base: declaration.base } : {}),
  ...implementation
})
