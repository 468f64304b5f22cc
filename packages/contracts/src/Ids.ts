import { z } from "zod"
import { PathRecords } from "./PathRecords.js"

/**
 * The id prefixes (decision 0030): users, organizations, sessions, API keys, grants, invitations,
 * platforms, entities, resources, feature activations, jobs, dead letters, stacks, stack versions,
 * deployments, secrets; and organization memberships (`mem`), one-time verification tokens (`vrf`),
 * outgoing mail (`eml`), audit log entries (`aud`), device codes (`dvc`), refresh tokens (`rft`) and
 * their rotation families (`fam`), and platform lifecycle events (`lce`), and registry DNS records (`dns`), and onboarding flows (`onb`), events (`evt`), webhook endpoints (`whe`) and their delivery attempts (`whd`).
 */
export const ID_PREFIXES = [
  "usr",
  "org",
  "ses",
  "key",
  "grt",
  "inv",
  "plt",
  "ent",
  "res",
  "act",
  "job",
  "dlq",
  "stk",
  "ver",
  "dep",
  "sec",
  "mem",
  "vrf",
  "eml",
  "aud",
  "dvc",
  "rft",
  "fam",
  "lce",
  "dns",
  "onb",
  "evt",
  "whe",
  "whd"
] as const
export const IdPrefix = z.enum(ID_PREFIXES)
export type IdPrefix = z.infer<typeof IdPrefix>

/** Crockford's base32 alphabet (no I, L, O, U), whose order is the sort order of the characters. */
export const CROCKFORD_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

const TIME_LENGTH = 10
const RANDOM_LENGTH = 16
/** Length of the part after `<prefix>_`: 10 characters of time, 16 of randomness (ULID layout). */
export const ID_BODY_LENGTH = TIME_LENGTH + RANDOM_LENGTH
/** Bytes of randomness in an id. */
export const ID_RANDOM_BYTES = 10
/** The largest time an id can carry (48 bits of milliseconds, year 10889). */
export const ID_MAX_TIME = 2 ** 48 - 1

const BODY = `[${CROCKFORD_ALPHABET}]{${ID_BODY_LENGTH}}`
const ANY_ID = new RegExp(`^(${ID_PREFIXES.join("|")})_(${BODY})$`)

const encodeBigInt = (value: bigint, length: number): string => {
  let out = ""
  let rest = value
  for (let i = 0; i < length; i++) {
    out = CROCKFORD_ALPHABET[Number(rest & 31n)] + out
    rest >>= 5n
  }
  return out
}

/**
 * Format an id: `<prefix>_` + the time in milliseconds (10 characters) + 80 random bits
 * (16 characters), all in Crockford base32, so ids sort by creation time.
 *
 * @example formatId("usr", 0, new Uint8Array(10)) // "usr_00000000000000000000000000"
 */
export const formatId = (prefix: IdPrefix, timeMillis: number, random: Uint8Array): string => {
  if (!Number.isInteger(timeMillis) || timeMillis < 0 || timeMillis > ID_MAX_TIME) {
    throw new RangeError(`id time out of range: ${timeMillis}`)
  }
  if (random.length !== ID_RANDOM_BYTES) throw new RangeError(`an id needs ${ID_RANDOM_BYTES} random bytes`)
  let bits = 0n
  for (const byte of random) bits = (bits << 8n) | BigInt(byte)
  return `${prefix}_${encodeBigInt(BigInt(timeMillis), TIME_LENGTH)}${encodeBigInt(bits, RANDOM_LENGTH)}`
}

/** The parts of a well-formed id, or `undefined`. */
export const parseId = (id: string): { readonly prefix: IdPrefix; readonly timeMillis: number } | undefined => {
  const match = ANY_ID.exec(id)
  if (match === null) return undefined
  let time = 0
  for (const char of match[2].slice(0, TIME_LENGTH)) time = time * 32 + CROCKFORD_ALPHABET.indexOf(char)
  return time > ID_MAX_TIME ? undefined : { prefix: match[1] as IdPrefix, timeMillis: time }
}

/** The pattern of ids with one prefix. */
export const idPattern = (prefix: IdPrefix): RegExp => new RegExp(`^${prefix}_${BODY}$`)

/**
 * What each kind of id names, as its "not found" answers say it (`Platform not found`): a path
 * parameter of any shape answers that 404 (decision 0567).
 */
export const ID_NOUNS: Readonly<Record<IdPrefix, string>> = {
  usr: "User",
  org: "Organization",
  ses: "Session",
  key: "API key",
  grt: "Grant",
  inv: "Invitation",
  plt: "Platform",
  ent: "Entity",
  res: "Resource",
  act: "Feature activation",
  job: "Job",
  dlq: "Dead-letter entry",
  stk: "Stack template",
  ver: "Stack version",
  dep: "Deployment",
  sec: "Secret",
  mem: "Member",
  vrf: "Verification",
  eml: "Mail",
  aud: "Audit entry",
  dvc: "Device code",
  rft: "Refresh token",
  fam: "Refresh token family",
  lce: "Lifecycle event",
  dns: "DNS record",
  onb: "Onboarding flow",
  evt: "Event",
  whe: "Webhook endpoint",
  whd: "Webhook delivery"
}

/**
 * The schema of ids with one prefix, e.g. `idSchema("plt")` accepts `plt_01J…`; in a path it names
 * a record (`Platform not found` for any value that names none).
 */
export const idSchema = (prefix: IdPrefix) =>
  z.string().regex(idPattern(prefix), { error: `Expected a ${prefix}_ id` }).meta({
    description: `An id with the prefix ${prefix}_ followed by 26 Crockford base32 characters`,
    examples: [`${prefix}_01JDQ3V6X4TQ7K9ZC2M8N5P0RS`]
  }).register(PathRecords, { notFound: `${ID_NOUNS[prefix]} not found` })

/** A user id (`usr_…`). */
export const UserId = idSchema("usr")
/** An organization id (`org_…`). */
export const OrganizationId = idSchema("org")
/** A session id (`ses_…`). */
export const SessionId = idSchema("ses")
/** An API key id (`key_…`). */
export const ApiKeyId = idSchema("key")
/** A permission grant id (`grt_…`). */
export const GrantId = idSchema("grt")
/** An invitation id (`inv_…`). */
export const InvitationId = idSchema("inv")
/** A platform id (`plt_…`). */
export const PlatformId = idSchema("plt")
/** An entity (tenant or subtenant) id (`ent_…`). */
export const EntityId = idSchema("ent")
/** A registry resource id (`res_…`). */
export const ResourceId = idSchema("res")
/** A feature activation id (`act_…`). */
export const ActivationId = idSchema("act")
/** A provisioning job id (`job_…`). */
export const JobId = idSchema("job")
/** An onboarding flow. */
export const OnboardingId = idSchema("onb")
/** A dead-letter entry id (`dlq_…`). */
export const DeadLetterId = idSchema("dlq")
/** A stack template id (`stk_…`). */
export const StackId = idSchema("stk")
/** A stack version id (`ver_…`). */
export const StackVersionId = idSchema("ver")
/** A deployment id (`dep_…`). */
export const DeploymentId = idSchema("dep")
/** A secret record id (`sec_…`). */
export const SecretId = idSchema("sec")
/** An organization membership id (`mem_…`). */
export const MemberId = idSchema("mem")
/** A one-time verification token's record id (`vrf_…`): magic links, password resets, email checks. */
export const VerificationId = idSchema("vrf")
/** An outgoing mail's id (`eml_…`). */
export const MailId = idSchema("eml")
/** An audit log entry's id (`aud_…`). */
export const AuditEntryId = idSchema("aud")
