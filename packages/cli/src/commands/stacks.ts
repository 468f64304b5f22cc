import type { Stacks } from "@core/contracts"
import { readFileSync } from "node:fs"
import { confirmDestructive, expectPositionals, limitOf, parseOptions, verbOf, yesOption } from "../args.js"
import { CliError, ExitCode, usageError } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./stacks.spec.js"
import { withSession } from "../session.js"

/** A stack definition file's JSON (`-` reads stdin). */
const readDefinition = (path: string): Stacks.CreateStackVersionRequest["stackDefinition"] => {
  let text: string
  try {
    text = readFileSync(path === "-" ? 0 : path, "utf8")
  } catch (error) {
    throw new CliError(`Cannot read ${path}: ${(error as Error).message}`, ExitCode.failure, "FILE_UNREADABLE")
  }
  try {
    return JSON.parse(text) as Stacks.CreateStackVersionRequest["stackDefinition"]
  } catch {
    throw new CliError(`${path} is not JSON: a stack definition is { "resources": [...] }`, ExitCode.failure, "INVALID_JSON")
  }
}

const required = (value: string | undefined, flag: string, usage: string): string => {
  if (value === undefined) throw usageError(`Missing ${flag}. Usage: ${usage}`)
  return value
}

/** `core stacks list|show|create|publish|deprecate`: the stack catalogue (docs/stacks.md). */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "show", "create", "publish", "deprecate"], spec.usage)
  const usage = usageIn(spec, verb)
  if (verb === "list") {
    const { values, positionals } = parseOptions(rest, { limit: { type: "string" } }, usage)
    expectPositionals(positionals, [], usage)
    const limit = limitOf(values.limit, usage)
    return withSession(env, async ({ client }) => {
      const { data, total } = await client.stacks.list()
      const shown = data.slice(0, limit)
      ui.result(shown, () =>
        ui.list(
          shown,
          [
            { header: "NAME", value: (template) => template.name },
            { header: "DISPLAY NAME", value: (template) => template.display_name },
            { header: "LATEST", value: (template) => template.latest_version },
            { header: "DOMAIN", value: (template) => template.domain }
          ],
          { empty: "No stack templates.", noun: "stack templates", total }
        )
      )
      return ExitCode.ok
    })
  }
  if (verb === "show") {
    const { positionals } = parseOptions(rest, {}, usage)
    const [name] = expectPositionals(positionals, ["name"], usage)
    return withSession(env, async ({ client }) => {
      const detail = await client.stacks.get(name)
      const { data: versions } = await client.stacks.versions.list(name)
      ui.result({ ...detail, versions }, () => {
        const template = detail.template
        ui.line(`${template.display_name} (${template.name})`)
        ui.line(`  ID:          ${template.id}`)
        ui.line(`  Status:      ${template.status}`)
        ui.line(`  Latest:      ${template.latest_version ?? "-"}`)
        ui.line(`  Description: ${template.description}`)
        ui.line()
        ui.list(
          versions,
          [
            { header: "VERSION", value: (version) => version.version },
            { header: "STATUS", value: (version) => version.status },
            { header: "SDK", value: (version) => version.core_sdk_version },
            { header: "PUBLISHED", value: (version) => new Date(version.published_at).toISOString() }
          ],
          { empty: "No versions published.", noun: "versions", total: versions.length }
        )
      })
      return ExitCode.ok
    })
  }
  if (verb === "create") {
    const options = { "display-name": { type: "string" }, description: { type: "string" }, icon: { type: "string" }, domain: { type: "string" } } as const
    const { values, positionals } = parseOptions(rest, options, usage)
    const [name] = expectPositionals(positionals, ["name"], usage)
    const body: Stacks.CreateStackTemplateRequest = {
      name,
      displayName: required(values["display-name"], "--display-name", usage),
      description: required(values.description, "--description", usage),
      ...(values.icon === undefined ? {} : { icon: values.icon }),
      ...(values.domain === undefined ? {} : { domain: values.domain })
    }
    return withSession(env, async ({ client }) => {
      const { id } = await client.stacks.create(body)
      ui.result({ id, name }, () => ui.line(`Created stack template ${name} (${id}).`))
      return ExitCode.ok
    })
  }
  if (verb === "publish") {
    const { values, positionals } = parseOptions(rest, { file: { type: "string" }, sdk: { type: "string" } }, usage)
    const [name, version] = expectPositionals(positionals, ["name", "version"], usage)
    const stackDefinition = readDefinition(required(values.file, "--file", usage))
    const coreSdkVersion = required(values.sdk, "--sdk", usage)
    return withSession(env, async ({ client }) => {
      const { id } = await client.stacks.versions.publish(name, { version, stackDefinition, coreSdkVersion })
      ui.result({ id, name, version }, () => ui.line(`Published ${name} ${version} (${id}).`))
      return ExitCode.ok
    })
  }
  const { values, positionals } = parseOptions(rest, yesOption, usage)
  if (positionals.length === 2) {
    const [name, version] = positionals as [string, string]
    await confirmDestructive(ui, values.yes, `deprecate ${name} ${version}`)
    return withSession(env, async ({ client }) => {
      await client.stacks.versions.deprecate(name, version)
      ui.result({ name, version, status: "deprecated" }, () => ui.line(`Deprecated ${name} ${version}.`))
      return ExitCode.ok
    })
  }
  const [name] = expectPositionals(positionals, ["name"], usage)
  await confirmDestructive(ui, values.yes, `deprecate the stack template ${name}`)
  return withSession(env, async ({ client }) => {
    await client.stacks.update(name, { status: "deprecated" })
    ui.result({ name, status: "deprecated" }, () => ui.line(`Deprecated the stack template ${name}: it is no longer listed.`))
    return ExitCode.ok
  })
}
