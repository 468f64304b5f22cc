import type { Registry } from "@core/contracts"
import { setTimeout as sleep } from "node:timers/promises"
import { expectPositionals, limitOf, parseOptions, verbOf } from "../args.js"
import { CliError, ExitCode, usageError } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./features.spec.js"
import { withSession, type Session } from "../session.js"
import type { Column } from "../ui.js"
import { defined, listPages, oneOf, pageOptions, platformOf, platformOption } from "./resources.js"

type Activation = Registry.FeatureActivationRecord

const ENVIRONMENTS = ["dev", "stg", "prod"] as const
const STATUSES = ["pending", "active", "failed", "deactivating", "deactivated"] as const
/** How often `activate --wait` reads the activation. */
const POLL_MS = 500

const columns: ReadonlyArray<Column<Activation>> = [
  { header: "ID", value: (a) => a.id },
  { header: "FEATURE", value: (a) => a.featureId },
  { header: "VERSION", value: (a) => a.featureVersion },
  { header: "ENV", value: (a) => a.environment },
  { header: "STATUS", value: (a) => a.status },
  { header: "ACTIVATED", value: (a) => a.activatedAt }
]

/** `--entity`, else the platform's default tenant (the root tenant with slug `default`). */
const entityOf = async (session: Session, platformId: string, flag: string | undefined): Promise<string> => {
  if (flag !== undefined) return flag
  for await (const entity of session.client.registry.entities.all(platformId, { type: "tenant", limit: 100 })) {
    if (entity.slug === "default" && entity.parentId === null) return entity.id
  }
  throw new CliError(`The platform ${platformId} has no default tenant: pass --entity <entity-id>.`, ExitCode.failure, "NO_DEFAULT_TENANT")
}

/** `--config '<json object>'` of `activate`. */
const configOf = (text: string | undefined, usage: string): Record<string, unknown> | undefined => {
  if (text === undefined) return undefined
  let config: unknown
  try {
    config = JSON.parse(text)
  } catch {
    config = undefined
  }
  if (typeof config !== "object" || config === null || Array.isArray(config)) throw usageError(`--config must be a JSON object. Usage: ${usage}`)
  return config as Record<string, unknown>
}

/** `--timeout <seconds>` of `activate --wait` (default 120). */
const timeoutOf = (text: string | undefined, usage: string): number => {
  if (text === undefined) return 120
  const seconds = /^\d+$/.test(text) ? Number(text) : Number.NaN
  if (!(seconds >= 1 && seconds <= 3600)) throw usageError(`--timeout must be seconds from 1 to 3600, got '${text}'. Usage: ${usage}`)
  return seconds
}

