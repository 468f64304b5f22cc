/**
 * `@core/sdk/contracts`: the contracts the SDK is typed by (`@core/contracts`: every schema, the
 * route catalogue, `defineRoute`), carried inside the SDK's package so that installing the SDK
 * alone is enough (decision 0601). Importing it brings zod; the SDK itself does not.
 */
export * from "@core/contracts"
