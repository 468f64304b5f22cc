/**
 * The job types of the queue's job-creating routes (fixed names). The queue knows them by name
 * only: the owner of each type registers its handler (`JobHandlers`) — the registry's for
 * resources, features and onboarding, provisioning's own for `domain.add` and `auth.upgrade`.
 */
export const PLATFORM_PROVISION = "platform.provision"
export const PLATFORM_DEPROVISION = "platform.deprovision"
export const STACK_ACTIVATE = "stack.activate"
export const STACK_DEACTIVATE = "stack.deactivate"
export const APP_CREATE = "app.create"
export const DOMAIN_ADD = "domain.add"
export const FEATURE_ACTIVATE = "feature.activate"
export const FEATURE_DEACTIVATE = "feature.deactivate"
export const ONBOARD = "onboard"
export const AUTH_UPGRADE = "auth.upgrade"
