import type { Migrations } from "@core/kernel"
import identity from "./0001_identity.js"
import operatorOrganization from "./0020_operator_organization.js"
import deviceAuthorization from "./0040_device_authorization.js"
import onePendingInvitation from "./0050_one_pending_invitation.js"
import refreshRotationSalt from "./0051_refresh_rotation_salt.js"
import apiKeyParent from "./0052_api_key_parent.js"

/**
 * The identity domain's migrations (schema `iam`). Number ranges: 0001 the schema, 0010–0019
 * accounts, 0020–0029 organizations, 0030–0039 authorization, 0040–0049 device authorization; from
 * 0050 on, one after the other whatever the area: the migrator skips an id below the last applied.
 */
export const IamMigrations: Migrations.Domain = {
  schema: "iam",
  migrations: {
    "0001_identity": identity,
    "0020_operator_organization": operatorOrganization,
    "0040_device_authorization": deviceAuthorization,
    "0050_one_pending_invitation": onePendingInvitation,
    "0051_refresh_rotation_salt": refreshRotationSalt,
    "0052_api_key_parent": apiKeyParent
  }
}
