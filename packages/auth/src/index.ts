/**
 * @core/auth — the identity domain: the whole identity service (`IdentityApp`, `IdentityLive`) and,
 * per area, its router, layer and services.
 */

/* The whole identity service. */
export { IdentityApp, IdentityHandlers, IdentityLive, IdentityRouter } from "./Identity.js"
export { IamMigrations } from "./migrations/index.js"

/* accounts/ — better-auth's /api/auth/*, profile, sessions. */
export { CurrentSession } from "./accounts/CurrentSession.js"
export { AuthUrls, IdentityMount } from "./accounts/AuthUrls.js"
export { AccountsHandlers, AccountsLive, AccountsRouter } from "./accounts/Http.js"
export { SessionContext } from "./accounts/SessionContext.js"
export * as GatewayIdentity from "./accounts/GatewayIdentity.js"
export { Sessions } from "./accounts/Sessions.js"

/* organizations/ — organizations, members, invitations, org-setup, bootstrap. */
export { Bootstrap } from "./organizations/Bootstrap.js"
export { OrganizationsHandlers, OrganizationsLive, OrganizationsRouter } from "./organizations/Http.js"
export { OrgSetup } from "./organizations/OrgSetup.js"
export { PlatformSetup, PlatformSetupFailed } from "./organizations/PlatformSetup.js"
export * as RegistryPlatformSetup from "./organizations/RegistryPlatformSetup.js"

/* authorization/ — Access, role mappings, grants, API keys, service tokens, platform status. */
export { Access } from "./authorization/Access.js"
export { AccessLive } from "./authorization/AccessLive.js"
export { API_KEY_PREFIX, ApiKeys } from "./authorization/ApiKeys.js"
export { Grants } from "./authorization/Grants.js"
export { AuthorizationHandlers, AuthorizationLive, AuthorizationRouter } from "./authorization/Http.js"
export { Permissions } from "./authorization/Permissions.js"
export { PlatformStatus } from "./authorization/PlatformStatus.js"
export { PlatformStatusRepo } from "./authorization/PlatformStatusRepo.js"
export { RoleMappings } from "./authorization/RoleMappings.js"
export { SERVICE_TOKEN_ALG, ServiceTokens } from "./authorization/ServiceTokens.js"

/* audit/ — the audit log. */
export { Audit, AuditAppendLive, AuditLogLive } from "./audit/Audit.js"
export { AuditLog, type AuditEvent, type AuditRequestFacts } from "./audit/AuditLog.js"

/* device/ — device authorization (RFC 8628), rotating refresh tokens, the CLI's whoami. */
export { CliIdentity } from "./device/CliIdentity.js"
export {
  DeviceAuthorization,
  type DeviceAuthorizationOptions,
  formatUserCode,
  type IssuedDeviceCode,
  normalizeUserCode,
  type PendingDeviceCode
} from "./device/DeviceAuthorization.js"
export { ACTIVATION_PATH, deviceAuthorizationLayer, DeviceAuthorizationLive, DeviceHandlers, DeviceRouter } from "./device/Http.js"
export { OAuthError } from "./device/OAuthErrors.js"
export { oauthRenderer as OAuthRenderer } from "./device/OAuthProtocol.js"
export { ACCESS_TOKEN_TTL, REFRESH_TOKEN_TTL, RefreshTokens, type TokenGrant } from "./device/RefreshTokens.js"

/* web/ — the pages: sign-in, sign-up, account, organization setup, device activation. */
export { Csrf, CSRF_COOKIE, CsrfRejected } from "./web/Csrf.js"
export { notFoundPageRenderer } from "./web/ErrorPages.js"
export { PAGE_PATHS, PagesLive, PagesRouter, WebHandlers } from "./web/Http.js"

/* mail/ — the Mailer port and its implementations; identity's own settings (`SMTP_URL`). */
export { MailConfig, type MailSettings } from "./Config.js"
export { MailError, Mailer, type MailMessage } from "./mail/Mailer.js"
export * as MailerLive from "./mail/MailerLive.js"
export * as OutboxMailer from "./mail/OutboxMailer.js"
export * as SmtpMailer from "./mail/SmtpMailer.js"
