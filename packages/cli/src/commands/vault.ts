import { VaultToolError } from "@core/sdk"
import { expectPositionals, limitOf, parseOptions, verbOf } from "../args.js"
import { CliError, ExitCode, usageError } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./vault.spec.js"
import { withSession } from "../session.js"

const CATEGORIES = ["services", "concepts", "cross-cutting", "guides", "rules", "decisions", "implementation"] as const

/** A vault tool's own refusal (an unknown path, an invalid argument) as a one-line failure (exit 1). */
const toolFailure = (error: unknown): never => {
  if (error instanceof VaultToolError) throw new CliError(error.message, ExitCode.failure, "VAULT_TOOL_ERROR")
  throw error
}

/** `core vault search|read`: Core's architecture docs through the vault tool server (docs/vault-server.md). */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["search", "read"], spec.usage)
  const usage = usageIn(spec, verb)
  if (verb === "search") {
    const { values, positionals } = parseOptions(rest, { limit: { type: "string" }, category: { type: "string" } }, usage)
    if (positionals.length === 0) throw usageError(`Missing <query>. Usage: ${usage}`)
    const query = positionals.join(" ")
    const limit = limitOf(values.limit, usage, 100)
    const category = values.category
    if (category !== undefined && !(CATEGORIES as ReadonlyArray<string>).includes(category)) {
      throw usageError(`--category must be one of ${CATEGORIES.join(", ")}, got '${category}'. Usage: ${usage}`)
    }
    return withSession(env, async ({ client }) => {
      const hits = await client.vault.search(query, {
        ...(limit === undefined ? {} : { limit }),
        ...(category === undefined ? {} : { category: category as (typeof CATEGORIES)[number] })
      }).catch(toolFailure)
      ui.result(hits, () =>
        ui.list(
          hits,
          [
            { header: "SCORE", value: (hit) => hit.score.toFixed(2) },
            { header: "PATH", value: (hit) => hit.path },
            { header: "TITLE", value: (hit) => hit.title },
            { header: "SNIPPET", value: (hit) => hit.snippet }
          ],
          { empty: `Nothing in the vault matches '${query}'.`, noun: "documents", total: hits.length }
        )
      )
      return ExitCode.ok
    })
  }
  const { positionals } = parseOptions(rest, {}, usage)
  const [path] = expectPositionals(positionals, ["path"], usage)
  return withSession(env, async ({ client }) => {
    const text = await client.vault.read(path).catch(toolFailure)
    ui.result({ path, text }, () => ui.line(text.replace(/\n$/, "")))
    return ExitCode.ok
  })
}
