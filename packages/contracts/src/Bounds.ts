import { z } from "zod"

/**
 * The input bounds (decision 0186): every string a request may carry has a maximum length, so that no
 * contract accepts unbounded text. The seed's own limits (an organization name of 100 characters)
 * are stricter and win where it gives them.
 */

/** Names: of a user, an API key, a role. */
export const NAME_MAX_LENGTH = 200
/** Slugs. */
export const SLUG_MAX_LENGTH = 63
/** Ids, and the opaque tokens and codes that name one record (session, reset and device tokens). */
export const ID_MAX_LENGTH = 128
/** Free text: URLs, passwords (checked again, more strictly, after parsing), form fields. */
export const TEXT_MAX_LENGTH = 4096
/** An email address (RFC 5321: at most 254 characters in a path). */
export const EMAIL_MAX_LENGTH = 254
/** A metadata object, as UTF-8 JSON. */
export const METADATA_MAX_BYTES = 8192
/** Items of a list in a request (the permissions of a role or an API key). */
export const LIST_MAX_ITEMS = 100

/** An id, or an opaque token naming one record: 1 to 128 characters. */
export const BoundedId = z.string().min(1).max(ID_MAX_LENGTH)

/** Free text of up to 4 KiB (a URL, a callback address, a password before its own checks). */
export const FreeText = z.string().max(TEXT_MAX_LENGTH)

/** An email address of at most 254 characters. */
export const EmailAddress = z.email().max(EMAIL_MAX_LENGTH)

const utf8Length = (value: unknown): number => new TextEncoder().encode(JSON.stringify(value)).byteLength

/** A metadata object: string keys of at most 200 characters, 8 KiB of JSON in all. */
export const Metadata = z
  .record(z.string().max(NAME_MAX_LENGTH), z.unknown())
  .refine((value) => utf8Length(value) <= METADATA_MAX_BYTES, { message: `Metadata is limited to ${METADATA_MAX_BYTES} bytes of JSON` })
