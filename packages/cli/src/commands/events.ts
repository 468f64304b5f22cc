import type { CoreEvent, EventType } from "@core/sdk"
import { expectPositionals, parseOptions, verbOf } from "../args.js"
import { ExitCode } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./events.spec.js"
import { withSession } from "../session.js"
import type { Column } from "../ui.js"
import { defined, pageOptions } from "./resources.js"
import { cursorList, eventTypesOf } from "./webhooks.js"

const columns: ReadonlyArray<Column<CoreEvent>> = [
  { header: "ID", value: (e) => e.id },
  { header: "TYPE", value: (e) => e.type },
  { header: "PLATFORM", value: (e) => e.platformId },
  { header: "CREATED", value: (e) => e.createdAt }
]

/** `core events list|get`: the organization's events (docs/webhooks.md); `core listen` follows them live. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "get"], spec.usage)
  const usage = usageIn(spec, verb)
  if (verb === "list") {
    const { values, positionals } = parseOptions(rest, { ...pageOptions, type: { type: "string" }, platform: { type: "string" }, since: { type: "string" } }, usage)
    expectPositionals(positionals, [], usage)
    const type: EventType | undefined = eventTypesOf(values.type, usage, "--type", true)?.[0]
    const filter = defined({ type, platformId: values.platform, since: values.since })
    return withSession(env, ({ client }) =>
      cursorList(ui, values, usage, (query) => client.events.list({ ...filter, ...query }), (query) => client.events.all({ ...filter, ...query }), columns, {
        empty: "No events.",
        noun: "events",
        next: "core events list"
      }))
  }
  const { positionals } = parseOptions(rest, {}, usage)
  const [id] = expectPositionals(positionals, ["event-id"], usage)
  return withSession(env, async ({ client }) => {
    const event = await client.events.get(id!)
    ui.result(event, () => {
      ui.line(`${event.type} ${event.id} (version ${event.version}) at ${event.createdAt}`)
      ui.line(`  Organization: ${event.organizationId}`)
      if (event.platformId !== null) ui.line(`  Platform:     ${event.platformId}`)
      ui.line()
      for (const line of JSON.stringify(event.data, null, 2).split("\n")) ui.line(line)
    })
    return ExitCode.ok
  })
}
