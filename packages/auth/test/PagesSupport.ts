import { type Database, ErrorResponse } from "@core/kernel"
import { makeHttpHarness, type TestRequestInit } from "@core/kernel/testing"
import { HttpRouter } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { DeviceAuthorizationOptions } from "../src/device/DeviceAuthorization.js"
import { AccountsRouter } from "../src/accounts/Http.js"
import { DeviceRouter, deviceAuthorizationLayer } from "../src/device/Http.js"
import { OrganizationsRouter } from "../src/organizations/Http.js"
import { PagesLive, PagesRouter } from "../src/web/Http.js"
import { stackLayer } from "./OrganizationsSupport.js"

export { freshEmail, freshSlug, PASSWORD } from "./OrganizationsSupport.js"

/** The identity routes the pages live beside, and the pages, as the identity app serves them. */
export const app = ErrorResponse.withErrorEnvelope(
  HttpRouter.concatAll(AccountsRouter, OrganizationsRouter, DeviceRouter, PagesRouter)
)

/** Where the harness pretends to be. */
export const ORIGIN = "http://iam.test"

/** What a browser sends with a page request besides cookies. */
export interface Visit {
  readonly method?: "GET" | "POST"
  /** Form fields, posted as `application/x-www-form-urlencoded`. */
  readonly form?: Record<string, string>
  /** Extra headers; an empty value leaves a default header (`Origin`, `Sec-Fetch-Site`) out. */
  readonly headers?: Record<string, string>
  /** Leave the cookie jar out of this request. */
  readonly withoutCookies?: boolean
}

/** A page answer, read. */
export interface PageAnswer {
  readonly status: number
  readonly headers: Headers
  readonly html: string
  readonly location: string | null
}

/**
 * A browser without JavaScript, in a test: a cookie jar, same-origin `Origin` and
 * `Sec-Fetch-Site` on posts, answers read as text.
 */
export class Browser {
  readonly cookies = new Map<string, string>()

  constructor(private readonly fetch: (path: string, init?: TestRequestInit) => Promise<Response>) {}

  /** Send one request (no redirect is followed). */
  async visit(path: string, visit: Visit = {}): Promise<PageAnswer> {
    const headers = new Headers({ host: "iam.test", ...visit.headers })
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ")
    if (cookie !== "" && visit.withoutCookies !== true) headers.set("cookie", cookie)
    const method = visit.method ?? (visit.form === undefined ? "GET" : "POST")
    if (method === "POST") {
      if (!headers.has("origin")) headers.set("origin", ORIGIN)
      if (!headers.has("sec-fetch-site")) headers.set("sec-fetch-site", "same-origin")
    }
    for (const [name, value] of [...headers]) if (value === "") headers.delete(name)
    if (visit.form !== undefined && !headers.has("content-type")) headers.set("content-type", "application/x-www-form-urlencoded")
    const response = await this.fetch(path, {
      method,
      headers,
      ...(visit.form === undefined ? {} : { body: new URLSearchParams(visit.form).toString() })
    })
    for (const line of response.headers.getSetCookie()) this.remember(line)
    return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get("location") }
  }

  /** Load a page and post its form back with `fields` and the form's own hidden fields. */
  async submit(path: string, fields: Record<string, string>, visit: Visit = {}): Promise<PageAnswer> {
    const form = await this.visit(path)
    return this.visit(actionOf(form.html) ?? path, { ...visit, form: { ...hiddenFields(form.html), ...fields } })
  }

  private remember(line: string) {
    const [pair, ...attributes] = line.split(";")
    const at = pair.indexOf("=")
    const name = pair.slice(0, at).trim()
    const value = pair.slice(at + 1).trim()
    const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute))
    if (expired || value === "") this.cookies.delete(name)
    else this.cookies.set(name, value)
  }
}

const decode = (text: string) =>
  text.replaceAll("&quot;", "\"").replaceAll("&#39;", "'").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&#96;", "`")
    .replaceAll("&amp;", "&")

/** The hidden inputs of the first form posting somewhere, by name. */
export const hiddenFields = (html: string): Record<string, string> =>
  Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], decode(m[2])]))

/** The action of the first `method="post"` form. */
export const actionOf = (html: string): string | undefined => {
  const found = /<form method="post" action="([^"]+)"/.exec(html)
  return found === null ? undefined : decode(found[1])
}

/** The value attribute of a named visible input. */
export const valueOf = (html: string, name: string): string | undefined => {
  const found = new RegExp(`<input id="field-${name}" name="${name}" type="[a-z]+" value="([^"]*)"`).exec(html)
  return found === null ? undefined : decode(found[1])
}

/** The error shown under a field. */
export const fieldError = (html: string, name: string): string | undefined =>
  new RegExp(`<p class="field-error" id="field-${name}-error">([^<]*)</p>`).exec(html)?.[1]

/** The form-level error. */
export const alertOf = (html: string): string | undefined => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(html)?.[1]

/** How a harness is built. */
export interface HarnessOptions {
  readonly driver?: Database.Driver
  /** Device-code lifetimes and limits. */
  readonly device?: DeviceAuthorizationOptions
}

/**
 * The identity app with its pages over one test database (organizations' stack, device
 * authorization, CSRF), on the kernel's harness, with browsers that share it.
 */
export const makeHarness = async (options: HarnessOptions = {}) => {
  const services = Layer.mergeAll(PagesLive, deviceAuthorizationLayer(options.device)).pipe(
    Layer.provideMerge(stackLayer(options))
  )
  const harness = await makeHttpHarness(app, services, { baseUrl: ORIGIN })
  return { ...harness, browser: () => new Browser(harness.fetch) }
}

/** A running harness. */
export type Harness = Awaited<ReturnType<typeof makeHarness>>

/** Rows of a SQL query against the harness database. */
export const rows = <A extends object>(
  harness: Harness,
  statement: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>
) => harness.run(Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(statement(sql))))
