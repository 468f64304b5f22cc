/** The one polling helper of the tests lives in `@core/kernel/testing/poll`, for the packages' tests and these alike. */
export { eventually, eventuallyDefined, type PollOptions, until } from "@core/kernel/testing/poll"
