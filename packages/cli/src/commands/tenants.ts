import type { Registry } from "@core/contracts"
import { confirmDestructive, expectPositionals, limitOf, parseOptions, verbOf, yesOption } from "../args.js"
import { ExitCode, usageError } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./tenants.spec.js"
import { withSession, type Session } from "../session.js"

type Entity = Registry.EntityRecord
/** An entity with its live children, as `core tenants tree --json` prints it. */
interface Node extends Entity {
  readonly children: Array<Node>
}

const TYPES = ["tenant", "subtenant"] as const
const STATUSES = ["active", "suspended", "deleted"] as const
const platform = { platform: { type: "string" } } as const

const oneOf = <T extends string>(value: string | undefined, allowed: ReadonlyArray<T>, flag: string, usage: string): T | undefined => {
  if (value !== undefined && !(allowed as ReadonlyArray<string>).includes(value)) throw usageError(`${flag} must be one of ${allowed.join(", ")}. Usage: ${usage}`)
  return value as T | undefined
}

/** `--platform`, else the platform of the session (a platform's own login); a usage error without either. */
const platformOf = (session: Session, flag: string | undefined, usage: string): string => {
  const id = flag ?? session.credentials().platformId
  if (id === null) throw usageError(`No platform: pass --platform <platform-id> (this login has none). Usage: ${usage}`)
  return id
}

const columns = [
  { header: "ID", value: (entity: Entity) => entity.id },
  { header: "SLUG", value: (entity: Entity) => entity.slug },
  { header: "NAME", value: (entity: Entity) => entity.name },
  { header: "TYPE", value: (entity: Entity) => entity.type },
  { header: "STATUS", value: (entity: Entity) => entity.status },
  { header: "PARENT", value: (entity: Entity) => entity.parentId ?? "-" }
]

/** The forest under `roots`: each entity with its children (from `entities`), in the order given. */
const forest = (roots: ReadonlyArray<Entity>, entities: ReadonlyArray<Entity>): Array<Node> => {
  const children = new Map<string, Array<Entity>>()
  for (const entity of entities) if (entity.parentId !== null) children.set(entity.parentId, [...(children.get(entity.parentId) ?? []), entity])
  const grow = (entity: Entity): Node => ({ ...entity, children: (children.get(entity.id) ?? []).map(grow) })
  return roots.map(grow)
}

/** `slug  name  id` lines drawn as a tree (├── └── │). */
const drawTree = (nodes: ReadonlyArray<Node>, line: (text: string) => void, indent = "", top = true): void =>
  nodes.forEach((node, index) => {
    const last = index === nodes.length - 1
    const status = node.status === "active" ? "" : ` [${node.status}]`
    line(`${indent}${top ? "" : last ? "└── " : "├── "}${node.slug}  ${node.name}  ${node.id}${status}`)
    drawTree(node.children, line, top ? "" : `${indent}${last ? "    " : "│   "}`, false)
  })

