import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { z } from "zod"
import { Validation } from "@core/kernel"

const issuesOf = (schema: z.ZodType, input: unknown) =>
  Effect.map(Effect.flip(Validation.decode(schema, input)), (error) => error.issues)

const Loose = z.object({ name: z.string().optional(), metadata: z.record(z.string(), z.unknown()).optional() })

describe("Validation.decode refuses text PostgreSQL cannot store, once for every service", () => {
  it.effect("refuses a lone surrogate in a string with the field's path", () =>
    Effect.gen(function*() {
      expect(yield* issuesOf(Loose, { name: "a\ud800" })).toEqual([
        { path: "name", message: "Must not contain lone surrogates (invalid Unicode)" }
      ])
      expect(yield* issuesOf(Loose, { name: "\udc00b" })).toEqual([
        { path: "name", message: "Must not contain lone surrogates (invalid Unicode)" }
      ])
    }))

  it.effect("refuses a lone surrogate deep in metadata, in a value or a key", () =>
    Effect.gen(function*() {
      expect(yield* issuesOf(Loose, { metadata: { a: [{ b: "\ud800" }] } })).toEqual([
        { path: "metadata.a.0.b", message: "Must not contain lone surrogates (invalid Unicode)" }
      ])
      expect(yield* issuesOf(Loose, { metadata: { ["k\udbff"]: 1 } })).toEqual([
        { path: "metadata.k\ufffd", message: "Must not contain lone surrogates (invalid Unicode)" }
      ])
    }))

  it.effect("accepts well-formed text, surrogate pairs (emoji) included", () =>
    Effect.gen(function*() {
      const value = yield* Validation.decode(Loose, { name: "Ada 😀 Lovelace", metadata: { "😀": "ü" } })
      expect(value).toEqual({ name: "Ada 😀 Lovelace", metadata: { "😀": "ü" } })
    }))

  it.effect("refuses input nested deeper than 64 levels instead of overflowing the stack further on", () =>
    Effect.gen(function*() {
      const deep = JSON.parse(`{"metadata":{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}}`) as unknown
      const issues = yield* issuesOf(Loose, deep)
      expect(issues).toHaveLength(1)
      expect(issues[0].message).toBe(`Must not nest deeper than ${Validation.MAX_DEPTH} levels`)
      expect(issues[0].path.startsWith("metadata.a.0.0")).toBe(true)
      const fine = JSON.parse(`{"metadata":{"a":${"[".repeat(60)}${"]".repeat(60)}}}`) as unknown
      expect(yield* Validation.decode(Loose, fine)).toEqual(fine)
    }))
})
