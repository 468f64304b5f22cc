export * from "./Errors.js"
export * as Body from "./Body.js"
export {
  type ApiKeyCaller,
  type Caller,
  Callers,
  type EffectiveRole,
  type ResolveOptions,
  type ServiceCaller,
  type UserCaller
} from "./Caller.js"
export * as Policy from "./Policy.js"
export * as Route from "./Route.js"
export * as Rows from "./Rows.js"
export * as ErrorResponse from "./ErrorResponse.js"
export * as RequestId from "./RequestId.js"
export * as Validation from "./Validation.js"
export * as Config from "./Config.js"
export { ConfigError, CoreConfig, loadConfig } from "./Config.js"
export type { Configuration } from "./Config.js"
export * as Logging from "./Logging.js"
export * as RequestContext from "./RequestContext.js"
export * as TraceContext from "./TraceContext.js"
export * as Telemetry from "./Telemetry.js"
export * as Metrics from "./Metrics.js"
export type { RequestContextData, RequestFacts } from "./RequestContext.js"
export * as Crypto from "./Crypto.js"
export * as ForwardedIdentity from "./ForwardedIdentity.js"
export * as PublicUrl from "./PublicUrl.js"
export * as ForwardedCallers from "./ForwardedCallers.js"
export * as Cursor from "./Cursor.js"
export * as RedirectTarget from "./RedirectTarget.js"
export * as Ids from "./Ids.js"
export * as Database from "./Database.js"
export * as PgliteClient from "./PgliteClient.js"
export * as Migrations from "./Migrations.js"
export * as DataDirLock from "./DataDirLock.js"
export * as Backup from "./Backup.js"
export * as EventOutbox from "./EventOutbox.js"
export * as RedisConnection from "./RedisConnection.js"
/** The Tags of namespaced modules, also exported directly so that declaration emit can name them. */
export { Ids as IdsTag } from "./Ids.js"
export { RequestContext as RequestContextTag } from "./RequestContext.js"
export { Telemetry as TelemetryTag } from "./Telemetry.js"
export { Info as DatabaseInfo } from "./Database.js"
export { PgliteClient as PgliteClientTag } from "./PgliteClient.js"
export { DataDirLockError } from "./DataDirLock.js"
export { BackupError } from "./Backup.js"
export { EventOutbox as EventOutboxTag } from "./EventOutbox.js"
