import type { Registry } from "@core/contracts"
import { readFileSync } from "node:fs"
import { confirmDestructive, expectPositionals, limitOf, parseOptions, verbOf, yesOption } from "../args.js"
import { CliError, ExitCode, usageError } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./resources.spec.js"
import { withSession, type Session } from "../session.js"
import type { Column, Ui } from "../ui.js"

type Resource = Registry.ResourceRecord
type Secret = Registry.SecretRecord

const TYPES = ["worker", "pages", "sql_db", "object_store", "kv", "queue"] as const
const ENVIRONMENTS = ["dev", "stg", "prod"] as const
const STATUSES = ["pending", "provisioning", "active", "failed", "deleted"] as const

/** `--platform`, shared by `core resources` and `core features`. */
export const platformOption = { platform: { type: "string" } } as const
/** `--limit`, `--cursor` and `--all` of a list. */
export const pageOptions = { limit: { type: "string" }, cursor: { type: "string" }, all: { type: "boolean" } } as const

/** A flag's value when it is one of `allowed` (a usage error otherwise), or undefined when absent. */
export const oneOf = <T extends string>(value: string | undefined, allowed: ReadonlyArray<T>, flag: string, usage: string): T | undefined => {
  if (value !== undefined && !(allowed as ReadonlyArray<string>).includes(value)) throw usageError(`${flag} must be one of ${allowed.join(", ")}. Usage: ${usage}`)
  return value as T | undefined
}

/** `--platform`, else the platform of the login (a platform's own); a usage error without either. */
export const platformOf = (session: Session, flag: string | undefined, usage: string): string => {
  const id = flag ?? session.credentials().platformId
  if (id === null) throw usageError(`No platform: pass --platform <platform-id> (this login has none). Usage: ${usage}`)
  return id
}

/** Only the fields that are set (a query without `undefined` values). */
export const defined = <T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> }

/** The page of `--limit/--cursor`, or with `--all` every page; printed as `{ data, nextCursor }` under `--json`, else as a table. */
export const listPages = async <Row>(
  ui: Ui,
  values: { readonly cursor?: string | undefined; readonly all?: boolean | undefined },
  one: (cursor: string | undefined) => Promise<{ readonly data: ReadonlyArray<Row>; readonly pagination: { readonly nextCursor: string | null; readonly total: number } }>,
  every: () => AsyncIterable<Row>,
  columns: ReadonlyArray<Column<Row>>,
  noun: string
): Promise<number> => {
  const rows: Array<Row> = []
  let nextCursor: string | null = null
  let total: number
  if (values.all === true) {
    for await (const row of every()) rows.push(row)
    total = rows.length
  } else {
    const page = await one(values.cursor)
    rows.push(...page.data)
    nextCursor = page.pagination.nextCursor
    total = page.pagination.total
  }
  ui.result({ data: rows, nextCursor }, () => {
    ui.list(rows, columns, { empty: `No ${noun}.`, noun, total })
    if (nextCursor !== null) ui.line(`More ${noun}: run again with --cursor ${nextCursor}`)
  })
  return ExitCode.ok
}

const columns: ReadonlyArray<Column<Resource>> = [
  { header: "ID", value: (r) => r.id },
  { header: "EDGE NAME", value: (r) => r.edgeName },
  { header: "TYPE", value: (r) => r.resourceType },
  { header: "ENV", value: (r) => r.environment },
  { header: "STATUS", value: (r) => r.status },
  { header: "SERVICE", value: (r) => r.serviceName },
  { header: "ENTITY", value: (r) => r.entityId }
]

const secretColumns: ReadonlyArray<Column<Secret>> = [
  { header: "NAME", value: (s) => s.secretName },
  { header: "STATUS", value: (s) => s.status },
  { header: "LAST SET", value: (s) => s.lastSetAt }
]

const show = (ui: Ui, r: Resource): void =>
  ui.result(r, () => {
    ui.line(`${r.edgeName} (${r.id})`)
    for (const [label, value] of [["Type", r.resourceType], ["Environment", r.environment], ["Status", r.status], ["Service", r.serviceName],
      ["Stack", r.stackId], ["Entity", r.entityId], ["Platform", r.platformId], ["Edge URL", r.edgeUrl], ["Edge ID", r.edgeId], ["Job", r.provisionJobId],
      ["Created", r.createdAt], ["Deleted", r.deletedAt]] as const) {
      if (value !== null) ui.line(`  ${`${label}:`.padEnd(13)}${value}`)
    }
  })

