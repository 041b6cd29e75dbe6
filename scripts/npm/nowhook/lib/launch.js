"use strict";
// The launcher of the npm package nowhook. npm installs, beside it, the one
// package of nowhook-<platform>-<arch> (an optionalDependency) whose os and
// cpu fields match the machine; that package holds the Go binaries. This
// file finds the binary there and runs it with the same arguments, standard
// streams and environment, and ends the way the binary ended (its exit
// code, or the signal that stopped it). Nothing is downloaded, here or at
// install time: the package has no install script.
//
// scripts/release.sh copies this folder, scripts/npm/nowhook, into the
// package and writes its package.json beside it.

const fs = require("fs");
const path = require("path");
const childProcess = require("child_process");
const os = require("os");

// manifest is this package's package.json, written by scripts/release.sh:
// its version is the binaries' version, and its optionalDependencies name
// the platform packages, nowhook-<process.platform>-<process.arch>.
function manifest() {
  try {
    return require("../package.json");
  } catch (e) {
    return {};
  }
}

function platforms() {
  return Object.keys(manifest().optionalDependencies || {})
    .filter((name) => name.startsWith("nowhook-"))
    .map((name) => name.slice("nowhook-".length));
}

// The signals a parent sends to stop a command, passed on to the binary
// when it runs as a child process (older Node, Windows).
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];

function launcherVersion() {
  return manifest().version || "";
}

// hookMode: the binary was asked for the hook runtime. A hook must exit 0
// whatever happens (the agent's session goes on either way), so a launch
// that fails says why on stderr and exits 0 there, printing nothing.
function hookMode(name, args) {
  if (name === "nowhook-reminder") {
    return !(args.length === 1 && ["--version", "-version", "version"].includes(args[0]));
  }
  return args[0] === "reminder";
}

function fail(name, args, message) {
  process.stderr.write(name + " (npm launcher): " + message + "\n");
  process.exit(hookMode(name, args) ? 0 : 1);
}

// binaryPath returns the path of the binary NAME in the platform package,
// or fails with what is missing and how to get it.
function binaryPath(name, args) {
  const version = launcherVersion();
  const at = version ? "@" + version : "";
  const key = process.platform + "-" + process.arch;
  if (!platforms().includes(key)) {
    fail(name, args,
      "npm has no nowhook binary for this system (" + key + "): nowhook's npm packages cover " +
      platforms().join(", ") + ". With Go 1.26 or later, build it instead: " +
      "go install github.com/nowhook/nowhook/cmd/nowhook" + (version ? "@v" + version : "@latest") +
      " github.com/nowhook/nowhook/cmd/nowhook-reminder" + (version ? "@v" + version : "@latest"));
  }
  const pkg = "nowhook-" + key;
  const file = name + (process.platform === "win32" ? ".exe" : "");
  let dir;
  try {
    dir = path.dirname(require.resolve(pkg + "/package.json"));
  } catch (e) {
    fail(name, args,
      "the package " + pkg + ", which holds nowhook's binaries for this system, is not installed " +
      "(npm leaves optional dependencies out with --omit=optional or --no-optional, or when the lock file " +
      "was made on another system). Install it: npm install -g nowhook" + at + " (or npm install " + pkg + at + ")");
  }
  const bin = path.join(dir, "bin", file);
  if (!fs.existsSync(bin)) {
    fail(name, args, pkg + " is installed at " + dir + " but has no bin/" + file + "; reinstall it: npm install -g nowhook" + at);
  }
  return bin;
}

// onOwnPath reports whether nowhook-reminder or nowhook is on PATH outside
// the folders that npm adds for the command it runs (node_modules/.bin,
// npx's cache): the PATH an agent gives its hooks has none of those.
function onOwnPath() {
  const names = process.platform === "win32"
    ? ["nowhook-reminder.cmd", "nowhook-reminder.exe", "nowhook.cmd", "nowhook.exe"]
    : ["nowhook-reminder", "nowhook"];
  for (const dir of (process.env.PATH || "").split(path.delimiter)) {
    const d = dir.replace(/[\\/]+$/, "");
    if (!d || /[\\/]node_modules[\\/]\.bin$/.test(d) || /node-gyp-bin$/.test(d)) {
      continue;
    }
    for (const n of names) {
      try {
        fs.accessSync(path.join(d, n), fs.constants.X_OK);
        return true;
      } catch (e) {
        // Not there; look on.
      }
    }
  }
  return false;
}

// noteNpx: setup run by npx (or an npm script) writes hooks that run
// nowhook from PATH, where npx leaves nothing: say so before setup runs,
// unless nowhook is installed there already. Not for --check, --dry-run
// or --help, which write no hook.
function noteNpx(name, args) {
  const writes = !args.some((a) => /^--?(check|dry-run|help|h)(=|$)/.test(a));
  if (name !== "nowhook" || args[0] !== "setup" || !writes || !process.env.npm_command || onOwnPath()) {
    return;
  }
  const version = launcherVersion();
  process.stderr.write(
    "nowhook: note: the hooks setup writes run nowhook-reminder or nowhook from PATH, and this nowhook " +
    "runs from npm's own folders (npx's cache or node_modules/.bin), which the PATH of an agent's hooks " +
    "lacks; install it for the hooks, on each teammate's machine too: npm install -g nowhook" +
    (version ? "@" + version : "") +
    " (until then the hooks use their python3 fallback, or print nothing without python3)\n");
}

// run replaces this process with the binary where Node can (process.execve,
// Node 22.15 and later, not on Windows), so that the agent or the shell
// talks to the binary itself; elsewhere it runs the binary as a child,
// passes the stopping signals on, and mirrors how the child ended.
function run(name) {
  const args = process.argv.slice(2);
  const bin = binaryPath(name, args);
  noteNpx(name, args);
  if (typeof process.execve === "function" && process.platform !== "win32") {
    // Node ignores SIGPIPE and SIGXFSZ, and an ignored signal stays
    // ignored across an exec; with a handler installed instead, the binary
    // starts with the defaults, as it would from a shell.
    process.on("SIGPIPE", () => {});
    process.on("SIGXFSZ", () => {});
    try {
      process.execve(bin, [bin].concat(args), process.env);
    } catch (e) {
      // Fall through to a child process.
    }
  }
  const child = childProcess.spawn(bin, args, { stdio: "inherit" });
  const forward = (signal) => {
    try {
      child.kill(signal);
    } catch (e) {
      // The child has gone already.
    }
  };
  for (const signal of FORWARDED) {
    process.on(signal, forward);
  }
  child.on("error", (err) => fail(name, args, "cannot run " + bin + ": " + err.message));
  child.on("exit", (code, signal) => {
    if (signal) {
      for (const s of FORWARDED) {
        process.removeListener(s, forward);
      }
      // End by the same signal, so that the caller sees 128+N; if the
      // signal does not end Node, exit with that status anyway.
      process.exitCode = 128 + (os.constants.signals[signal] || 0);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code === null ? 1 : code);
  });
}

module.exports = { run };
