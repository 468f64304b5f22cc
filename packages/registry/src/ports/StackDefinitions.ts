import { Context, type Effect, type Option } from "effect"

/** One resource of a stack definition (DESIGN §7: type, name, environment, config). */
export interface StackResourceDefinition {
  readonly type: string
  readonly name: string
  readonly environment: string
  readonly config: Record<string, unknown>
}

/** A template's latest published version: what onboarding builds a platform from. */
export interface StackDefinitionVersion {
  readonly templateId: string
  readonly templateName: string
  readonly version: string
  readonly resources: ReadonlyArray<StackResourceDefinition>
}

/**
 * Where the registry reads the stack catalogue (`@core/stacks`): the latest published version of
 * a template by name. The all-in-one server provides it over the
 * catalogue on the shared database (`@core/server`'s `StackDefinitionsLive`).
 */
export class StackDefinitions extends Context.Tag("@core/registry/StackDefinitions")<StackDefinitions, {
  /** `None`: no such active template. `Some(undefined)`: the template has no published version. */
  readonly latest: (templateName: string) => Effect.Effect<Option.Option<StackDefinitionVersion | undefined>>
  /**
   * One published version of a template, named by its id (`stk_…`) or its name; `None` when either
   * is unknown. Absent: no version is found.
   */
  readonly version?: (template: string, version: string) => Effect.Effect<Option.Option<StackDefinitionVersion>>
}>() {}
