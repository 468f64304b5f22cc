import { describe, expect, it } from "vitest"
import { STYLESHEET } from "../src/web/Style.js"

/** WCAG 2.x relative luminance and contrast ratio of two `#rrggbb` colours. */
const luminance = (hex: string): number => {
  const [r, g, b] = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16) / 255)
    .map((c) => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}
const contrast = (a: string, b: string): number => {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (high + 0.05) / (low + 0.05)
}

/** The custom properties of one `:root{…}` block of the stylesheet. */
const palette = (block: string): Record<string, string> =>
  Object.fromEntries([...block.matchAll(/--([a-z-]+):(#[0-9a-f]{6}|#[0-9a-f]{3})/gi)].map(([, name, value]) => [name, value]))

describe("the pages' colours meet WCAG AA (4.5:1 for text)", () => {
  const [light, dark] = [...STYLESHEET.matchAll(/:root\{([^}]*)\}/g)].map(([, block]) => palette(block))
  const expand = (hex: string) => hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join("")}` : hex

  it.each([["light", light], ["dark", { ...light, ...dark }]] as const)("in the %s scheme: buttons, text, muted text and links", (_scheme, colours) => {
    const c = (name: string) => expand(colours[name])
    expect(STYLESHEET).toContain("background:var(--accent);color:var(--on-accent)")
    expect(contrast(c("on-accent"), c("accent"))).toBeGreaterThanOrEqual(4.5)
    expect(contrast(c("fg"), c("card"))).toBeGreaterThanOrEqual(4.5)
    expect(contrast(c("muted"), c("card"))).toBeGreaterThanOrEqual(4.5)
    expect(contrast(c("accent"), c("card"))).toBeGreaterThanOrEqual(4.5)
    expect(contrast(c("danger"), c("card"))).toBeGreaterThanOrEqual(4.5)
  })
})
