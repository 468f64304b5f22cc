import { HttpServerRequest } from "@effect/platform"
import { Cause, Context, Effect, FiberRef, FiberRefs, HashMap, Layer, List, Logger, LogLevel, Option, Redacted } from "effect"
import { CoreConfig, type LogLevelName } from "./Config.js"
import { fromRequest, RequestContext, type RequestContextData } from "./RequestContext.js"

/** What replaces a sensitive value in a log line. */
export const REDACTED = "[REDACTED]"

const SENSITIVE_PARTS = ["password", "passwd", "secret", "token", "authorization", "cookie", "apikey", "privatekey", "credential"]
const SENSITIVE_EXACT = new Set(["key", "devicecode", "usercode"])
const MAX_DEPTH = 8

/**
 * Whether a key names a value that must never be printed (`password`, `token`, `authorization`,
 * `cookie`, `set-cookie`, `secret`, `apiKey`, `x-api-key`, `key`, … in any case or separator style).
 */
export const isSensitiveKey = (key: string): boolean => {
  const normalized = key.toLowerCase().replace(/[^a-z0-9]/g, "")
  return SENSITIVE_EXACT.has(normalized) || SENSITIVE_PARTS.some((part) => normalized.includes(part))
}

const SECRET_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[^\s,;"']+/gi, `$1 ${REDACTED}`],
  [/\bcore_[A-Za-z0-9_-]{16,}/g, `core_${REDACTED}`],
  [/\b(sk|rk)_(live|test)_[A-Za-z0-9]+/g, `$1_$2_${REDACTED}`],
  [/\bwhsec_[A-Za-z0-9]+/g, `whsec_${REDACTED}`],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)[^@/\s]+@/gi, `$1${REDACTED}@`]
]

/** Mask credentials that appear inside free text: bearer values, API keys, passwords in URLs. */
export const redactText = (text: string): string =>
  SECRET_PATTERNS.reduce((result, [pattern, replacement]) => result.replace(pattern, replacement), text)

const redactValue = (value: unknown, depth: number, seen: WeakSet<object>): unknown => {
  if (typeof value === "string") return redactText(value)
  if (typeof value === "bigint" || typeof value === "symbol" || typeof value === "function") return String(value)
  if (value === null || typeof value !== "object") return value
  if (Redacted.isRedacted(value)) return REDACTED
  if (seen.has(value) || depth >= MAX_DEPTH) return "[Circular]"
  seen.add(value)
  try {
    if (value instanceof Date) return value.toISOString()
    if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1, seen))
    if (value instanceof Map) return redactEntries(Array.from(value.entries(), ([k, v]) => [String(k), v]), depth, seen)
    if (value instanceof Error) {
      const own = redactEntries(Object.entries(value), depth, seen) as Record<string, unknown>
      return { name: value.name, message: redactText(value.message), ...own }
    }
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
      return redactValue((value as { toJSON: () => unknown }).toJSON(), depth + 1, seen)
    }
    return redactEntries(Object.entries(value), depth, seen)
  } finally {
    seen.delete(value)
  }
}

const redactEntries = (entries: ReadonlyArray<readonly [string, unknown]>, depth: number, seen: WeakSet<object>) => {
  const result: Record<string, unknown> = {}
  for (const [key, item] of entries) {
    result[key] = isSensitiveKey(key) ? REDACTED : redactValue(item, depth + 1, seen)
  }
  return result
}

/** A copy of `value` safe to log: values of sensitive keys and credentials in text masked. */
export const redact = (value: unknown): unknown => redactValue(value, 0, new WeakSet())

/** The Effect log level for a `LOG_LEVEL` name. */
export const toLogLevel = (name: LogLevelName): LogLevel.LogLevel => {
  switch (name) {
    case "trace":
      return LogLevel.Trace
    case "debug":
      return LogLevel.Debug
    case "info":
      return LogLevel.Info
    case "warn":
      return LogLevel.Warning
    case "error":
      return LogLevel.Error
    case "fatal":
      return LogLevel.Fatal
    case "none":
      return LogLevel.None
  }
}

const RESERVED = new Set(["timestamp", "level", "message", "requestId", "traceId", "cause", "spans"])

