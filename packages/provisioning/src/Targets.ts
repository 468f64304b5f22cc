/**
 * The targets jobs are ordered on (decision 0286): jobs of one target run one at a time, in the
 * order they were enqueued, so that a deactivation queued behind a running activation waits for
 * it. Every enqueuer of a job type names the same target for the same thing (the registry's
 * feature routes and provisioning's `feature/activate` alike).
 */

/** A feature of an entity in one environment. */
export const feature = (platformId: string, entityId: string, featureId: string, environment: string): string =>
  `feature:${platformId}:${entityId}:${featureId}:${environment}`

/** A platform's own edge resources (provision, deprovision). */
export const platform = (platformId: string): string => `platform:${platformId}`

/** A stack instance (its deactivation; an activation makes a new instance and has no target yet). */
export const stackInstance = (stackInstanceId: string): string => `stack:${stackInstanceId}`

/** An app of a platform, by name. */
export const app = (platformId: string, appName: string): string => `app:${platformId}:${appName}`

/** A custom hostname (one owner at a time, whichever platform asks). */
export const domain = (hostname: string): string => `domain:${hostname.toLowerCase()}`

/** An onboarding flow. */
export const onboarding = (onboardingId: string): string => `onboarding:${onboardingId}`

/** A platform's authentication worker. */
export const auth = (platformId: string): string => `auth:${platformId}`
