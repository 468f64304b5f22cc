import { CSRF_FIELD } from "./Csrf.js"
import { html, type SafeHtml } from "./Html.js"

/** Messages of a form's fields, by field name. */
export type FieldErrors = Readonly<Record<string, string>>

/** One labelled input. */
export interface Field {
  readonly name: string
  readonly label: string
  readonly type?: "text" | "email" | "password"
  readonly value?: string | undefined
  readonly error?: string | undefined
  readonly hint?: string
  readonly autocomplete?: string
  readonly required?: boolean
  readonly autofocus?: boolean
  readonly minlength?: number
  readonly maxlength?: number
  readonly pattern?: string
  readonly spellcheck?: boolean
}

/** A labelled input with its hint and its error (announced through `aria-describedby`). */
export const field = (spec: Field): SafeHtml => {
  const id = `field-${spec.name}`
  const described = [spec.hint === undefined ? "" : `${id}-hint`, spec.error === undefined ? "" : `${id}-error`]
    .filter((part) => part !== "").join(" ")
  return html`<label for="${id}">${spec.label}</label>
<input id="${id}" name="${spec.name}" type="${spec.type ?? "text"}"${
    spec.type === "password" || spec.value === undefined ? "" : html` value="${spec.value}"`
  }${spec.autocomplete === undefined ? "" : html` autocomplete="${spec.autocomplete}"`}${
    spec.required === false ? "" : html` required`
  }${spec.autofocus === true ? html` autofocus` : ""}${
    spec.minlength === undefined ? "" : html` minlength="${spec.minlength}"`
  }${spec.maxlength === undefined ? "" : html` maxlength="${spec.maxlength}"`}${
    spec.pattern === undefined ? "" : html` pattern="${spec.pattern}"`
  }${spec.spellcheck === false ? html` spellcheck="false" autocapitalize="none"` : ""}${
    spec.error === undefined ? "" : html` aria-invalid="true"`
  }${described === "" ? "" : html` aria-describedby="${described}"`}>
${spec.hint === undefined ? "" : html`<p class="hint" id="${id}-hint">${spec.hint}</p>`}${
    spec.error === undefined ? "" : html`<p class="field-error" id="${id}-error">${spec.error}</p>`
  }`
}

/** A hidden input. */
export const hidden = (name: string, value: string | undefined): SafeHtml =>
  value === undefined ? html`` : html`<input type="hidden" name="${name}" value="${value}">`

/** The hidden CSRF token of a form. */
export const csrfField = (token: string): SafeHtml => hidden(CSRF_FIELD, token)

/**
 * The field that takes the focus when the page loads: the first of `order` with an error, else the
 * first of `order` (the `autofocus` attribute, no script).
 */
export const focusOf = (order: ReadonlyArray<string>, errors: FieldErrors | undefined): string | undefined =>
  order.find((name) => errors?.[name] !== undefined) ?? order[0]

/** A form-level error, announced to assistive technology (markup, such as a link, kept as it is). */
export const alert = (message: string | SafeHtml | undefined): SafeHtml =>
  message === undefined ? html`` : html`<p class="alert" role="alert">${message}</p>`

/** A form-level confirmation. */
export const notice = (message: string | undefined): SafeHtml =>
  message === undefined ? html`` : html`<p class="notice" role="status">${message}</p>`