const messageFields = (message: unknown): { message: string; data?: unknown } => {
  const parts = Array.isArray(message) ? message : [message]
  const texts: Array<string> = []
  const data: Array<unknown> = []
  for (const part of parts) {
    if (typeof part === "string") texts.push(redactText(part))
    else data.push(redact(part))
  }
  if (data.length === 0) return { message: texts.join(" ") }
  return { message: texts.join(" "), data: data.length === 1 ? data[0] : data }
}

/** Options of the JSON logger. */
export interface JsonLoggerOptions {
  /** Where each line goes. @default one `process.stdout.write` per line */
  readonly write?: (line: string) => void
  /**
   * `json`: one JSON object per line (for machines: piped output, containers, log collectors).
   * `text`: `HH:MM:SS level message key=value …` for a person at a terminal, redacted the same way.
   * @default "json"
   */
  readonly format?: "json" | "text"
}

const stdout = (line: string) => {
  process.stdout.write(line + "\n")
}

/**
 * The request a log line belongs to: the `RequestContext` when one is provided, else the one of the
 * `HttpServerRequest` being served (so apps served without it, as the gateway runs them, still
 * stamp their lines).
 */
const requestContextOf = (context: Context.Context<never>): Option.Option<RequestContextData> => {
  const provided = Context.getOption(context, RequestContext)
  if (Option.isSome(provided)) return provided
  return Option.map(Context.getOption(context, HttpServerRequest.HttpServerRequest), (request) => fromRequest(request))
}

/**
 * A logger that writes one JSON object per line: `timestamp`, `level`, `message`, `requestId`,
 * `traceId` (from the annotations, the fiber's `RequestContext`, or else its `HttpServerRequest`), the other annotations, spans
 * and any cause — every value passed through `redact`.
 */
export const jsonLogger = (options: JsonLoggerOptions = {}): Logger.Logger<unknown, void> => {
  const write = options.write ?? stdout
  return Logger.make(({ annotations, cause, context, date, logLevel, message, spans }) => {
    const request = requestContextOf(FiberRefs.getOrDefault(context, FiberRef.currentContext))
    const annotated = Object.fromEntries(HashMap.toEntries(annotations))
    const requestId = annotated.requestId ?? Option.getOrUndefined(Option.map(request, (r) => r.requestId))
    const traceId = annotated.traceId ?? Option.getOrUndefined(Option.flatMapNullable(request, (r) => r.traceId))
    const line: Record<string, unknown> = {
      timestamp: date.toISOString(),
      level: logLevel.label.toLowerCase(),
      ...messageFields(message)
    }
    if (requestId !== undefined) line.requestId = requestId
    if (traceId !== undefined) line.traceId = traceId
    for (const [key, value] of Object.entries(annotated)) {
      if (!RESERVED.has(key)) line[key] = isSensitiveKey(key) ? REDACTED : redact(value)
    }
    if (List.isCons(spans)) {
      const now = date.getTime()
      line.spans = Object.fromEntries(Array.from(spans, (span) => [span.label, now - span.startTime]))
    }
    if (!Cause.isEmpty(cause)) line.cause = redactText(Cause.pretty(cause, { renderErrorCause: true }))
    write(options.format === "text" ? asText(line) : JSON.stringify(line))
  })
}

/** A JSON log line as a person reads it: time of day, level, message, `key=value` pairs (the ids last), the cause. */
const asText = (line: Record<string, unknown>): string => {
  const { cause, level, message, requestId, timestamp, traceId, ...rest } = line
  const pairs = Object.entries({ ...rest, requestId, traceId }).filter(([, value]) => value !== undefined).map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
  const head = [String(timestamp).slice(11, 19), String(level).padEnd(5), message, ...pairs].join(" ")
  return cause === undefined ? head : `${head}\n${String(cause)}`
}

/** Options of the logging layer. */
export interface LoggingOptions extends JsonLoggerOptions {
  /** The minimum level printed. @default "info" */
  readonly level?: LogLevelName
}

/** Replace the default logger with the JSON logger and set the minimum level. */
export const layer = (options: LoggingOptions = {}): Layer.Layer<never> =>
  Layer.merge(
    Logger.replace(Logger.defaultLogger, jsonLogger(options)),
    Logger.minimumLogLevel(toLogLevel(options.level ?? "info"))
  )

/** The logging layer at the configured `LOG_LEVEL`, writing to stdout. */
export const layerFromConfig: Layer.Layer<never, never, CoreConfig> = Layer.unwrapEffect(
  Effect.map(CoreConfig, (config) => layer({ level: config.logLevel }))
)
