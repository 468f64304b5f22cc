import type { Transport } from "../transport.js"
import { iamAccounts, type IamAccounts } from "./iam-accounts.js"
import { iamAuthorization, type IamAuthorization } from "./iam-authorization.js"
import { iamDevice, type IamDevice } from "./iam-device.js"
import { iamOrganizations, type IamOrganizations } from "./iam-organizations.js"

/** The identity service's namespace (`client.iam`): accounts and sessions, organizations, authorization, device login. */
export type IamClient = IamAccounts & IamAuthorization & IamOrganizations & IamDevice

/**
 * `client.iam` on `transport`, under `basePath` (the gateway's identity prefix by default; `""` for
 * an identity service reached directly).
 */
export const iam = (transport: Transport, basePath?: string): IamClient => ({
  ...iamAccounts(transport, basePath),
  ...iamAuthorization(transport, basePath),
  ...iamOrganizations(transport, basePath),
  ...iamDevice(transport, basePath)
})
