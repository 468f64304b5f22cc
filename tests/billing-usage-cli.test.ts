import { describe, expect, it } from "vitest"
import { bar, chart } from "../packages/cli/src/commands/billing-usage.js"

/** `core billing usage`'s daily chart, drawn in the terminal: bars scaled to the busiest day, in eighths of a cell. */
describe("the daily usage chart", () => {
  const series = [
    { date: "2026-11-01", requests: 0, resourceHours: 3, builds: 0 },
    { date: "2026-11-02", requests: 1_000, resourceHours: 0, builds: 1 },
    { date: "2026-11-03", requests: 250, resourceHours: 0, builds: 0 },
    { date: "2026-11-04", requests: 1, resourceHours: 0, builds: 0 }
  ]

  it("draws one line per day, the busiest at full width, a day without usage empty, any usage at least a sliver", () => {
    const lines = chart(series, "requests", 40)
    expect(lines).toHaveLength(4)
    const width = 40 - 10 - 3 - 5 - 2
    expect(lines[0]).toBe(`2026-11-01 │${" ".repeat(width)}     0`)
    expect(lines[1]).toBe(`2026-11-02 │${"█".repeat(width)} 1,000`)
    expect(lines[2]).toBe(`2026-11-03 │${"█".repeat(5)}${" ".repeat(width - 5)}   250`)
    expect(lines[3]).toBe(`2026-11-04 │▏${" ".repeat(width - 1)}     1`)
    expect(chart(series, "resource_hours", 80)[0]).toMatch(/^2026-11-01 │█+ 3$/)
  })

  it("uses eighths of a cell, and # on a dumb terminal", () => {
    expect(bar(1, 2, 3)).toBe("█▌")
    expect(bar(0, 2, 3)).toBe("")
    expect(bar(2, 2, 3, true)).toBe("###")
  })
})
