import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { z } from "zod"
import * as Cursor from "../src/Cursor.js"
import { ValidationError } from "../src/Errors.js"

const failureOf = (cursor: string, schema: z.ZodType = Cursor.CreatedAtId) =>
  Cursor.decode(schema, cursor).pipe(Effect.flip)

describe("Cursor", () => {
  it.effect("round-trips a sort key through an opaque base64url cursor", () =>
    Effect.gen(function*() {
      const key = { createdAt: "2026-01-01T00:00:00.000Z", id: "plt_01KDVDNA000000000000000003" }
      const cursor = Cursor.encode(key)
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(cursor).not.toContain("plt_")
      expect(yield* Cursor.decode(Cursor.CreatedAtId, cursor)).toEqual(key)
      expect(yield* Cursor.decode(Cursor.CreatedAtId, Cursor.encode({ createdAt: 1767225600000, id: "x" })))
        .toEqual({ createdAt: 1767225600000, id: "x" })
    }))

  it.effect("decodes with any schema", () =>
    Effect.gen(function*() {
      const schema = z.object({ version: z.string(), offset: z.number().int() })
      expect(yield* Cursor.decode(schema, Cursor.encode({ version: "1.2.0", offset: 3 }))).toEqual({ version: "1.2.0", offset: 3 })
      expect(yield* Cursor.decodeOptional(schema, undefined)).toBeUndefined()
    }))

  it.effect("fails with a ValidationError on the cursor parameter for garbage", () =>
    Effect.gen(function*() {
      for (const garbage of ["", "not base64!", "%%%", Buffer.from("not json").toString("base64url"), Buffer.from("42").toString("base64url"), "x".repeat(2000)]) {
        const error = yield* failureOf(garbage)
        expect(error).toBeInstanceOf(ValidationError)
        expect(error).toMatchObject({ message: "Invalid request query", issues: [{ path: "cursor", message: "Invalid cursor" }] })
      }
    }))

  it.effect("fails with a ValidationError for a cursor of another shape", () =>
    Effect.gen(function*() {
      const error = yield* failureOf(Cursor.encode({ createdAt: "2026-01-01", other: 1 }))
      expect(error.issues).toHaveLength(1)
      expect(error.issues[0].path).toBe("cursor")
      expect(error.issues[0].message).toMatch(/^Invalid cursor \(id: /)
      const typed = yield* Cursor.decode(Cursor.CreatedAtId, "abc").pipe(Effect.either)
      expect(Either.isLeft(typed)).toBe(true)
    }))

  it.effect("cuts a page from limit + 1 rows and continues after its last row", () =>
    Effect.gen(function*() {
      const rows = [1, 2, 3, 4].map((n) => ({ createdAt: `2026-01-0${n}`, id: `r${n}` }))
      const first = Cursor.page(rows, 3, (row) => ({ createdAt: row.createdAt, id: row.id }))
      expect(first.data.map((row) => row.id)).toEqual(["r1", "r2", "r3"])
      expect(first.hasMore).toBe(true)
      expect(yield* Cursor.decode(Cursor.CreatedAtId, first.nextCursor!)).toEqual({ createdAt: "2026-01-03", id: "r3" })
      expect(Cursor.page(rows.slice(0, 3), 3, (row) => row)).toEqual({ data: rows.slice(0, 3), hasMore: false, nextCursor: null })
      expect(Cursor.page([], 3, (row) => row)).toEqual({ data: [], hasMore: false, nextCursor: null })
    }))
})
