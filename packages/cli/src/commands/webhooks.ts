import type { EventType } from "@core/sdk"
import { confirmDestructive, expectPositionals, limitOf, parseOptions, verbOf, yesOption } from "../args.js"
import { ExitCode, usageError } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./webhooks.spec.js"
import { withSession, type Session } from "../session.js"
import type { Column, Ui } from "../ui.js"
import { defined, pageOptions } from "./resources.js"

type Endpoints = Session["client"]["webhooks"]["endpoints"]
type Endpoint = Awaited<ReturnType<Endpoints["get"]>>
type Delivery = Awaited<ReturnType<Endpoints["deliveries"]>>["data"][number]

const EVENT_TYPE = /^[a-z_]+(\.[a-z_]+)+$/

/**
 * `--events a.b,c.d` (or, with `one`, `--type a.b`): the event types, or undefined when absent; a
 * usage error for a word that is no event type's shape (the server checks the catalogue).
 */
export const eventTypesOf = (text: string | undefined, usage: string, flag = "--events", one = false): Array<EventType> | undefined => {
  if (text === undefined) return undefined
  const types = text.split(",").map((type) => type.trim()).filter((type) => type !== "")
  const bad = types.find((type) => !EVENT_TYPE.test(type))
  if (types.length === 0 || bad !== undefined || (one && types.length > 1)) {
    const expected = one ? "one event type such as tenant.created" : "comma-separated event types such as tenant.created,job.succeeded"
    throw usageError(`${flag} takes ${expected}, got '${bad ?? text}'. Usage: ${usage}`)
  }
  return [...new Set(types)] as Array<EventType>
}

/**
 * One page of a cursor-paged list (`--limit`, `--cursor`) or with `--all` every page, printed as
 * `{ data, nextCursor }` under `--json`, else as a table and the command for the next page.
 */
export const cursorList = async <Row>(
  ui: Ui,
  values: { readonly limit?: string | undefined; readonly cursor?: string | undefined; readonly all?: boolean | undefined },
  usage: string,
  one: (query: { limit?: number; cursor?: string }) => Promise<{ readonly data: ReadonlyArray<Row>; readonly nextCursor: string | null }>,
  every: (query: { limit?: number }) => AsyncIterable<Row>,
  columns: ReadonlyArray<Column<Row>>,
  text: { readonly empty: string; readonly noun: string; readonly next: string }
): Promise<number> => {
  const limit = limitOf(values.limit, usage, 100)
  const rows: Array<Row> = []
  let nextCursor: string | null = null
  if (values.all === true) for await (const row of every(defined({ limit }))) rows.push(row)
  else {
    const page = await one(defined({ limit, cursor: values.cursor }))
    rows.push(...page.data)
    nextCursor = page.nextCursor
  }
  ui.result({ data: rows, nextCursor }, () => {
    ui.list(rows, columns, { empty: text.empty, noun: text.noun })
    if (nextCursor !== null) ui.line(`More ${text.noun}: ${text.next} --cursor ${nextCursor}`)
  })
  return ExitCode.ok
}

const columns: ReadonlyArray<Column<Endpoint>> = [
  { header: "ID", value: (e) => e.id },
  { header: "URL", value: (e) => e.url },
  { header: "EVENTS", value: (e) => (e.events.length === 0 ? "all" : e.events.join(",")) },
  { header: "PLATFORM", value: (e) => e.platformId },
  { header: "ENABLED", value: (e) => (e.enabled ? "yes" : "no") },
  { header: "DESCRIPTION", value: (e) => e.description },
  { header: "CREATED", value: (e) => e.createdAt }
]

const deliveryColumns: ReadonlyArray<Column<Delivery>> = [
  { header: "ID", value: (d) => d.id },
  { header: "EVENT", value: (d) => d.eventId },
  { header: "TYPE", value: (d) => d.eventType },
  { header: "ATTEMPT", value: (d) => d.attempt },
  { header: "STATUS", value: (d) => d.status },
  { header: "CODE", value: (d) => d.statusCode },
  { header: "MS", value: (d) => d.durationMs },
  { header: "ERROR", value: (d) => d.error },
  { header: "AT", value: (d) => d.createdAt }
]

const secretNotice = "Copy the signing secret now: it is shown this once and cannot be retrieved again."