/** `core tenants list|show|create|rename|delete|tree`: a platform's tenants and subtenants (docs/registry.md). */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "show", "create", "rename", "delete", "tree"], spec.usage)
  const usage = usageIn(spec, verb)
  const entities = (session: Session) => session.client.registry.entities
  if (verb === "list") {
    const options = { ...platform, type: { type: "string" }, status: { type: "string" }, parent: { type: "string" }, limit: { type: "string" }, cursor: { type: "string" }, all: { type: "boolean" } } as const
    const { values, positionals } = parseOptions(rest, options, usage)
    expectPositionals(positionals, [], usage)
    const limit = limitOf(values.limit, usage, 100)
    const type = oneOf(values.type, TYPES, "--type", usage)
    const status = oneOf(values.status, STATUSES, "--status", usage)
    const query = {
      ...(limit === undefined ? {} : { limit }),
      ...(type === undefined ? {} : { type }),
      ...(status === undefined ? {} : { status }),
      ...(values.parent === undefined ? {} : { parentId: values.parent })
    }
    return withSession(env, async (session) => {
      const platformId = platformOf(session, values.platform, usage)
      const rows: Array<Entity> = []
      let nextCursor: string | null = null
      let total: number
      if (values.all === true) {
        for await (const entity of entities(session).all(platformId, query)) rows.push(entity)
        total = rows.length
      } else {
        const page = await entities(session).list(platformId, { ...query, ...(values.cursor === undefined ? {} : { cursor: values.cursor }) })
        rows.push(...page.data)
        nextCursor = page.pagination.nextCursor
        total = page.pagination.total
      }
      ui.result({ data: rows, nextCursor }, () => {
        ui.list(rows, columns, { empty: "No tenants.", noun: "tenants", total })
        if (nextCursor !== null) ui.line(`More tenants: run again with --cursor ${nextCursor}`)
      })
      return ExitCode.ok
    })
  }
  if (verb === "show") {
    const { values, positionals } = parseOptions(rest, platform, usage)
    const [entityId] = expectPositionals(positionals, ["entity-id"], usage)
    return withSession(env, async (session) => {
      const platformId = platformOf(session, values.platform, usage)
      const [entity, ancestors] = await Promise.all([entities(session).get(platformId, entityId), entities(session).ancestors(platformId, entityId)])
      ui.result({ ...entity, ancestors: ancestors.data }, () => {
        ui.line(`${entity.name} (${entity.slug})`)
        ui.line(`  ID:       ${entity.id}`)
        ui.line(`  Type:     ${entity.type}`)
        ui.line(`  Status:   ${entity.status}`)
        ui.line(`  Path:     ${[...ancestors.data, entity].map((one) => one.slug).join(" / ")}`)
        ui.line(`  Platform: ${entity.platformId}`)
        ui.line(`  Created:  ${entity.createdAt}`)
        if (entity.deletedAt !== null) ui.line(`  Deleted:  ${entity.deletedAt}`)
      })
      return ExitCode.ok
    })
  }
  if (verb === "create") {
    const { values, positionals } = parseOptions(rest, { ...platform, name: { type: "string" }, parent: { type: "string" } }, usage)
    const [slug] = expectPositionals(positionals, ["slug"], usage)
    if (values.name === undefined) throw usageError(`Missing --name. Usage: ${usage}`)
    const body: Registry.CreateEntityRequest = values.parent === undefined
      ? { name: values.name, slug, type: "tenant" }
      : { name: values.name, slug, type: "subtenant", parentId: values.parent }
    return withSession(env, async (session) => {
      const entity = await entities(session).create(platformOf(session, values.platform, usage), body)
      ui.result(entity, () => ui.line(`Created ${entity.type} ${entity.slug} (${entity.id}).`))
      return ExitCode.ok
    })
  }
  if (verb === "rename") {
    const { values, positionals } = parseOptions(rest, platform, usage)
    const [entityId, name] = expectPositionals(positionals, ["entity-id", "name"], usage)
    return withSession(env, async (session) => {
      const entity = await entities(session).update(platformOf(session, values.platform, usage), entityId!, { name: name! })
      ui.result(entity, () => ui.line(`Renamed ${entity.slug} (${entity.id}) to ${entity.name}.`))
      return ExitCode.ok
    })
  }
  if (verb === "delete") {
    const { values, positionals } = parseOptions(rest, { ...platform, ...yesOption, cascade: { type: "boolean" } }, usage)
    const [entityId] = expectPositionals(positionals, ["entity-id"], usage)
    const cascade = values.cascade === true
    await confirmDestructive(ui, values.yes, `delete the tenant ${entityId}${cascade ? " and everything under it" : ""}`)
    return withSession(env, async (session) => {
      await entities(session).remove(platformOf(session, values.platform, usage), entityId!, { cascade })
      ui.result({ success: true, id: entityId, cascade }, () => ui.line(`Deleted ${entityId}${cascade ? " and its descendants" : ""}.`))
      return ExitCode.ok
    })
  }
  const { values, positionals } = parseOptions(rest, platform, usage)
  if (positionals.length > 1) expectPositionals(positionals, ["entity-id"], usage)
  const [entityId] = positionals
  return withSession(env, async (session) => {
    const platformId = platformOf(session, values.platform, usage)
    let tree: Array<Node>
    if (entityId === undefined) {
      const all: Array<Entity> = []
      for await (const entity of entities(session).all(platformId, { limit: 100 })) all.push(entity)
      tree = forest(all.filter((entity) => entity.parentId === null), all)
    } else {
      const [root, below] = await Promise.all([entities(session).get(platformId, entityId), entities(session).descendants(platformId, entityId)])
      tree = forest([root], below.data)
    }
    ui.result({ data: tree }, () => (tree.length === 0 ? ui.line("No tenants.") : drawTree(tree, (text) => ui.line(text))))
    return ExitCode.ok
  })
}
