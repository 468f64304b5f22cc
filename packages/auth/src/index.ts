/**
 * @core/auth — the identity domain. The full composition (one identity app and its layer) arrives
 * at integration; until then each area exports its router and layer.
 */
export { AuthorizationLive, AuthorizationRouter } from "./http/Authorization.js"
export { IamMigrations } from "./migrations/index.js"

/* Organizations, members, invitations, org-setup, bootstrap. */
export { Bootstrap } from "./Bootstrap.js"
export { OrganizationsLive, OrganizationsRouter } from "./http/Organizations.js"
export { OrgSetup } from "./OrgSetup.js"
export { PlatformSetup, PlatformSetupFailed } from "./PlatformSetup.js"
export * as RegistryPlatformSetup from "./RegistryPlatformSetup.js"