/** A secret's value: `--value-file <path>`, else stdin (piped; one trailing newline dropped). Never printed. */
const secretValue = (file: string | undefined, usage: string): string => {
  if (file === undefined && process.stdin.isTTY === true) throw usageError(`Pipe the value on stdin or pass --value-file <path> (it is never read from the command line). Usage: ${usage}`)
  let text: string
  try {
    text = readFileSync(file === undefined || file === "-" ? 0 : file, "utf8")
  } catch (error) {
    throw new CliError(`Cannot read the value from ${file ?? "stdin"}: ${(error as Error).message}`, ExitCode.failure, "FILE_UNREADABLE")
  }
  const value = text.replace(/\r?\n$/, "")
  if (value === "") throw usageError(`The secret's value is empty. Usage: ${usage}`)
  return value
}

/** The usage of each `core resources secrets` verb after `<resource-id>`. */
const SECRET_USAGE = {
  list: " [--status active|deleted] [--limit <n>] [--cursor <c>] [--all]",
  set: " <name> [--value-file <path>] (the value on stdin or in the file)",
  delete: " <name> [--yes]"
} as const

/** `core resources secrets list|set|delete`. */
const secrets = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "set", "delete"], usageIn(spec, "secrets"))
  const usage = `core resources secrets ${verb} <resource-id>${SECRET_USAGE[verb]}`
  if (verb === "list") {
    const { values, positionals } = parseOptions(rest, { ...platformOption, ...pageOptions, status: { type: "string" } }, usage)
    const [resourceId] = expectPositionals(positionals, ["resource-id"], usage)
    const query = defined({ limit: limitOf(values.limit, usage, 100), status: oneOf(values.status, ["active", "deleted"] as const, "--status", usage) })
    return withSession(env, (session) => {
      const platformId = platformOf(session, values.platform, usage)
      const api = session.client.registry.secrets
      return listPages(ui, values, (cursor) => api.list(platformId, resourceId!, { ...query, ...defined({ cursor }) }), () => api.all(platformId, resourceId!, query), secretColumns, "secrets")
    })
  }
  if (verb === "set") {
    const { values, positionals } = parseOptions(rest, { ...platformOption, "value-file": { type: "string" } }, usage)
    const [resourceId, name] = expectPositionals(positionals, ["resource-id", "name"], usage)
    const value = secretValue(values["value-file"], usage)
    return withSession(env, async (session) => {
      const secret = await session.client.registry.secrets.set(platformOf(session, values.platform, usage), resourceId!, name!, value)
      ui.result(secret, () => ui.line(`Set ${secret.secretName} on ${resourceId} (its value is stored encrypted and never shown).`))
      return ExitCode.ok
    })
  }
  const { values, positionals } = parseOptions(rest, { ...platformOption, ...yesOption }, usage)
  const [resourceId, name] = expectPositionals(positionals, ["resource-id", "name"], usage)
  await confirmDestructive(ui, values.yes, `delete the secret ${name} of ${resourceId}`)
  return withSession(env, async (session) => {
    await session.client.registry.secrets.remove(platformOf(session, values.platform, usage), resourceId!, name!)
    ui.result({ success: true, resourceId, secretName: name }, () => ui.line(`Deleted the secret ${name} of ${resourceId}.`))
    return ExitCode.ok
  })
}

