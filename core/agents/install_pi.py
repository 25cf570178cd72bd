"""pi's side: one extension file that calls the CLI (pi has no command hooks and no MCP).

Per pi-mono's `docs/extensions.md`: extensions are TypeScript modules auto-discovered in
`~/.pi/agent/extensions/*.ts` (user; `$PI_CODING_AGENT_DIR/extensions` when that is set) and
`<project>/.pi/extensions/*.ts` (project, once trusted), loaded through jiti without a build
step. Ours subscribes to `before_agent_start` — appends the core to the system prompt and
adds the recall as a hidden message, the two ways that event allows — and to
`session_shutdown` (import + finish). Both run `scriptorium hook pi EVENT` with a JSON
document on stdin (core/agents/pi.py has the protocol) and never throw into pi.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .config_json import ConfigError
from .target import Edit, FileRecord, Target, read_text, state_arg

FILE_NAME = "scriptorium.ts"
MARKER = "// scriptorium-memory extension: written by `scriptorium install pi`; `scriptorium uninstall pi` removes it."
TIMEOUT_MS = 5000

_TEMPLATE = """__MARKER__
// It runs the scriptorium CLI; nothing here imports pi's packages, so it works across pi versions.
import { execFile } from "node:child_process";

const COMMAND = __COMMAND__;
const ARGS = __ARGS__;
const TIMEOUT_MS = __TIMEOUT__;

type Answer = { core?: unknown; recall?: unknown };

function hook(event: string, payload: Record<string, unknown>): Promise<Answer> {
  return new Promise((resolve) => {
    try {
      const child = execFile(COMMAND, [...ARGS, "hook", "pi", event], { timeout: TIMEOUT_MS, encoding: "utf8" },
        (error, stdout) => {
          if (error || !stdout) return resolve({});
          try { resolve(JSON.parse(stdout) as Answer); } catch { resolve({}); }
        });
      child.stdin?.end(JSON.stringify(payload));
    } catch {
      resolve({});
    }
  });
}

function session(ctx: any): Record<string, unknown> {
  const manager = ctx?.sessionManager;
  return {
    session_id: manager?.getSessionId?.() ?? null,
    session_file: manager?.getSessionFile?.() ?? null,
    cwd: ctx?.cwd ?? process.cwd(),
  };
}

export default function (pi: any) {
  pi.on("before_agent_start", async (event: any, ctx: any) => {
    const answer = await hook("before-agent-start", { ...session(ctx), prompt: event?.prompt ?? "" });
    const result: Record<string, unknown> = {};
    if (typeof answer.core === "string" && answer.core) {
      result.systemPrompt = `${event.systemPrompt ?? ""}\\n\\n${answer.core}`;
    }
    if (typeof answer.recall === "string" && answer.recall) {
      result.message = { customType: "scriptorium-recall", content: answer.recall, display: false };
    }
    return result;
  });

  pi.on("session_shutdown", async (event: any, ctx: any) => {
    await hook("session-shutdown", { ...session(ctx), reason: event?.reason ?? null });
  });
}
"""


def extension_path(target: Target) -> Path:
    if target.scope == "project":
        return target.project / ".pi" / "extensions" / FILE_NAME
    env = os.environ.get("PI_CODING_AGENT_DIR")
    base = Path(env).expanduser() if env else target.home / ".pi" / "agent"
    return base / "extensions" / FILE_NAME


def render(target: Target) -> str:
    argv = target.argv()
    return (_TEMPLATE.replace("__MARKER__", MARKER).replace("__COMMAND__", json.dumps(argv[0]))
            .replace("__ARGS__", json.dumps(argv[1:])).replace("__TIMEOUT__", str(TIMEOUT_MS)))


def _ours(text: str | None) -> bool:
    return text is not None and text.startswith(MARKER)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def edited(target: Target, text: str | None, record: FileRecord) -> bool:
    """Whether our extension file differs from what install wrote (the user changed it):
    the recorded digest, or without a record this installation's rendering."""
    if text is None:
        return False
    return digest(text) != (record.written if record.known and record.written else digest(render(target)))


def _edit(target: Target, action: str) -> Edit:
    path = extension_path(target)

    def edit(before: str | None, record: FileRecord) -> str | None:
        if before is not None and not _ours(before):
            raise ConfigError(f"{path} exists and was not written by scriptorium; move it aside first")
        if action == "install":
            after = render(target)
            record.written = digest(after)
            return after
        return before if edited(target, before, record) else None

    return edit


def edits(target: Target, action: str) -> list[tuple[Path, Edit]]:
    return [(extension_path(target), _edit(target, action))]


def notes(target: Target, action: str, records: dict[Path, FileRecord]) -> list[str]:
    if action == "install":
        return ["Running pi sessions pick the extension up after /reload."]
    path = extension_path(target)
    text = read_text(path)
    if _ours(text) and edited(target, text, records.get(path, FileRecord())):
        return [f"kept {path}: it was changed after install (remove it yourself if you no longer want it)"]
    return []


def present(target: Target) -> dict[Path, bool]:
    path = extension_path(target)
    return {path: _ours(read_text(path))}


def states(target: Target) -> dict[Path, set[str | None]]:
    """The state directory our extension points at (its ARGS line)."""
    path = extension_path(target)
    text = read_text(path)
    if not _ours(text):
        return {path: set()}
    assert text is not None
    for line in text.splitlines():
        if line.startswith("const ARGS = "):
            try:
                args = json.loads(line[len("const ARGS = "):].rstrip(";"))
            except ValueError:
                break
            return {path: {state_arg(["scriptorium", *map(str, args)])}}
    return {path: {None}}