/** `core features list|activate|deactivate|show|manifest`: an entity's feature activations and its manifest (docs/registry.md). */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "activate", "deactivate", "show", "manifest"], spec.usage)
  const usage = usageIn(spec, verb)
  const common = { ...platformOption, entity: { type: "string" }, environment: { type: "string" } } as const
  const api = (session: Session) => session.client.registry.features
  if (verb === "list") {
    const { values, positionals } = parseOptions(rest, { ...common, ...pageOptions, status: { type: "string" }, feature: { type: "string" } }, usage)
    expectPositionals(positionals, [], usage)
    const query = defined({
      limit: limitOf(values.limit, usage, 100),
      environment: oneOf(values.environment, ENVIRONMENTS, "--environment", usage),
      status: oneOf(values.status, STATUSES, "--status", usage),
      featureId: values.feature
    })
    return withSession(env, async (session) => {
      const platformId = platformOf(session, values.platform, usage)
      const entityId = await entityOf(session, platformId, values.entity)
      return listPages(ui, values, (cursor) => api(session).list(platformId, entityId, { ...query, ...defined({ cursor }) }), () => api(session).all(platformId, entityId, query), columns, "features")
    })
  }
  if (verb === "show") {
    const { values, positionals } = parseOptions(rest, { ...platformOption, entity: { type: "string" } }, usage)
    const [activationId] = expectPositionals(positionals, ["activation-id"], usage)
    return withSession(env, async (session) => {
      const platformId = platformOf(session, values.platform, usage)
      const a = await api(session).get(platformId, await entityOf(session, platformId, values.entity), activationId!)
      ui.result(a, () => {
        ui.line(`${a.featureId} ${a.featureVersion} (${a.id})`)
        for (const [label, value] of [["Environment", a.environment], ["Status", a.status], ["Entity", a.entityId], ["Activated", a.activatedAt], ["Deactivated", a.deactivatedAt], ["Created", a.createdAt]] as const) {
          if (value !== null) ui.line(`  ${`${label}:`.padEnd(13)}${value}`)
        }
      })
      return ExitCode.ok
    })
  }
  if (verb === "manifest") {
    const { values, positionals } = parseOptions(rest, common, usage)
    expectPositionals(positionals, [], usage)
    const environment = oneOf(values.environment, ENVIRONMENTS, "--environment", usage) ?? "prod"
    return withSession(env, async (session) => {
      const platformId = platformOf(session, values.platform, usage)
      const manifest = await api(session).manifest(platformId, await entityOf(session, platformId, values.entity), { environment })
      ui.result(manifest, () => {
        ui.line(`Manifest of ${manifest.entityId} (${manifest.environment}), generated ${manifest.generatedAt}`)
        ui.list(manifest.features, [
          { header: "FEATURE", value: (f) => f.id },
          { header: "VERSION", value: (f) => f.version },
          { header: "PACKAGE", value: (f) => f.package },
          { header: "SERVICE URL", value: (f) => f.serviceUrl }
        ], { empty: "No active features.", noun: "features" })
      })
      return ExitCode.ok
    })
  }
  if (verb === "deactivate") {
    const { values, positionals } = parseOptions(rest, common, usage)
    const [featureId] = expectPositionals(positionals, ["feature-id"], usage)
    const environment = oneOf(values.environment, ENVIRONMENTS, "--environment", usage) ?? "prod"
    return withSession(env, async (session) => {
      const platformId = platformOf(session, values.platform, usage)
      const answer = await api(session).deactivate(platformId, await entityOf(session, platformId, values.entity), { featureId: featureId!, environment })
      ui.result(answer, () => ui.line(`${answer.featureId} (${environment}) is ${answer.status}.`))
      return ExitCode.ok
    })
  }
  const options = { ...common, version: { type: "string" }, config: { type: "string" }, wait: { type: "boolean" }, timeout: { type: "string" } } as const
  const { values, positionals } = parseOptions(rest, options, usage)
  const [featureId] = expectPositionals(positionals, ["feature-id"], usage)
  if (values.version === undefined) throw usageError(`Missing --version. Usage: ${usage}`)
  const environment = oneOf(values.environment, ENVIRONMENTS, "--environment", usage) ?? "prod"
  const config = configOf(values.config, usage)
  const timeout = timeoutOf(values.timeout, usage)
  return withSession(env, async (session) => {
    const platformId = platformOf(session, values.platform, usage)
    const entityId = await entityOf(session, platformId, values.entity)
    const started = await api(session).activate(platformId, entityId, { featureId: featureId!, version: values.version!, environment, ...defined({ config }) })
    if (values.wait !== true) {
      ui.result(started, () => ui.line(`${started.featureId} (${environment}): ${started.status}, activation ${started.activationId}, job ${started.provisionJobId}.`))
      return ExitCode.ok
    }
    // --wait: read the activation until the job settles it (at once when it already is), each change of status on stderr.
    const deadline = Date.now() + timeout * 1000
    let status: string = started.status
    ui.error(`Activating ${started.featureId} (${started.activationId}): ${status}`)
    for (;;) {
      const activation = await api(session).get(platformId, entityId, started.activationId)
      if (activation.status !== status) ui.error(`Activating ${started.featureId} (${started.activationId}): ${(status = activation.status)}`)
      if (activation.status === "active" || activation.status === "failed") {
        ui.result(activation, () => ui.line(`${activation.featureId} ${activation.featureVersion} (${environment}) is ${activation.status}.`))
        if (activation.status === "failed") throw new CliError(`Activating ${activation.featureId} failed (job ${started.provisionJobId}).`, ExitCode.failure, "ACTIVATION_FAILED")
        return ExitCode.ok
      }
      if (Date.now() >= deadline) throw new CliError(`Still ${activation.status} after ${timeout}s: core features show ${activation.id}`, ExitCode.failure, "TIMEOUT")
      await sleep(POLL_MS)
    }
  })
}
