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
      expect(yield* Cursor.decode(Cursor.CreatedAtId, cursor)).toEqual({ createdAt: new Date(key.createdAt), id: key.id })
      expect(yield* Cursor.decode(Cursor.CreatedAtId, Cursor.encode({ createdAt: 1767225600000, id: "x" })))
        .toEqual({ createdAt: new Date(1767225600000), id: "x" })
      expect(yield* Cursor.decode(Cursor.CreatedAtId, Cursor.encode({ createdAt: "2026-01-01T01:00:00+01:00", id: "x" })))
        .toEqual({ createdAt: new Date("2026-01-01T00:00:00.000Z"), id: "x" })
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
      const error = yield* failureOf(Cursor.encode({ createdAt: "2026-01-01T00:00:00.000Z", other: 1 }))
      expect(error.issues).toHaveLength(1)
      expect(error.issues[0].path).toBe("cursor")
      expect(error.issues[0].message).toMatch(/^Invalid cursor \(id: /)
      const typed = yield* Cursor.decode(Cursor.CreatedAtId, "abc").pipe(Effect.either)
      expect(Either.isLeft(typed)).toBe(true)
    }))

  it.effect("refuses crafted sort keys: invalid dates, wrong types, ids of another shape, text PostgreSQL cannot store", () =>
    Effect.gen(function*() {
      const crafted: ReadonlyArray<readonly [unknown, RegExp]> = [
        [{ id: "x", createdAt: "x" }, /^Invalid cursor \(createdAt: /],
        [{ id: "x", createdAt: "2026-13-45T00:00:00Z" }, /^Invalid cursor \(createdAt: /],
        [{ id: "x", createdAt: "2026-01-01" }, /^Invalid cursor \(createdAt: /],
        [{ id: "x", createdAt: 9e15 }, /^Invalid cursor \(createdAt: Expected a valid date\)$/],
        [{ id: "x", createdAt: 1e20 }, /^Invalid cursor \(createdAt: /],
        [{ id: "x", createdAt: 1.5 }, /^Invalid cursor \(createdAt: /],
        [{ id: "x", createdAt: true }, /^Invalid cursor \(createdAt: /],
        [{ id: 1, createdAt: "2026-01-01T00:00:00.000Z" }, /^Invalid cursor \(id: /],
        [{ id: "x".repeat(129), createdAt: "2026-01-01T00:00:00.000Z" }, /^Invalid cursor \(id: /],
        [{ id: "a b", createdAt: "2026-01-01T00:00:00.000Z" }, /^Invalid cursor \(id: Expected an id\)$/],
        [{ id: "a\u0000b", createdAt: "2026-01-01T00:00:00.000Z" }, /^Invalid cursor \(id: Must not contain NUL characters\)$/],
        [{ id: "\ud800", createdAt: "2026-01-01T00:00:00.000Z" }, /^Invalid cursor \(id: Must not contain lone surrogates/],
        [[{ id: "x", createdAt: 0 }], /^Invalid cursor$/],
        [null, /^Invalid cursor$/],
        ["s", /^Invalid cursor$/]
      ]
      for (const [key, message] of crafted) {
        const error = yield* failureOf(Buffer.from(JSON.stringify(key), "utf8").toString("base64url"))
        expect(error, JSON.stringify(key)).toBeInstanceOf(ValidationError)
        expect(error.message).toBe("Invalid request query")
        expect(error.issues).toHaveLength(1)
        expect(error.issues[0].path).toBe("cursor")
        expect(error.issues[0].message, JSON.stringify(key)).toMatch(message)
      }
      const day = z.object({ date: Cursor.Day })
      expect(yield* Cursor.decode(day, Cursor.encode({ date: "2024-02-29" }))).toEqual({ date: "2024-02-29" })
      for (const date of ["2026-02-30", "2026-99-99", "x", "2026-1-1"]) {
        expect((yield* failureOf(Cursor.encode({ date }), day)).issues[0].message).toMatch(/^Invalid cursor \(date: /)
      }
      const offset = z.object({ offset: Cursor.Offset })
      for (const value of [-1, 1.5, "3", 2 ** 64]) {
        expect((yield* failureOf(Cursor.encode({ offset: value as number }), offset)).issues[0].message).toMatch(/^Invalid cursor \(offset: /)
      }
    }))

  it.effect("cuts a page from limit + 1 rows and continues after its last row", () =>
    Effect.gen(function*() {
      const rows = [1, 2, 3, 4].map((n) => ({ createdAt: `2026-01-0${n}T00:00:00.000Z`, id: `r${n}` }))
      const first = Cursor.page(rows, 3, (row) => ({ createdAt: row.createdAt, id: row.id }))
      expect(first.data.map((row) => row.id)).toEqual(["r1", "r2", "r3"])
      expect(first.hasMore).toBe(true)
      expect(yield* Cursor.decode(Cursor.CreatedAtId, first.nextCursor!)).toEqual({ createdAt: new Date("2026-01-03T00:00:00.000Z"), id: "r3" })
      expect(Cursor.page(rows.slice(0, 3), 3, (row) => row)).toEqual({ data: rows.slice(0, 3), hasMore: false, nextCursor: null })
      expect(Cursor.page([], 3, (row) => row)).toEqual({ data: [], hasMore: false, nextCursor: null })
    }))
})
