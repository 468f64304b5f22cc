/*
 * The device flow's constants, apart from its schemas so that `@core/contracts/routes` (and so the
 * SDK) can use them without zod. `device.ts` re-exports them (`Iam.DEVICE_CLIENT_ID`, …).
 */

/** The one OAuth client of the device flow: the `core` command. */
export const DEVICE_CLIENT_ID = "core-cli"

/** The device code grant type of RFC 8628 §3.4. */
export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"

/** The refresh grant type of RFC 6749 §6. */
export const REFRESH_TOKEN_GRANT = "refresh_token"
