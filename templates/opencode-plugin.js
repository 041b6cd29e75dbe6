// Kanbus work-in-progress reminder for OpenCode after a compaction, written by nowhook (https://github.com/nowhook/nowhook).
// OpenCode has no shell hooks; it loads every *.js file in .opencode/plugins/.
// After a compaction this plugin runs nowhook's wrapper script,
// .opencode/hooks/kanbus-compaction-right-now.sh, the one the other agents'
// compact hooks run (it prints the reminder or nothing and always exits 0),
// and adds what it printed, once, to the system prompt of the session's next
// request to the model. A manual compaction (/compact) ends with the
// session.compacted event; an automatic one first calls
// experimental.compaction.autocontinue, right before the request that
// continues the work. The wrapper gets @LIMIT_SECONDS@ seconds (its budget
// for kbs plus a margin); when it fails, runs out of time or prints nothing,
// nothing is added. Where the reminder's sources hold rules (nowhook setup
// --sources), the wrapper's payload also carries the messages the user
// typed in the session (user_messages, oldest first, at most 128 KiB: the
// first and the newest), which OpenCode keeps through a compaction and the
// wrapper quotes; otherwise they are not read. Plain JavaScript, no
// dependencies.
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const wrapper = fileURLToPath(new URL("../hooks/kanbus-compaction-right-now.sh", import.meta.url))
const limitMs = @LIMIT_SECONDS@ * 1000
const maxBytes = 65536
const maxWords = 131072
const wordsMs = 2000
const wantWords = @RULES@

// userMessages resolves to the text of the messages the user typed in the
// session, oldest first: not the parts OpenCode adds itself (synthetic,
// ignored), not its compaction request; the first and then the newest, at
// most maxWords bytes; [] when OpenCode does not answer within wordsMs.
async function userMessages(client, sessionID) {
  let timer
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve([]), wordsMs)
  })
  const read = (async () => {
    try {
      const r = await client.session.messages({ path: { id: sessionID } })
      const list = Array.isArray(r?.data) ? r.data : []
      const texts = []
      for (const m of list) {
        if (m?.info?.role !== "user" || !Array.isArray(m.parts)) continue
        const text = m.parts
          .filter((p) => p?.type === "text" && !p.synthetic && !p.ignored && typeof p.text === "string")
          .map((p) => p.text)
          .join("\n")
          .trim()
        if (text !== "") texts.push(text)
      }
      if (texts.length === 0) return []
      const kept = [texts[0]]
      let size = Buffer.byteLength(texts[0])
      const newest = []
      for (let i = texts.length - 1; i > 0; i--) {
        size += Buffer.byteLength(texts[i])
        if (size > maxWords) break
        newest.unshift(texts[i])
      }
      return kept.concat(newest)
    } catch {
      return []
    }
  })()
  try {
    return await Promise.race([read, late])
  } finally {
    clearTimeout(timer)
  }
}

// reminder runs the wrapper with a compact SessionStart payload, as the
// other agents' hooks do, in its own process group, and resolves to what it
// printed, or to "" when it failed, printed too much or ran out of time.
async function reminder(client, sessionID, directory) {
  const words = client && wantWords ? await userMessages(client, sessionID) : []
  return new Promise((resolve) => {
    let child
    let done = false
    let size = 0
    const chunks = []
    const finish = (text) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve(text)
    }
    const stop = () => {
      try {
        process.kill(-child.pid, "SIGKILL")
      } catch {}
      finish("")
    }
    const timer = setTimeout(stop, limitMs)
    try {
      child = spawn(wrapper, [], { cwd: directory, detached: true, stdio: ["pipe", "pipe", "ignore"] })
      child.on("error", () => finish(""))
      child.stdin.on("error", () => {})
      child.stdout.on("data", (b) => {
        size += b.length
        if (size > maxBytes) stop()
        else chunks.push(b)
      })
      child.on("close", (code) => finish(code === 0 ? Buffer.concat(chunks).toString("utf8").trim() : ""))
      const payload = { session_id: sessionID, cwd: directory, hook_event_name: "SessionStart", source: "compact" }
      if (wantWords) payload.user_messages = words
      child.stdin.end(JSON.stringify(payload) + "\n")
    } catch {
      stop()
    }
  })
}

export const KanbusCompactionRightNow = async ({ directory, client }) => {
  // pending: per session, the reminder of its last compaction, until the
  // next request to the model takes it.
  const pending = new Map()
  // started: sessions whose automatic compaction started the reminder
  // already (autocontinue), so that its session.compacted starts none.
  const started = new Set()
  const start = (sessionID) => {
    if (typeof sessionID === "string" && sessionID !== "") {
      pending.set(sessionID, reminder(client, sessionID, directory))
    }
  }
  return {
    "experimental.session.compacting": async (input) => {
      // A new compaction begins: whatever an earlier one left is stale,
      // and the summary request that follows gets nothing.
      pending.delete(input?.sessionID)
      started.delete(input?.sessionID)
    },
    "experimental.compaction.autocontinue": async (input) => {
      start(input?.sessionID)
      started.add(input?.sessionID)
    },
    event: async ({ event }) => {
      if (event?.type !== "session.compacted") return
      const sessionID = event.properties?.sessionID
      if (started.delete(sessionID)) return
      start(sessionID)
    },
    "experimental.chat.system.transform": async (input, output) => {
      const text = pending.get(input?.sessionID)
      if (text === undefined) return
      pending.delete(input.sessionID)
      const printed = await text
      if (printed !== "" && Array.isArray(output?.system)) output.system.push(printed)
    },
  }
}
