const cursorOf = (value: unknown): string => Buffer.from(JSON.stringify(value), "utf8").toString("base64url")
const AT = "2026-01-01T00:00:00.000Z"

/**
 * Cursors no server issued, already encoded for a query: crafted sort keys (the probe's
 * `{"id":"x","createdAt":"x"}`, impossible dates, wrong types, ids of another shape, text
 * PostgreSQL cannot store), other JSON, garbage, truncated and huge ones. Every paged route answers
 * each with 400 `VALIDATION_ERROR` on `cursor` (decision 0565).
 */
export const CRAFTED_CURSORS: ReadonlyArray<readonly [string, string]> = [
  ["a crafted sort key with an invalid date", cursorOf({ id: "x", createdAt: "x" })],
  ["a crafted sort key with a date out of range", cursorOf({ id: "x", createdAt: 1e20 })],
  ["a crafted sort key with month 13", cursorOf({ id: "x", createdAt: "2026-13-45T99:99:99Z" })],
  ["a crafted sort key with a date only", cursorOf({ id: "x", createdAt: "2026-01-01" })],
  ["a crafted sort key with a numeric id", cursorOf({ id: 1, createdAt: AT })],
  ["a crafted sort key with a NUL in its id", cursorOf({ id: "a\u0000b", createdAt: AT })],
  ["a crafted sort key with a lone surrogate", cursorOf({ id: "\ud800", createdAt: AT })],
  ["a crafted sort key with a long id", cursorOf({ id: "i".repeat(600), createdAt: AT })],
  ["a crafted day", cursorOf({ date: "2026-99-99" })],
  ["a crafted tenant with a NUL", cursorOf({ tenantId: "a\u0000" })],
  ["a crafted negative offset", cursorOf({ offset: -1 })],
  ["a crafted textual offset", cursorOf({ offset: "1" })],
  ["a crafted audit key", cursorOf({ occurredAt: "x", id: "x" })],
  ["a JSON array", cursorOf([{ id: "x", createdAt: AT }])],
  ["JSON null", cursorOf(null)],
  ["a JSON string", cursorOf("s")],
  ["deeply nested JSON", Buffer.from(`${"[".repeat(300)}${"]".repeat(300)}`).toString("base64url")],
  ["truncated JSON", Buffer.from("{\"id\":\"x\",\"createdAt\"").toString("base64url")],
  ["a truncated cursor", cursorOf({ createdAt: AT, id: "plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS" }).slice(0, 11)],
  ["not base64url", "not%20base64!"],
  ["percent signs", "%25%25%25"],
  ["padded base64", `${cursorOf({ id: "x", createdAt: AT })}%3D%3D`],
  ["a huge cursor", "A".repeat(1_025)]
]
