/**
 * The few tar operations backups need, on the ustar archives PGlite writes (`dumpDataDir`): read
 * the members, rename them, add one, write them back. Members are kept byte for byte; only the
 * names (and the header checksum) change.
 */

const BLOCK = 512

/** One member: its 512-byte header and its data. */
export interface Member {
  readonly name: string
  readonly header: Uint8Array
  readonly data: Uint8Array
}

const decoder = new TextDecoder()
const encoder = new TextEncoder()

const field = (header: Uint8Array, offset: number, length: number): string => {
  const bytes = header.subarray(offset, offset + length)
  const end = bytes.indexOf(0)
  return decoder.decode(end === -1 ? bytes : bytes.subarray(0, end))
}

const octal = (header: Uint8Array, offset: number, length: number): number => {
  const text = field(header, offset, length).trim()
  return text === "" ? 0 : Number.parseInt(text, 8)
}

const nameOf = (header: Uint8Array): string => {
  const name = field(header, 0, 100)
  const ustar = field(header, 257, 6) === "ustar"
  const prefix = ustar ? field(header, 345, 155) : ""
  return prefix === "" ? name : `${prefix}/${name}`
}

const checksum = (header: Uint8Array): void => {
  header.fill(0x20, 148, 156)
  let sum = 0
  for (const byte of header) sum += byte
  header.set(encoder.encode(`${sum.toString(8).padStart(6, "0")}\0 `), 148)
}

/** The members of an uncompressed tar archive; throws on a truncated or corrupt one. */
export const read = (archive: Uint8Array): Array<Member> => {
  const members: Array<Member> = []
  let offset = 0
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK)
    if (header.every((byte) => byte === 0)) break
    const stored = octal(header, 148, 8)
    const copy = new Uint8Array(header)
    checksum(copy)
    if (octal(copy, 148, 8) !== stored) throw new Error("the archive is corrupt (bad header checksum)")
    const size = octal(header, 124, 12)
    const start = offset + BLOCK
    if (start + size > archive.length) throw new Error("the archive is truncated")
    members.push({ name: nameOf(header), header: new Uint8Array(header), data: archive.subarray(start, start + size) })
    offset = start + Math.ceil(size / BLOCK) * BLOCK
  }
  return members
}

/** The member renamed (its header rewritten); throws when the name does not fit a ustar header. */
export const rename = (member: Member, name: string): Member => {
  const header = new Uint8Array(member.header)
  const bytes = encoder.encode(name)
  let prefix = new Uint8Array(0)
  let rest = bytes
  if (bytes.length > 100) {
    const cut = name.lastIndexOf("/", 155)
    if (cut <= 0 || bytes.length - cut - 1 > 100) throw new Error(`name too long for the archive: ${name}`)
    prefix = encoder.encode(name.slice(0, cut))
    rest = encoder.encode(name.slice(cut + 1))
  }
  header.fill(0, 0, 100)
  header.set(rest, 0)
  if (field(header, 257, 6) === "ustar") {
    header.fill(0, 345, 500)
    header.set(prefix, 345)
  }
  checksum(header)
  return { name, header, data: member.data }
}

/** A regular file member (mode 0600) named `name` holding `data`. */
export const file = (name: string, data: Uint8Array, mtime: Date = new Date()): Member => {
  const header = new Uint8Array(BLOCK)
  header.set(encoder.encode(name), 0)
  header.set(encoder.encode("0000600\0"), 100)
  header.set(encoder.encode("0000000\0"), 108)
  header.set(encoder.encode("0000000\0"), 116)
  header.set(encoder.encode(`${data.length.toString(8).padStart(11, "0")}\0`), 124)
  header.set(encoder.encode(`${Math.floor(mtime.getTime() / 1000).toString(8).padStart(11, "0")}\0`), 136)
  header[156] = 0x30
  header.set(encoder.encode("ustar\0"), 257)
  header.set(encoder.encode("00"), 263)
  checksum(header)
  return { name, header, data }
}

/** An uncompressed tar archive of `members`. */
export const write = (members: ReadonlyArray<Member>): Uint8Array<ArrayBuffer> => {
  const size = members.reduce((total, member) => total + BLOCK + Math.ceil(member.data.length / BLOCK) * BLOCK, 0)
  const archive = new Uint8Array(size + 2 * BLOCK)
  let offset = 0
  for (const member of members) {
    archive.set(member.header, offset)
    archive.set(member.data, offset + BLOCK)
    offset += BLOCK + Math.ceil(member.data.length / BLOCK) * BLOCK
  }
  return archive
}
