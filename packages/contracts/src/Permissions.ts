import { z } from "zod"

/**
 * The permission catalogue: for each area, its actions and what they allow. A permission is
 * `<area>:<action>`; `<area>:*` holds every action of an area and `*` holds everything.
 */
export const PERMISSION_CATALOGUE = {
  org: {
    read: "Read the organization",
    update: "Rename the organization and change its settings",
    delete: "Delete the organization"
  },
  members: {
    read: "List members, invitations, role mappings and grants",
    manage: "Invite, remove and change members; edit role mappings and grants"
  },
  apikeys: {
    read: "List the organization's API keys",
    manage: "Create and revoke API keys"
  },
  audit: {
    read: "Read the audit log"
  },
  billing: {
    read: "Read the subscription, usage, invoices and payment methods",
    manage: "Change the plan, pay, and manage payment methods"
  },
  platforms: {
    read: "Read the platform, its lifecycle and onboarding",
    manage: "Update the platform and change its lifecycle"
  },
  entities: {
    read: "Read tenants and subtenants",
    manage: "Create, update and delete tenants and subtenants"
  },
  resources: {
    read: "Read edge resources",
    manage: "Create, update and delete edge resources"
  },
  features: {
    read: "Read feature activations and manifests",
    manage: "Activate and deactivate features"
  },
  stacks: {
    read: "Read stack templates and versions",
    manage: "Create, publish and deprecate stack templates and versions"
  },
  provisioning: {
    read: "Read provisioning jobs",
    manage: "Start provisioning jobs"
  },
  deploy: {
    read: "Read repositories, builds and deployments",
    manage: "Create repositories, upload sites and deploy"
  },
  secrets: {
    read: "List secret records (never their values)",
    manage: "Set and delete secrets"
  },
  vault: {
    read: "Search and read the document vault"
  },
  webhooks: {
    manage: "Create, change, test and delete webhook endpoints; read their deliveries, replay and retry"
  },
  events: {
    read: "List, read and stream the organization's events"
  }
} as const satisfies Record<string, Record<string, string>>

type Catalogue = typeof PERMISSION_CATALOGUE
/** An area of the catalogue, e.g. `billing`. */
export type PermissionArea = keyof Catalogue
/** A concrete permission, e.g. `billing:read`. */
export type ConcretePermission = { [A in PermissionArea]: `${A}:${Extract<keyof Catalogue[A], string>}` }[PermissionArea]
/** Any permission: concrete, an area wildcard (`billing:*`), or `*`. */
export type Permission = ConcretePermission | `${PermissionArea}:*` | "*"

const AREAS = Object.keys(PERMISSION_CATALOGUE) as Array<PermissionArea>

/** Every concrete permission, in catalogue order. */
export const CONCRETE_PERMISSIONS: ReadonlyArray<ConcretePermission> = AREAS.flatMap((area) =>
  Object.keys(PERMISSION_CATALOGUE[area]).map((action) => `${area}:${action}` as ConcretePermission)
)

/** Every permission that may be granted: `*`, then each area's wildcard and concrete permissions. */
export const PERMISSIONS: ReadonlyArray<Permission> = [
  "*",
  ...AREAS.flatMap((area): Array<Permission> => [
    `${area}:*`,
    ...CONCRETE_PERMISSIONS.filter((permission) => permission.startsWith(`${area}:`))
  ])
]

const KNOWN = new Set<string>(PERMISSIONS)

/** Whether a string is a permission of the catalogue. */
export const isPermission = (value: string): value is Permission => KNOWN.has(value)

/** A permission of the catalogue (`*`, `area:*` or `area:action`). */
export const PermissionSchema = z.enum(PERMISSIONS as [Permission, ...Array<Permission>])

/** What a permission allows, for documentation and the console. */
export const describePermission = (permission: Permission): string => {
  if (permission === "*") return "Everything"
  const [area, action] = permission.split(":") as [PermissionArea, string]
  if (action === "*") return `Everything in ${area}`
  return (PERMISSION_CATALOGUE[area] as Record<string, string>)[action]
}

/**
 * Whether a held permission covers a required one: `*` covers everything, `area:*` every
 * `area:…`, anything else only itself.
 */
export const permissionCovers = (held: string, required: string): boolean =>
  held === "*" || held === required || (held.endsWith(":*") && required.startsWith(held.slice(0, -1)))

/** The roles every organization has. */
export const DEFAULT_ROLES = ["owner", "admin", "member"] as const
export type DefaultRole = (typeof DEFAULT_ROLES)[number]

/**
 * The role mappings a new organization starts with (docs/identity/permissions.md): owner `*`; admin every concrete
 * permission except `org:delete` and `billing:manage`; member every `:read` permission.
 */
export const DEFAULT_ROLE_PERMISSIONS: Readonly<Record<DefaultRole, ReadonlyArray<Permission>>> = {
  owner: ["*"],
  admin: CONCRETE_PERMISSIONS.filter((permission) => permission !== "org:delete" && permission !== "billing:manage"),
  member: CONCRETE_PERMISSIONS.filter((permission) => permission.endsWith(":read"))
}
