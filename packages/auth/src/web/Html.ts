const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\"": "&quot;",
  "'": "&#39;",
  "`": "&#96;"
}

/** Escape text for an HTML text node or a quoted attribute value. */
export const escape = (text: string): string => text.replace(/[&<>"'`]/g, (char) => ESCAPES[char] ?? char)

/** Markup that is already safe: produced by {@link html} or deliberately marked with {@link raw}. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

/** A value an `html` template accepts: text is escaped, markup kept, lists joined, nothing left out. */
export type Interpolation = SafeHtml | string | number | boolean | null | undefined | ReadonlyArray<Interpolation>

const render = (value: Interpolation): string => {
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map(render).join("")
  if (value === null || value === undefined || value === false) return ""
  return escape(String(value))
}

/**
 * A template tag that escapes every interpolated value unless it is already {@link SafeHtml}.
 *
 * @example
 * html`<p>Hello, ${user.name}</p>` // a name like `<script>` arrives as `&lt;script&gt;`
 */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Interpolation>): SafeHtml => {
  let out = strings[0] ?? ""
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? "")
  })
  return new SafeHtml(out)
}

/** Mark a trusted constant as markup (never user input). */
export const raw = (markup: string): SafeHtml => new SafeHtml(markup)
