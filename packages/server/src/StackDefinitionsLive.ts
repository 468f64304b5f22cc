import { Stacks } from "@core/contracts"
import { StackDefinitions } from "@core/registry"
import { Catalogue, StacksRepo } from "@core/stacks"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"

/**
 * The registry's `StackDefinitions` over the stack catalogue on the same database: a template's
 * latest published version (the catalogue's own choice, by semantic-version order), its definition
 * parsed, or one version of a template named by id or name. An unknown or deprecated template is `None`. A registry whose database has no stacks
 * schema (alone, on a database of its own) finds no template.
 */
export const StackDefinitionsLive = Layer.effect(
  StackDefinitions,
  Effect.gen(function*() {
    const catalogue = yield* Catalogue
    const repo = yield* StacksRepo
    const sql = yield* SqlClient.SqlClient
    const present = sql<{ present: boolean }>`SELECT to_regclass('stacks.templates') IS NOT NULL AS present`.pipe(
      Effect.map((rows) => rows[0]?.present === true),
      Effect.orDie
    )
    return StackDefinitions.of({
      latest: (name) =>
        Effect.gen(function*() {
          if (!(yield* present)) return Option.none()
          const found = yield* Effect.option(catalogue.read(name))
          if (Option.isNone(found) || found.value.template.status !== "active") return Option.none()
          const latest = found.value.latestVersion
          if (latest === null) return Option.some(undefined)
          const definition = Stacks.StackDefinition.parse(JSON.parse(latest.stack_definition))
          return Option.some({ templateId: found.value.template.id, templateName: name, version: latest.version, resources: definition.resources })
        }).pipe(Effect.orDie, Effect.withSpan("StackDefinitions.latest")),
      version: (template, wanted) =>
        Effect.gen(function*() {
          if (!(yield* present)) return Option.none()
          // A resource job names its stack by template id or by name: the catalogue reads by name.
          const name = Option.match(yield* repo.findTemplateById(template), { onNone: () => template, onSome: (found) => found.name })
          const found = yield* Effect.option(catalogue.read(name))
          const row = yield* Effect.option(catalogue.version(name, wanted))
          if (Option.isNone(found) || Option.isNone(row)) return Option.none()
          const definition = Stacks.StackDefinition.parse(JSON.parse(row.value.stackDefinition))
          return Option.some({ templateId: found.value.template.id, templateName: name, version: row.value.version, resources: definition.resources })
        }).pipe(Effect.orDie, Effect.withSpan("StackDefinitions.version"))
    })
  })
).pipe(Layer.provide(Layer.mergeAll(Catalogue.Default, StacksRepo.Default)))