/** `core webhooks list|create|update|delete|rotate|test|deliveries|replay|retry`: the organization's webhook endpoints (docs/webhooks.md). */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "create", "update", "delete", "rotate", "test", "deliveries", "replay", "retry"], spec.usage)
  const usage = usageIn(spec, verb)
  if (verb === "update") {
    const { values, positionals } = parseOptions(rest, { url: { type: "string" }, events: { type: "string" }, description: { type: "string" }, enable: { type: "boolean" }, disable: { type: "boolean" } }, usage)
    const [id] = expectPositionals(positionals, ["endpoint-id"], usage)
    if (values.enable === true && values.disable === true) throw usageError(`Give --enable or --disable, not both. Usage: ${usage}`)
    const change = defined({ url: values.url, events: eventTypesOf(values.events, usage), description: values.description, enabled: values.enable === true ? true : values.disable === true ? false : undefined })
    if (Object.keys(change).length === 0) throw usageError(`Nothing to change: give --url, --events, --description, --enable or --disable. Usage: ${usage}`)
    return withSession(env, async ({ client }) => {
      const updated = await client.webhooks.endpoints.update(id!, change)
      ui.result(updated, () => ui.line(`Updated webhook endpoint ${updated.id}: ${updated.url} (${updated.events.length === 0 ? "every event type" : updated.events.join(", ")}), ${updated.enabled ? "enabled" : "disabled"}.`))
      return ExitCode.ok
    })
  }
  if (verb === "replay") {
    const { values, positionals } = parseOptions(rest, { since: { type: "string" } }, usage)
    const [id] = expectPositionals(positionals, ["endpoint-id"], usage)
    if (values.since === undefined) throw usageError(`core webhooks replay needs --since <time>, e.g. 2026-12-01T00:00:00Z. Usage: ${usage}`)
    return withSession(env, async ({ client }) => {
      const replayed = await client.webhooks.endpoints.replay(id!, { since: values.since! })
      ui.result({ id, ...replayed }, () => ui.line(`Queued ${replayed.queued} events to ${id} again: core webhooks deliveries ${id}`))
      return ExitCode.ok
    })
  }
  if (verb === "retry") {
    const { positionals } = parseOptions(rest, {}, usage)
    const [id] = expectPositionals(positionals, ["delivery-id"], usage)
    return withSession(env, async ({ client }) => {
      const retried = await client.webhooks.deliveries.retry(id!)
      ui.result(retried, () => ui.line(`Queued event ${retried.eventId} to ${retried.endpointId} again: core webhooks deliveries ${retried.endpointId}`))
      return ExitCode.ok
    })
  }
  if (verb === "list") {
    const { values, positionals } = parseOptions(rest, pageOptions, usage)
    expectPositionals(positionals, [], usage)
    return withSession(env, ({ client }) =>
      cursorList(ui, values, usage, (query) => client.webhooks.endpoints.list(query), (query) => client.webhooks.endpoints.all(query), columns, {
        empty: "No webhook endpoints. Create one: core webhooks create <url>",
        noun: "endpoints",
        next: "core webhooks list"
      }))
  }
  if (verb === "create") {
    const { values, positionals } = parseOptions(rest, { events: { type: "string" }, description: { type: "string" }, platform: { type: "string" } }, usage)
    const [url] = expectPositionals(positionals, ["url"], usage)
    const events = eventTypesOf(values.events, usage)
    return withSession(env, async ({ client }) => {
      const created = await client.webhooks.endpoints.create({ url: url!, ...defined({ events, description: values.description, platformId: values.platform }) })
      ui.error(secretNotice)
      ui.result(created, () => {
        ui.line(`Created webhook endpoint ${created.id} for ${created.url} (${created.events.length === 0 ? "every event type" : created.events.join(", ")}).`)
        ui.line(`Signing secret: ${created.secret}`)
      })
      return ExitCode.ok
    })
  }
  if (verb === "deliveries") {
    const { values, positionals } = parseOptions(rest, pageOptions, usage)
    const [id] = expectPositionals(positionals, ["endpoint-id"], usage)
    return withSession(env, ({ client }) =>
      cursorList(ui, values, usage, (query) => client.webhooks.endpoints.deliveries(id!, query), (query) => client.webhooks.endpoints.deliveriesAll(id!, query),
        deliveryColumns, { empty: `No delivery attempts to ${id} yet.`, noun: "attempts", next: `core webhooks deliveries ${id}` }))
  }
  const { values, positionals } = parseOptions(rest, verb === "delete" ? yesOption : {}, usage)
  const [id] = expectPositionals(positionals, ["endpoint-id"], usage)
  if (verb === "delete") await confirmDestructive(ui, (values as { yes?: boolean }).yes, `delete webhook endpoint ${id} and its delivery log`)
  return withSession(env, async ({ client }) => {
    const endpoints = client.webhooks.endpoints
    if (verb === "delete") {
      await endpoints.delete(id!)
      ui.result({ id, deleted: true }, () => ui.line(`Deleted webhook endpoint ${id}.`))
    } else if (verb === "rotate") {
      const rotated = await endpoints.rotateSecret(id!)
      ui.error(secretNotice)
      ui.result({ id, ...rotated }, () => {
        ui.line(`New signing secret of ${id}: ${rotated.secret}`)
        ui.line("The previous secret keeps signing beside it for a while (24 hours by default): switch your receiver to the new one before then.")
      })
    } else {
      const event = await endpoints.test(id!)
      ui.result(event, () => ui.line(`Sent ${event.type} event ${event.id} to ${id}: core webhooks deliveries ${id}`))
    }
    return ExitCode.ok
  })
}
