/**
 * @core/auth — the identity domain. The full composition (one identity app and its layer) arrives
 * at integration; until then each area exports its router and layer.
 */
export { AuthorizationLive, AuthorizationRouter } from "./http/Authorization.js"

/* Authorization: Access, role mappings, grants, API keys, service tokens, platform status, audit. */
export { AccessLive } from "./AccessLive.js"
export { API_KEY_PREFIX, ApiKeys } from "./ApiKeys.js"
export { Audit, AuditLogLive } from "./Audit.js"
export { Grants } from "./Grants.js"
export { Permissions } from "./Permissions.js"
export { PlatformStatus } from "./PlatformStatus.js"
export { RoleMappings } from "./RoleMappings.js"
export { SERVICE_TOKEN_ALG, ServiceTokens } from "./ServiceTokens.js"
export { IamMigrations } from "./migrations/index.js"

/* Organizations, members, invitations, org-setup, bootstrap. */
export { Bootstrap } from "./Bootstrap.js"
export { OrganizationsLive, OrganizationsRouter } from "./http/Organizations.js"
export { OrgSetup } from "./OrgSetup.js"
export { PlatformSetup, PlatformSetupFailed } from "./PlatformSetup.js"
export * as RegistryPlatformSetup from "./RegistryPlatformSetup.js"

/* Accounts and sessions: better-auth's /api/auth/*, profile, sessions, the Authentication port, mail. */
export { AccountsLive, AccountsRouter } from "./http/Accounts.js"
export { AuthenticationLive, CurrentSession } from "./AuthenticationLive.js"
export { Authentication, Access, type Caller, type ServiceCaller, type SessionCaller } from "./Caller.js"
export { AuditLog, type AuditEvent, type AuditRequestFacts } from "./AuditEvent.js"
export { Sessions } from "./Sessions.js"
export { SessionContext } from "./SessionContext.js"
export { AuthUrls } from "./AuthUrls.js"
export { MailError, Mailer, type MailMessage } from "./Mailer.js"
export * as MailerLive from "./mail/MailerLive.js"
export * as OutboxMailer from "./mail/OutboxMailer.js"
export * as SmtpMailer from "./mail/SmtpMailer.js"

/* The whole identity service. */
export { IdentityApp, IdentityLive, IdentityRouter } from "./Identity.js"

/* Device authorization (RFC 8628), rotating refresh tokens, the CLI's whoami. */
export { CliIdentity } from "./CliIdentity.js"
export {
  DeviceAuthorization,
  type DeviceAuthorizationOptions,
  formatUserCode,
  type IssuedDeviceCode,
  normalizeUserCode,
  type PendingDeviceCode
} from "./DeviceAuthorization.js"
export { ACTIVATION_PATH, deviceAuthorizationLayer, DeviceAuthorizationLive, DeviceRouter } from "./http/OAuth.js"
export { OAuthError } from "./OAuthErrors.js"
export { ACCESS_TOKEN_TTL, REFRESH_TOKEN_TTL, RefreshTokens, type TokenGrant } from "./RefreshTokens.js"

/* The web pages: sign-in, sign-up, account, organization setup, device activation. */
export { PAGE_PATHS, PagesLive, PagesRouter } from "./http/Pages.js"
export { Csrf, CSRF_COOKIE, CsrfRejected } from "./Csrf.js"
