/** The pattern of what a unit test never does (scripts/unit-suites.mjs). */
export declare const STARTS: RegExp
/** The unit test files, relative to the repository, sorted (scripts/unit-suites.mjs). */
export declare const unitFiles: () => Array<string>
