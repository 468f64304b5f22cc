import type { HttpApp } from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import type { Routes } from "@core/gateway"
import { Upstream } from "@core/gateway"
import type { CoreConfig } from "@core/kernel"
import { Effect, type Scope } from "effect"

/** What a service's app may need when it is built: the process's database and configuration. */
export type ServiceRequirements = SqlClient.SqlClient | CoreConfig | Scope.Scope

/** A service this build can run, in the all-in-one server or alone with `serve --service`. */
export interface ServiceDefinition {
  /** The name `serve --service` takes, as in `CORE_UPSTREAM_<NAME>_URL` (`iam`, `registry`, …). */
  readonly name: string
  /** The gateway upstream it answers for. */
  readonly upstream: Routes.ServiceName
  /** Builds its HTTP app once at start. */
  readonly app: Effect.Effect<HttpApp.Default<unknown>, never, ServiceRequirements>
}

/** The services of this build; each domain's issue adds its own. */
export const SERVICES: ReadonlyArray<ServiceDefinition> = []

/** The definition named `name`, if this build has it. */
export const find = (name: string): ServiceDefinition | undefined =>
  SERVICES.find((service) => service.name === name.toLowerCase())

/** Build every service as an in-process gateway upstream. */
export const upstreams: Effect.Effect<ReadonlyArray<Upstream.Upstream>, never, ServiceRequirements> = Effect.forEach(
  SERVICES,
  (service) => Effect.flatMap(service.app, (app) => Upstream.fromHttpApp(service.upstream, app))
)
