export * as TestDatabase from "./TestDatabase.js"
export { type HttpHarness, makeHttpHarness, type TestRequestInit } from "./Harness.js"
