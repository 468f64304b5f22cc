import { parseOptions, verbOf } from "../args.js"
import { CliError, ExitCode, usageError } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./secrets.spec.js"
import { withSession } from "../session.js"
import { platformOf, platformOption } from "./resources.js"

const NAME = /^[A-Z_][A-Z0-9_]*$/

const readStdin = async (): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "")
}

/**
 * `core secrets set|list`: the platform's worker secrets (docs/deploy.md). `set NAME=value …`, or
 * `set NAME` with the value on stdin (kept out of the shell's history); values are never printed.
 */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["set", "list"], spec.usage)
  const usage = usageIn(spec, verb)
  const { values, positionals } = parseOptions(rest, platformOption, usage)
  if (verb === "list") {
    return withSession(env, async (session) => {
      const list = await session.client.deploy.secrets.list(platformOf(session, values.platform, usage))
      ui.result(list, () =>
        ui.list(list.data, [
          { header: "NAME", value: (s) => s.name },
          { header: "LAST SET", value: (s) => new Date(s.lastSetAt).toISOString() }
        ], { empty: "No secrets yet: core secrets set NAME=value.", noun: "secrets", total: list.data.length }))
      return ExitCode.ok
    })
  }
  if (positionals.length === 0) throw usageError(`Name at least one secret. Usage: ${usage}`)
  const secrets: Record<string, string> = {}
  for (const item of positionals) {
    const at = item.indexOf("=")
    const name = at === -1 ? item : item.slice(0, at)
    if (!NAME.test(name)) throw usageError(`Secret names match ^[A-Z_][A-Z0-9_]*$, got '${name}'. Usage: ${usage}`)
    if (at === -1) {
      if (positionals.length > 1) throw usageError(`Only one secret can take its value from stdin. Usage: ${usage}`)
      secrets[name] = await readStdin()
    } else secrets[name] = item.slice(at + 1)
  }
  return withSession(env, async (session) => {
    const answer = await session.client.deploy.secrets.set(platformOf(session, values.platform, usage), secrets)
    ui.result(answer, () => {
      for (const [name, result] of Object.entries(answer.results)) ui.line(`${name}: ${result}`)
    })
    const failed = Object.values(answer.results).filter((result) => result !== "ok")
    if (failed.length > 0) throw new CliError(`${failed.length} secret(s) were not set.`, ExitCode.failure, "SECRETS_FAILED")
    return ExitCode.ok
  })
}
