import type { RouteSpec } from "@core/contracts"
import type { FuzzCase, Sender } from "./inputs.js"

/** What sending the cases found: each status's count, and every 5xx or 4xx outside the error envelope. */
export interface Sent {
  readonly statuses: ReadonlyMap<number, number>
  readonly findings: ReadonlyArray<string>
  /** The statuses as one line (`400×12 404×3`), for the test's log. */
  readonly counts: string
}

/**
 * Send every case to the server at `base`, `concurrency` at a time, with the credentials of its
 * sender. A 5xx is a finding, and so is a 4xx whose body is not the error envelope
 * (`{ error: { code, message, requestId } }`). An event stream's body is not read (its headers answer).
 */
export const sendAll = async (
  base: string,
  cases: ReadonlyArray<FuzzCase>,
  credentials: Readonly<Record<Sender, Readonly<Record<string, string>>>>,
  concurrency: number
): Promise<Sent> => {
  const statuses = new Map<number, number>()
  const findings: Array<string> = []
  let next = 0
  const worker = async () => {
    while (next < cases.length) {
      const fuzz = cases[next++]!
      const response = await fetch(`${base}${fuzz.path}`, {
        method: fuzz.method,
        headers: { ...fuzz.headers, ...credentials[fuzz.sender] },
        ...(fuzz.body === undefined ? {} : { body: fuzz.body }),
        redirect: "manual",
        signal: AbortSignal.timeout(15_000)
      })
      const stream = response.headers.get("content-type")?.startsWith("text/event-stream") === true
      const text = stream ? (await response.body?.cancel(), "") : await response.text()
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      if (response.status >= 500) findings.push(`${fuzz.label}: ${response.status} ${text.slice(0, 300)}`)
      else if (response.status >= 400) {
        let envelope = false
        try {
          const error = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown; requestId?: unknown } }).error
          envelope = typeof error?.code === "string" && typeof error.message === "string" && typeof error.requestId === "string"
        } catch {
          envelope = false
        }
        if (!envelope) findings.push(`${fuzz.label}: ${response.status} not the envelope: ${text.slice(0, 300)}`)
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const counts = [...statuses].sort(([x], [y]) => x - y).map(([status, count]) => `${status}×${count}`).join(" ")
  return { statuses, findings, counts }
}

/** Every catalogued route of a contracts namespace (each group whose name ends in `Routes`), by name; one per method and path. */
export const cataloguedRoutes = (namespace: Readonly<Record<string, unknown>>): ReadonlyArray<readonly [string, RouteSpec]> => {
  const seen = new Map<string, readonly [string, RouteSpec]>()
  for (const [group, routes] of Object.entries(namespace)) {
    if (!group.endsWith("Routes") || typeof routes !== "object" || routes === null) continue
    for (const [name, route] of Object.entries(routes as Record<string, RouteSpec>)) {
      if (typeof route?.path === "string" && typeof route.method === "string") seen.set(`${route.method} ${route.path}`, [name, route])
    }
  }
  return [...seen.values()]
}
