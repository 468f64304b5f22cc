/** The stand-in for identity every domain package's tests share (tests/support: one table of users and keys). */
export { TestCallers } from "../../../tests/support/testCallers.js"
