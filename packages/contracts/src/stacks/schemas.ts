import { z } from "zod"
import { NAME_MAX_LENGTH } from "../Bounds.js"
import { naming } from "../PathRecords.js"

/**
 * The stack catalogue's records and requests. Its records keep the
 * seed's snake_case fields and epoch-millisecond numbers; its requests are camelCase.
 */

/** A template's name: 1 to 64 characters, `^[a-z0-9-]+$`. */
export const StackName = z.string().min(1).max(64).regex(/^[a-z0-9-]+$/, { error: "Use lower-case letters, digits and dashes" })

/** The longest version string accepted (three integers and a suffix). */
export const STACK_VERSION_MAX_LENGTH = 64

const IDENTIFIER = "(?:0|[1-9]\\d*|\\d*[A-Za-z][0-9A-Za-z]*)"

/**
 * The seed's version pattern: three dot-separated non-negative integers, optionally a hyphen and a
 * suffix of letters, digits and dots. No `v` prefix, no `+build` metadata. Narrowed to what
 * semantic versioning orders (decision 0221): no leading zeros, no empty dot-separated part.
 */
export const STACK_VERSION_PATTERN = new RegExp(
  `^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-${IDENTIFIER}(?:\\.${IDENTIFIER})*)?$`
)

/** A stack version or a `coreSdkVersion` (the seed's pattern, at most 64 characters). */
export const StackVersion = z
  .string()
  .min(1)
  .max(STACK_VERSION_MAX_LENGTH)
  .regex(STACK_VERSION_PATTERN, { error: "Use three dot-separated integers, optionally followed by -suffix (e.g. 1.2.0 or 1.2.0-beta.1)" })

/** Template statuses. */
export const StackTemplateStatus = z.enum(["active", "deprecated"])
export type StackTemplateStatus = z.infer<typeof StackTemplateStatus>

/** Version statuses (docs/stacks.md). */
export const StackVersionStatus = z.enum(["published", "deprecated"])
export type StackVersionStatus = z.infer<typeof StackVersionStatus>

/** The URL or name of a template's icon, and its domain: free text of at most 2048 characters. */
const ShortText = z.string().min(1).max(2048)

/** The seed's template summary. */
export const StackTemplateSummary = z.object({
  id: z.string(),
  name: z.string(),
  display_name: z.string(),
  description: z.string(),
  icon: z.string().nullable(),
  domain: z.string().nullable(),
  latest_version: z.string().nullable(),
  status: StackTemplateStatus,
  created_at: z.number(),
  updated_at: z.number()
})
export type StackTemplateSummary = z.infer<typeof StackTemplateSummary>

/** The seed's version record; `stack_definition` is the definition as JSON text. */
export const StackVersionRecord = z.object({
  id: z.string(),
  template_id: z.string(),
  version: z.string(),
  stack_definition: z.string(),
  core_sdk_version: z.string(),
  status: StackVersionStatus,
  published_at: z.number(),
  created_at: z.number()
})
export type StackVersionRecord = z.infer<typeof StackVersionRecord>

/** `GET /api/v1/stacks`: the active templates. */
export const StackTemplateList = z.object({ data: z.array(StackTemplateSummary), total: z.number().int() })

/** `GET /api/v1/stacks/{name}`: the template and its latest published version (`null` when none). */
export const StackTemplateDetail = z.object({ template: StackTemplateSummary, latestVersion: StackVersionRecord.nullable() })

/** `GET /api/v1/stacks/{name}/versions`: every version of a template, newest semantic version first. */
export const StackVersionList = z.object({ data: z.array(StackVersionRecord), total: z.number().int() })

/** `POST /api/v1/stacks`. */
export const CreateStackTemplateRequest = z.strictObject({
  name: StackName,
  displayName: z.string().min(1).max(128),
  description: z.string().min(1).max(1024),
  icon: ShortText.optional(),
  domain: z.string().min(1).max(NAME_MAX_LENGTH).optional()
})
export type CreateStackTemplateRequest = z.input<typeof CreateStackTemplateRequest>

/** `PATCH /api/v1/stacks/{name}`: at least one field. */
export const UpdateStackTemplateRequest = z
  .strictObject({
    displayName: z.string().min(1).max(128).optional(),
    description: z.string().min(1).max(1024).optional(),
    icon: ShortText.optional(),
    status: StackTemplateStatus.optional()
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { error: "Give at least one field to change" })
export type UpdateStackTemplateRequest = z.input<typeof UpdateStackTemplateRequest>

/** The most resources one stack definition may list. */
export const STACK_RESOURCES_MAX_ITEMS = 100
/** The most bytes of JSON a stack definition may take. */
export const STACK_DEFINITION_MAX_BYTES = 65536

const utf8Length = (value: unknown): number => new TextEncoder().encode(JSON.stringify(value)).byteLength

/** One resource a stack creates (type, name, environment, config). */
export const StackResource = z.strictObject({
  type: z.string().min(1).max(NAME_MAX_LENGTH),
  name: z.string().min(1).max(NAME_MAX_LENGTH),
  environment: z.string().min(1).max(NAME_MAX_LENGTH),
  config: z.record(z.string().max(NAME_MAX_LENGTH), z.unknown()).default({})
})

/**
 * A stack definition: the resources to create, and nothing else at the top level. Its JSON Schema
 * (`STACK_DEFINITION_JSON_SCHEMA`) is published with the catalogue; a definition is checked
 * against it when its version is published.
 */
export const StackDefinition = z.strictObject({
  resources: z.array(StackResource).min(1).max(STACK_RESOURCES_MAX_ITEMS)
})
export type StackDefinition = z.infer<typeof StackDefinition>

/** The JSON Schema of a stack definition (draft 2020-12), derived from `StackDefinition`. */
export const STACK_DEFINITION_JSON_SCHEMA = z.toJSONSchema(StackDefinition, { io: "input" })

/**
 * `POST /api/v1/stacks/{name}/versions`: the definition is checked against the published schema as
 * it is published (400 `VALIDATION_ERROR` naming the field, e.g. `stackDefinition.resources.0.type`).
 */
export const CreateStackVersionRequest = z.strictObject({
  version: StackVersion,
  stackDefinition: StackDefinition.refine((value) => utf8Length(value) <= STACK_DEFINITION_MAX_BYTES, {
      error: `A stack definition is limited to ${STACK_DEFINITION_MAX_BYTES} bytes of JSON`
    }),
  coreSdkVersion: StackVersion
})
export type CreateStackVersionRequest = z.input<typeof CreateStackVersionRequest>

/** The path of one template. */
export const StackParams = z.object({ name: naming(StackName, "Stack template not found") })
/** The path of one version of a template. */
export const StackVersionParams = z.object({ name: StackParams.shape.name, version: naming(StackVersion, "Stack version not found") })

/** `{ id }` of what was created. */
export const StackCreated = z.object({ id: z.string() })
/** `{ ok: true }`. */
export const StackOk = z.object({ ok: z.literal(true) })
