import { expectPositionals, limitOf, parseOptions, verbOf } from "../args.js"
import { ExitCode } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./orgs.spec.js"
import { withSession } from "../session.js"

/** A slug from a name: lower case, runs of other characters as one dash, at most 63 characters. */
export const slugOf = (name: string): string =>
  name.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 63).replace(/-+$/, "")

/** `core orgs list`, `core orgs create <name> [--slug s]`, `core orgs get <slug>`. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "create", "get"], spec.usage)
  const usage = usageIn(spec, verb)
  if (verb === "list") {
    const { values, positionals } = parseOptions(rest, { limit: { type: "string" } }, usage)
    expectPositionals(positionals, [], usage)
    const limit = limitOf(values.limit, usage)
    return withSession(env, async ({ iam }) => {
      const organizations = await iam.organizations.list()
      const shown = organizations.slice(0, limit)
      ui.result(shown, () =>
        ui.list(
          shown,
          [
            { header: "ID", value: (org) => org.id },
            { header: "SLUG", value: (org) => org.slug },
            { header: "NAME", value: (org) => org.name },
            { header: "CREATED", value: (org) => org.createdAt }
          ],
          { empty: "You belong to no organization yet. Create one: core orgs create <name>", noun: "organizations", total: organizations.length }
        )
      )
      return ExitCode.ok
    })
  }
  if (verb === "create") {
    const { values, positionals } = parseOptions(rest, { slug: { type: "string" } }, usage)
    const [name] = expectPositionals(positionals, ["name"], usage)
    return withSession(env, async ({ iam }) => {
      const created = await iam.organizations.create({ name, slug: values.slug ?? slugOf(name) })
      ui.result(created, () => ui.line(`Created organization ${created.slug} (${created.id}); you are its owner.`))
      return ExitCode.ok
    })
  }
  const [slug] = expectPositionals(parseOptions(rest, {}, usage).positionals, ["slug"], usage)
  return withSession(env, async ({ iam }) => {
    const organization = await iam.organizations.get(slug)
    ui.result(organization, () => {
      ui.line(`${organization.name} (${organization.slug})`)
      ui.line(`  ID:        ${organization.id}`)
      ui.line(`  Type:      ${organization.orgType}`)
      ui.line(`  Platform:  ${organization.platformId ?? "-"}`)
      ui.line(`  Created:   ${organization.createdAt}`)
      ui.line()
      ui.table(organization.members, [
        { header: "MEMBER", value: (member) => member.id },
        { header: "EMAIL", value: (member) => member.user.email },
        { header: "NAME", value: (member) => member.user.name },
        { header: "ROLE", value: (member) => member.role }
      ])
    })
    return ExitCode.ok
  })
}
