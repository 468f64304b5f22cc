import type { Deploy } from "@core/contracts"
import { expectPositionals, limitOf, parseOptions, verbOf } from "../args.js"
import { ExitCode } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./deployments.spec.js"
import { withSession } from "../session.js"
import type { Column } from "../ui.js"
import { platformOf, platformOption } from "./resources.js"

const columns: ReadonlyArray<Column<Deploy.DeploymentRecord>> = [
  { header: "ID", value: (d) => d.deploymentId },
  { header: "STATUS", value: (d) => d.status },
  { header: "BRANCH", value: (d) => d.branch },
  { header: "LIVE", value: (d) => (d.live ? "yes" : "") },
  { header: "CREATED", value: (d) => new Date(d.createdAt).toISOString() },
  { header: "URL", value: (d) => d.url }
]

/** `core deployments list|show|rollback`: a platform's deployments (docs/deploy.md). */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "show", "rollback"], spec.usage)
  const usage = usageIn(spec, verb)
  if (verb === "list") {
    const { values } = parseOptions(rest, { ...platformOption, limit: { type: "string" }, cursor: { type: "string" } }, usage)
    const limit = limitOf(values.limit, usage, 100)
    return withSession(env, async (session) => {
      const platformId = platformOf(session, values.platform, usage)
      const page = await session.client.deploy.deployments.list(platformId, {
        ...(limit === undefined ? {} : { limit }),
        ...(values.cursor === undefined ? {} : { cursor: values.cursor })
      })
      ui.result({ data: page.data, nextCursor: page.nextCursor }, () => {
        ui.list(page.data, columns, { empty: "No deployments yet: run core deploy <dir>.", noun: "deployments", more: page.hasMore })
        if (page.nextCursor !== null) ui.line(`More deployments: --cursor ${page.nextCursor}`)
      })
      return ExitCode.ok
    })
  }
  const { values, positionals } = parseOptions(rest, platformOption, usage)
  const [deploymentId] = expectPositionals(positionals, ["deployment-id"], usage)
  return withSession(env, async (session) => {
    const platformId = platformOf(session, values.platform, usage)
    const record = verb === "show"
      ? await session.client.deploy.deployments.get(platformId, deploymentId!)
      : await session.client.deploy.deployments.rollback(platformId, deploymentId!)
    ui.result(record, () => {
      if (verb === "rollback") ui.line(`${record.deploymentId} is live again at ${record.url}`)
      else ui.table([record], columns)
    })
    return ExitCode.ok
  })
}
