/**
 * CPU time of processes, from `/proc` (Linux): wall-clock figures on a shared machine are noisy,
 * CPU time per unit of work is not. `cpuMs(pid)` is user + system time; `localPorts(pid)` the
 * local TCP ports of a process's sockets, to tell which PostgreSQL backend (`client_port` in
 * `pg_stat_activity`) serves which process. Elsewhere than Linux both answer nothing.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs"

const TICK_MS = 10 // USER_HZ is 100 on Linux

/** User + system CPU milliseconds of `pid` so far (0 when it is gone). */
export const cpuMs = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS
  } catch {
    return 0
  }
}

/** The local ports of `pid`'s TCP sockets (IPv4 and IPv6). */
export const localPorts = (pid: number): ReadonlySet<number> => {
  const inodes = new Set<string>()
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
        if (match !== null) inodes.add(match[1])
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return new Set()
  }
  const ports = new Set<number>()
  for (const table of ["tcp", "tcp6"]) {
    let text = ""
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, "utf8")
    } catch {
      continue
    }
    for (const line of text.split("\n").slice(1)) {
      const columns = line.trim().split(/\s+/)
      if (columns.length > 9 && inodes.has(columns[9])) ports.add(parseInt(columns[1].split(":")[1], 16))
    }
  }
  return ports
}