/** `core resources list|show|create|set-status|delete|lookup|secrets`: a platform's resources (docs/registry.md). */
export const run = async (context: CommandContext): Promise<number> => {
  const { argv, ui, env } = context
  const { verb, rest } = verbOf(argv, ["list", "show", "create", "set-status", "delete", "lookup", "secrets"], spec.usage)
  if (verb === "secrets") return secrets({ ...context, argv: rest })
  const usage = usageIn(spec, verb)
  const api = (session: Session) => session.client.registry.resources
  if (verb === "list") {
    const options = { ...platformOption, ...pageOptions, entity: { type: "string" }, type: { type: "string" }, environment: { type: "string" }, status: { type: "string" } } as const
    const { values, positionals } = parseOptions(rest, options, usage)
    expectPositionals(positionals, [], usage)
    const query = defined({
      limit: limitOf(values.limit, usage, 100),
      resourceType: oneOf(values.type, TYPES, "--type", usage),
      environment: oneOf(values.environment, ENVIRONMENTS, "--environment", usage),
      status: oneOf(values.status, STATUSES, "--status", usage)
    })
    return withSession(env, (session) => {
      const platformId = platformOf(session, values.platform, usage)
      const entity = values.entity
      return entity === undefined
        ? listPages(ui, values, (cursor) => api(session).list(platformId, { ...query, ...defined({ cursor }) }), () => api(session).all(platformId, query), columns, "resources")
        : listPages(ui, values, (cursor) => api(session).listForEntity(platformId, entity, { ...query, ...defined({ cursor }) }), () => api(session).allForEntity(platformId, entity, query), columns, "resources")
    })
  }
  if (verb === "show" || verb === "lookup") {
    const { values, positionals } = parseOptions(rest, verb === "show" ? platformOption : {}, usage)
    const [id] = expectPositionals(positionals, [verb === "show" ? "resource-id" : "edge-name"], usage)
    return withSession(env, async (session) => {
      show(ui, verb === "show" ? await api(session).get(platformOf(session, (values as { platform?: string }).platform, usage), id!) : await api(session).lookup(id!))
      return ExitCode.ok
    })
  }
  if (verb === "create") {
    const options = { ...platformOption, entity: { type: "string" }, stack: { type: "string" }, type: { type: "string" }, service: { type: "string" }, environment: { type: "string" }, url: { type: "string" } } as const
    const { values, positionals } = parseOptions(rest, options, usage)
    const [edgeName] = expectPositionals(positionals, ["edge-name"], usage)
    const missing = (["entity", "stack", "type", "service", "environment"] as const).filter((name) => values[name] === undefined)
    if (missing.length > 0) throw usageError(`Missing ${missing.map((name) => `--${name}`).join(", ")}. Usage: ${usage}`)
    const body: Registry.CreateResourceRequest = {
      stackId: values.stack!,
      resourceType: oneOf(values.type, TYPES, "--type", usage)!,
      serviceName: values.service!,
      environment: oneOf(values.environment, ENVIRONMENTS, "--environment", usage)!,
      edgeName: edgeName!,
      ...defined({ edgeUrl: values.url })
    }
    return withSession(env, async (session) => {
      const resource = await api(session).create(platformOf(session, values.platform, usage), values.entity!, body)
      ui.result(resource, () => ui.line(`Created ${resource.resourceType} ${resource.edgeName} (${resource.id}), ${resource.status}.`))
      return ExitCode.ok
    })
  }
  if (verb === "set-status") {
    const { values, positionals } = parseOptions(rest, { ...platformOption, "if-match": { type: "string" } }, usage)
    const [resourceId, status] = expectPositionals(positionals, ["resource-id", "status"], usage)
    const next = oneOf(status, STATUSES, "<status>", usage)!
    return withSession(env, async (session) => {
      const headers = values["if-match"] === undefined ? {} : { headers: { "if-match": values["if-match"] } }
      const resource = await api(session).update(platformOf(session, values.platform, usage), resourceId!, { status: next }, headers)
      ui.result(resource, () => ui.line(`${resource.edgeName} (${resource.id}) is ${resource.status}.`))
      return ExitCode.ok
    })
  }
  const { values, positionals } = parseOptions(rest, { ...platformOption, ...yesOption }, usage)
  const [resourceId] = expectPositionals(positionals, ["resource-id"], usage)
  await confirmDestructive(ui, values.yes, `delete the resource ${resourceId}`)
  return withSession(env, async (session) => {
    await api(session).remove(platformOf(session, values.platform, usage), resourceId!)
    ui.result({ success: true, id: resourceId }, () => ui.line(`Deleted ${resourceId}.`))
    return ExitCode.ok
  })
}
