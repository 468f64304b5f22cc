import type { Stacks } from "@core/contracts"
import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** A row of `stacks.templates`. */
export interface TemplateRow {
  readonly id: string
  readonly name: string
  readonly displayName: string
  readonly description: string
  readonly icon: string | null
  readonly domain: string | null
  readonly status: Stacks.StackTemplateStatus
  readonly createdAt: number
  readonly updatedAt: number
}

/** A row of `stacks.versions`. */
export interface VersionRow {
  readonly id: string
  readonly templateId: string
  readonly version: string
  readonly stackDefinition: string
  readonly coreSdkVersion: string
  readonly status: Stacks.StackVersionStatus
  readonly publishedAt: number
  readonly createdAt: number
}

/** The fields of a template a PATCH may change. */
export interface TemplateChanges {
  readonly displayName?: string | undefined
  readonly description?: string | undefined
  readonly icon?: string | undefined
  readonly status?: Stacks.StackTemplateStatus | undefined
}

type Raw = Record<string, unknown>

// bigint columns: `pg` answers strings, PGlite numbers (decision 0010); both become numbers.
const toTemplate = (raw: Raw): TemplateRow => ({
  id: raw.id as string,
  name: raw.name as string,
  displayName: raw.displayName as string,
  description: raw.description as string,
  icon: Rows.textOrNull(raw.icon),
  domain: Rows.textOrNull(raw.domain),
  status: raw.status as Stacks.StackTemplateStatus,
  createdAt: Rows.int8(raw.createdAt) ?? 0,
  updatedAt: Rows.int8(raw.updatedAt) ?? 0
})

const toVersion = (raw: Raw): VersionRow => ({
  id: raw.id as string,
  templateId: raw.templateId as string,
  version: raw.version as string,
  stackDefinition: raw.stackDefinition as string,
  coreSdkVersion: raw.coreSdkVersion as string,
  status: raw.status as Stacks.StackVersionStatus,
  publishedAt: Rows.int8(raw.publishedAt) ?? 0,
  createdAt: Rows.int8(raw.createdAt) ?? 0
})

/** The SQL of `stacks.templates` and `stacks.versions`. A database failure is a defect. */
export class StacksRepo extends Effect.Service<StacksRepo>()("@core/stacks/StacksRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const templateColumns = sql.literal(`id, name, display_name AS "displayName", description, icon, domain, status,
      created_at AS "createdAt", updated_at AS "updatedAt"`)
    const versionColumns = sql.literal(`id, template_id AS "templateId", version, stack_definition AS "stackDefinition",
      core_sdk_version AS "coreSdkVersion", status, published_at AS "publishedAt", created_at AS "createdAt"`)

    const firstTemplate = (rows: ReadonlyArray<Raw>) => Option.map(Option.fromNullable(rows[0]), toTemplate)
    const firstVersion = (rows: ReadonlyArray<Raw>) => Option.map(Option.fromNullable(rows[0]), toVersion)

    /** Insert a template; `None` when its name is taken. */
    const insertTemplate = (row: TemplateRow) =>
      sql<Raw>`INSERT INTO stacks.templates (id, name, display_name, description, icon, domain, status, created_at, updated_at)
        VALUES (${row.id}, ${row.name}, ${row.displayName}, ${row.description}, ${row.icon}, ${row.domain}, ${row.status},
          ${row.createdAt}, ${row.updatedAt})
        ON CONFLICT DO NOTHING
        RETURNING ${templateColumns}`.pipe(Effect.map(firstTemplate), Effect.orDie, Effect.withSpan("StacksRepo.insertTemplate"))

    const findTemplate = (name: string) =>
      sql<Raw>`SELECT ${templateColumns} FROM stacks.templates WHERE name = ${name}`.pipe(
        Effect.map(firstTemplate),
        Effect.orDie,
        Effect.withSpan("StacksRepo.findTemplate")
      )

    /** A template by its id (`stk_…`); `None` when there is none. */
    const findTemplateById = (id: string) =>
      sql<Raw>`SELECT ${templateColumns} FROM stacks.templates WHERE id = ${id}`.pipe(
        Effect.map(firstTemplate),
        Effect.orDie,
        Effect.withSpan("StacksRepo.findTemplateById")
      )

    /** The active templates, by name. */
    const listActiveTemplates = sql<Raw>`SELECT ${templateColumns} FROM stacks.templates
      WHERE status = 'active' ORDER BY name`.pipe(
      Effect.map((rows) => rows.map(toTemplate)),
      Effect.orDie,
      Effect.withSpan("StacksRepo.listActiveTemplates")
    )

    /** Change a template; `None` when there is no template of that name. */
    const updateTemplate = (name: string, changes: TemplateChanges, now: number) =>
      sql<Raw>`UPDATE stacks.templates SET
          display_name = COALESCE(${changes.displayName ?? null}, display_name),
          description = COALESCE(${changes.description ?? null}, description),
          icon = COALESCE(${changes.icon ?? null}, icon),
          status = COALESCE(${changes.status ?? null}, status),
          updated_at = ${now}
        WHERE name = ${name}
        RETURNING ${templateColumns}`.pipe(Effect.map(firstTemplate), Effect.orDie, Effect.withSpan("StacksRepo.updateTemplate"))

    /** Insert a version; `None` when the template already has it. */
    const insertVersion = (row: VersionRow) =>
      sql<Raw>`INSERT INTO stacks.versions
          (id, template_id, version, stack_definition, core_sdk_version, status, published_at, created_at)
        VALUES (${row.id}, ${row.templateId}, ${row.version}, ${row.stackDefinition}, ${row.coreSdkVersion}, ${row.status},
          ${row.publishedAt}, ${row.createdAt})
        ON CONFLICT DO NOTHING
        RETURNING ${versionColumns}`.pipe(Effect.map(firstVersion), Effect.orDie, Effect.withSpan("StacksRepo.insertVersion"))

    /** The versions of some templates (one query for a whole list). */
    const versionsOf = (templateIds: ReadonlyArray<string>) =>
      templateIds.length === 0
        ? Effect.succeed([] as Array<VersionRow>)
        : sql<Raw>`SELECT ${versionColumns} FROM stacks.versions WHERE ${sql.in("template_id", templateIds)}`.pipe(
          Effect.map((rows) => rows.map(toVersion)),
          Effect.orDie,
          Effect.withSpan("StacksRepo.versionsOf")
        )

    const findVersion = (templateId: string, version: string) =>
      sql<Raw>`SELECT ${versionColumns} FROM stacks.versions
        WHERE template_id = ${templateId} AND version = ${version}`.pipe(
        Effect.map(firstVersion),
        Effect.orDie,
        Effect.withSpan("StacksRepo.findVersion")
      )

    /** Mark a version deprecated; `None` when the template has no such version. */
    const deprecateVersion = (templateId: string, version: string) =>
      sql<Raw>`UPDATE stacks.versions SET status = 'deprecated'
        WHERE template_id = ${templateId} AND version = ${version}
        RETURNING ${versionColumns}`.pipe(Effect.map(firstVersion), Effect.orDie, Effect.withSpan("StacksRepo.deprecateVersion"))

    return {
      insertTemplate,
      findTemplate,
      findTemplateById,
      listActiveTemplates,
      updateTemplate,
      insertVersion,
      versionsOf,
      findVersion,
      deprecateVersion
    } as const
  })
}) {}
