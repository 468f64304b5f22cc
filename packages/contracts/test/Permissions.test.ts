import { describe, expect, it } from "vitest"
import {
  CONCRETE_PERMISSIONS,
  DEFAULT_ROLE_PERMISSIONS,
  describePermission,
  isPermission,
  permissionCovers,
  PermissionSchema,
  PERMISSIONS
} from "../src/index.js"

describe("Permissions", () => {
  it("lists `*`, each area's wildcard and its actions", () => {
    expect(PERMISSIONS[0]).toBe("*")
    for (const permission of [
      "org:read", "org:update", "org:delete", "members:read", "members:manage", "billing:read", "billing:manage",
      "platforms:read", "platforms:manage", "apikeys:manage", "audit:read", "stacks:*", "stacks:manage", "deploy:*",
      "deploy:manage", "secrets:*", "secrets:manage", "provisioning:*", "provisioning:read", "entities:manage",
      "resources:manage", "features:manage", "vault:read"
    ]) {
      expect(isPermission(permission)).toBe(true)
    }
    expect(new Set(PERMISSIONS).size).toBe(PERMISSIONS.length)
    expect(PERMISSIONS.every((p) => p === "*" || /^[a-z]+:([a-z]+|\*)$/.test(p))).toBe(true)
  })

  it("refuses anything outside the catalogue", () => {
    expect(isPermission("org:explode")).toBe(false)
    expect(isPermission("org")).toBe(false)
    expect(PermissionSchema.safeParse("billing:*").success).toBe(true)
    expect(PermissionSchema.safeParse("billing:steal").success).toBe(false)
  })

  it("maps the default roles as docs/identity/permissions.md says", () => {
    expect(DEFAULT_ROLE_PERMISSIONS.owner).toEqual(["*"])
    expect(DEFAULT_ROLE_PERMISSIONS.admin).not.toContain("org:delete")
    expect(DEFAULT_ROLE_PERMISSIONS.admin).not.toContain("billing:manage")
    expect([...DEFAULT_ROLE_PERMISSIONS.admin, "org:delete", "billing:manage"].sort()).toEqual([...CONCRETE_PERMISSIONS].sort())
    expect(DEFAULT_ROLE_PERMISSIONS.member.length).toBeGreaterThan(0)
    expect(DEFAULT_ROLE_PERMISSIONS.member.every((p) => p.endsWith(":read"))).toBe(true)
    expect(DEFAULT_ROLE_PERMISSIONS.member).toEqual(CONCRETE_PERMISSIONS.filter((p) => p.endsWith(":read")))
  })

  it("covers by wildcard", () => {
    expect(permissionCovers("*", "org:delete")).toBe(true)
    expect(permissionCovers("billing:*", "billing:manage")).toBe(true)
    expect(permissionCovers("billing:*", "billingx:read")).toBe(false)
    expect(permissionCovers("billing:read", "billing:manage")).toBe(false)
    expect(permissionCovers("org:read", "org:read")).toBe(true)
  })

  it("describes each permission", () => {
    expect(describePermission("*")).toBe("Everything")
    expect(describePermission("stacks:*")).toBe("Everything in stacks")
    expect(describePermission("secrets:read")).toBe("List secret records (never their values)")
    for (const permission of PERMISSIONS) expect(describePermission(permission)).toEqual(expect.any(String))
  })
})
