/** The stand-in for identity the registry's tests share with provisioning's (one table of users and keys). */
export { TestCallers } from "../../provisioning/test/support/testCallers.js"
