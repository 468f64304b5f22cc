import type { Stacks } from "@core/contracts"
import { type Conflict, Ids, type NotFound, type ValidationError } from "@core/kernel"
import { Clock, Effect, Option } from "effect"
import { templateExists, templateNotFound, unorderableVersion, versionExists, versionNotFound } from "./Errors.js"
import { descending, isOrderable, latestOf } from "./LatestVersion.js"
import { type TemplateChanges, type TemplateRow, StacksRepo, type VersionRow } from "./StacksRepo.js"

/** A version as the catalogue answers it (docs/stacks.md). */
export const toVersionRecord = (row: VersionRow): Stacks.StackVersionRecord => ({
  id: row.id,
  template_id: row.templateId,
  version: row.version,
  stack_definition: row.stackDefinition,
  core_sdk_version: row.coreSdkVersion,
  status: row.status,
  published_at: row.publishedAt,
  created_at: row.createdAt
})

/** A template as the catalogue answers it (docs/stacks.md), with its latest version. */
export const toSummary = (row: TemplateRow, latest: VersionRow | undefined): Stacks.StackTemplateSummary => ({
  id: row.id,
  name: row.name,
  display_name: row.displayName,
  description: row.description,
  icon: row.icon,
  domain: row.domain,
  latest_version: latest?.version ?? null,
  status: row.status,
  created_at: row.createdAt,
  updated_at: row.updatedAt
})

/** What a new template holds (the contract's parsed body). */
export type NewTemplate = Stacks.CreateStackTemplateRequest

/** What a new version holds (the contract's parsed body: the definition already checked). */
export interface NewVersion {
  readonly version: string
  readonly stackDefinition: Stacks.StackDefinition
  readonly coreSdkVersion: string
}

/**
 * The stack catalogue: templates and their versions, platform-wide. Who may write is the route's
 * declaration (`auth: "operator"`), so the use cases take no caller (decision 0220).
 */
export class Catalogue extends Effect.Service<Catalogue>()("@core/stacks/Catalogue", {
  effect: Effect.gen(function*() {
    const repo = yield* StacksRepo
    const ids = yield* Ids.Ids

    const template = (name: string): Effect.Effect<TemplateRow, NotFound> =>
      Effect.flatMap(repo.findTemplate(name), Option.match({ onNone: () => Effect.fail(templateNotFound), onSome: Effect.succeed }))

    /** The active templates, each with its latest published version. */
    const list = Effect.fn("Catalogue.list")(function*() {
      const templates = yield* repo.listActiveTemplates
      const versions = yield* repo.versionsOf(templates.map((row) => row.id))
      const data = templates.map((row) => toSummary(row, latestOf(versions.filter((version) => version.templateId === row.id))))
      return { data, total: data.length }
    })

    /** Create an `active` template; `Conflict` when the name is taken. */
    const create: (input: NewTemplate) => Effect.Effect<TemplateRow, Conflict> = Effect.fn("Catalogue.create")(
      function*(input: NewTemplate) {
        const now = yield* Clock.currentTimeMillis
        const inserted = yield* repo.insertTemplate({
          id: yield* ids.make("stk"),
          name: input.name,
          displayName: input.displayName,
          description: input.description,
          icon: input.icon ?? null,
          domain: input.domain ?? null,
          status: "active",
          createdAt: now,
          updatedAt: now
        })
        return Option.isSome(inserted) ? inserted.value : yield* templateExists
      }
    )

    /** A template (active or deprecated) and its latest published version. */
    const read = Effect.fn("Catalogue.read")(function*(name: string) {
      const row = yield* template(name)
      const latest = latestOf(yield* repo.versionsOf([row.id]))
      return { template: toSummary(row, latest), latestVersion: latest === undefined ? null : toVersionRecord(latest) }
    })

    /** Change a template's text or move it between `active` and `deprecated`. */
    const update = Effect.fn("Catalogue.update")(function*(name: string, changes: TemplateChanges) {
      const updated = yield* repo.updateTemplate(name, changes, yield* Clock.currentTimeMillis)
      if (Option.isNone(updated)) return yield* templateNotFound
    })

    /** Every version of a template, highest semantic version first. */
    const versions = Effect.fn("Catalogue.versions")(function*(name: string) {
      const row = yield* template(name)
      const data = descending(yield* repo.versionsOf([row.id])).map(toVersionRecord)
      return { data, total: data.length }
    })

    /**
     * Publish a version: `NotFound` for an unknown template, `Conflict` when it has the version
     * already (two racing publishes: one wins, the other is `Conflict`, by the unique index).
     */
    const publish: (name: string, input: NewVersion) => Effect.Effect<VersionRow, NotFound | Conflict | ValidationError> =
      Effect.fn("Catalogue.publish")(function*(name: string, input: NewVersion) {
        if (!isOrderable(input.version)) return yield* unorderableVersion("version")
        if (!isOrderable(input.coreSdkVersion)) return yield* unorderableVersion("coreSdkVersion")
        const row = yield* template(name)
        const now = yield* Clock.currentTimeMillis
        const inserted = yield* repo.insertVersion({
          id: yield* ids.make("ver"),
          templateId: row.id,
          version: input.version,
          stackDefinition: JSON.stringify(input.stackDefinition),
          coreSdkVersion: input.coreSdkVersion,
          status: "published",
          publishedAt: now,
          createdAt: now
        })
        return Option.isSome(inserted) ? inserted.value : yield* versionExists(input.version)
      })

    /** One version of a template. */
    const version = Effect.fn("Catalogue.version")(function*(name: string, version: string) {
      const row = yield* template(name)
      const found = yield* repo.findVersion(row.id, version)
      return Option.isSome(found) ? found.value : yield* versionNotFound
    })

    /** Deprecate a version (idempotent); the template's latest version moves down past it. */
    const deprecate = Effect.fn("Catalogue.deprecate")(function*(name: string, version: string) {
      const row = yield* template(name)
      const updated = yield* repo.deprecateVersion(row.id, version)
      if (Option.isNone(updated)) return yield* versionNotFound
    })

    return { list, create, read, update, versions, publish, version, deprecate } as const
  }),
  dependencies: [StacksRepo.Default]
}) {}
