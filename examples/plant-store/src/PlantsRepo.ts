import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import type { ListQuery, NewPlant } from "./Plant.js"

interface PlantRow {
  readonly id: string | number | bigint
  readonly name: string
  readonly tag: string | null
}

const toPlant = (row: PlantRow): NewPlant => ({
  id: Number(row.id),
  name: row.name,
  ...(row.tag === null ? {} : { tag: row.tag })
})

/** The plants of each owner, in SQL (PGlite or PostgreSQL alike). A database failure is a defect. */
export class PlantsRepo extends Effect.Service<PlantsRepo>()("@core-examples/plant-store/PlantsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Keep a plant; `false` when the owner already has one with that id. */
    const insert = Effect.fn("PlantsRepo.insert")(function*(owner: string, plant: NewPlant) {
      const rows = yield* sql<{ id: string }>`
        INSERT INTO plant_store.plants (owner, id, name, tag)
        VALUES (${owner}, ${plant.id}, ${plant.name}, ${plant.tag ?? null})
        ON CONFLICT (owner, id) DO NOTHING
        RETURNING id
      `
      return rows.length === 1
    }, Effect.orDie)

    /** The owner's plants by id, above `after`, at most `limit`. */
    const list = Effect.fn("PlantsRepo.list")(function*(owner: string, query: ListQuery) {
      const rows = yield* sql<PlantRow>`
        SELECT id, name, tag FROM plant_store.plants
        WHERE owner = ${owner} AND id > ${query.after ?? -1}
        ORDER BY id
        LIMIT ${query.limit}
      `
      return rows.map(toPlant)
    }, Effect.orDie)

    return { insert, list } as const
  })
}) {}
