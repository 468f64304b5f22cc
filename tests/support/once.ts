/**
 * Heavy suites (packed installs, other runtimes, multi-process deployments, the getting-started
 * guide) run once per CI run, not once per database: CI's second pass sets `CORE_TEST_DRIVERS=pg`
 * and they skip there. Use as `describe.runIf(runsOncePerCi)(...)`.
 */
export const runsOncePerCi: boolean = process.env.CORE_TEST_DRIVERS !== "pg"
