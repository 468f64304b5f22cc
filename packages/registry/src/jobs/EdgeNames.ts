import { createHash } from "node:crypto"

/** The longest edge name (a DNS label). */
const EDGE_NAME_MAX = 63

const label = (text: string) => text.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/-+/g, "-")

/**
 * A resource's edge name: `<platform slug>-<environment>-<name>` as a DNS label, deterministic so
 * that a retried step finds what it made (the one definition: the resource jobs and the onboard job use it). For
 * an entity other than the platform's default tenant, 6 hexadecimal characters of its id follow.
 */
export const edgeNameOf = (slug: string, environment: string, name: string, entitySuffix?: string): string => {
  const suffix = entitySuffix === undefined ? "" : `-${entitySuffix}`
  const base = label(`${slug}-${environment}-${name}`).slice(0, EDGE_NAME_MAX - suffix.length).replace(/-+$/, "")
  return `${base}${suffix}`
}

export const shortHash = (...parts: ReadonlyArray<string>) => createHash("sha256").update(parts.join("\u0000")).digest("hex")

/** A stack instance's id: one per platform, stack, entity and environment (activating it again is the same instance). */
export const stackInstanceIdOf = (platformId: string, stackId: string, entityId: string, environment: string): string =>
  `sti_${shortHash(platformId, stackId, entityId, environment).slice(0, 26)}`
