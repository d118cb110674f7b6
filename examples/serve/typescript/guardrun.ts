// A client of `guardrun serve` for TypeScript and JavaScript agents (Node's
// standard library only). One JSON request per line each way (see
// docs/agents.md, "guardrun serve"):
//
//   request  {"id": 1, "event": "tool.before", "data": {"session": ..., "tool": ..., "input": {...}}}
//   reply    {"id": 1, "continue": true}              (or false, with "systemMessage")
//
// Every error (no server, a closed connection, an unreadable reply, no
// reply in time) is a refusal whose reason says what went wrong: the
// client fails closed. Requests on one client are answered in order.

import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";

/** The generic protocol's answer, as the server sends it. */
export interface Reply {
  id?: number;
  continue: boolean;
  decision?: "ask" | "retry";
  systemMessage?: string;
  message?: string;
  data?: unknown;
  error?: string;
}

/** What guardrun decided about one event. */
export interface Decision {
  outcome: "allow" | "deny" | "ask" | "retry";
  allowed: boolean;
  /** Why not, for the model. */
  reason: string;
  /** The input (tool.before) or output (tool.after) to go on with; a policy may rewrite it. */
  data: unknown;
  /** guardrun could not decide (the reply's "error"). */
  failed: boolean;
  reply: Reply;
}

/** The server's socket: serve.sock in guardrun's state directory. */
export function defaultSocket(): string {
  let base = process.env.XDG_STATE_HOME ?? "";
  if (!path.isAbsolute(base)) base = path.join(os.homedir(), ".local", "state");
  return path.join(base, "guardrun", "serve.sock");
}

/** Reads a generic-protocol answer. */
export function decisionOf(reply: Reply, data?: unknown): Decision {
  if (typeof reply?.continue !== "boolean") {
    const r = "guardrun: unreadable answer from the decision server";
    return { outcome: "deny", allowed: false, reason: r, data, failed: true, reply };
  }
  if (reply.continue) {
    return { outcome: "allow", allowed: true, reason: reply.systemMessage ?? "", data: reply.data ?? data, failed: false, reply };
  }
  const outcome = reply.decision === "ask" ? "ask" : reply.decision === "retry" ? "retry" : "deny";
  return { outcome, allowed: false, reason: reply.systemMessage || reply.error || "guardrun: denied", data, failed: "error" in reply, reply };
}

type Pending = { id: number; resolve: (r: Reply) => void; timer: NodeJS.Timeout };

/** One connection to `guardrun serve`. */
export class Guardrun {
  private sock: net.Socket;
  private buf = "";
  private next = 0;
  private pending: Pending[] = [];
  private broken = "";

  private constructor(sock: net.Socket, readonly where: string, readonly timeoutMs: number) {
    this.sock = sock;
    sock.setEncoding("utf8");
    sock.on("data", (chunk: string) => this.read(chunk));
    sock.on("error", (e) => this.fail(e.message));
    sock.on("close", () => this.fail("the server closed the connection"));
  }

  /** Connects to the server's Unix socket (defaultSocket()). */
  static connect(socketPath: string = defaultSocket(), timeoutMs = 10_000): Promise<Guardrun> {
    return new Promise((resolve, reject) => {
      const s = net.createConnection(socketPath);
      s.once("connect", () => resolve(new Guardrun(s, socketPath, timeoutMs)));
      s.once("error", reject);
    });
  }

  close(): void {
    this.sock.end();
  }

  /** Sends one event; the reply, or a refusal's reply on any error. */
  request(event: string, data: Record<string, unknown>): Promise<Reply> {
    const id = ++this.next;
    if (this.broken) return Promise.resolve(this.refusal(this.broken));
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.fail(`no reply within ${this.timeoutMs} ms`), this.timeoutMs);
      this.pending.push({ id, resolve, timer });
      this.sock.write(JSON.stringify({ id, event, data }) + "\n");
    });
  }

  prompt(session: string, text: string, cwd = process.cwd()): Promise<Decision> {
    return this.request("prompt.submit", { session, cwd, text }).then((r) => decisionOf(r));
  }

  before(session: string, tool: string, input: Record<string, unknown>, cwd = process.cwd()): Promise<Decision> {
    return this.request("tool.before", { session, cwd, tool, input }).then((r) => decisionOf(r, input));
  }

  after(session: string, tool: string, input: Record<string, unknown>, output: unknown, error = "", cwd = process.cwd()): Promise<Decision> {
    const data: Record<string, unknown> = { session, cwd, tool, input, output };
    if (error) data.error = error;
    return this.request("tool.after", data).then((r) => decisionOf(r, output));
  }

  private read(chunk: string): void {
    this.buf += chunk;
    let nl: number;
    while ((nl = this.buf.indexOf("\n")) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      const p = this.pending.shift();
      if (!p) continue;
      clearTimeout(p.timer);
      let r: Reply;
      try {
        r = JSON.parse(line);
        if (r.id !== p.id) r = this.refusal(`reply to request ${r.id}, not ${p.id}`);
      } catch (e) {
        r = this.refusal("unreadable reply");
      }
      p.resolve(r);
    }
  }

  private fail(why: string): void {
    this.broken ||= why;
    for (const p of this.pending.splice(0)) {
      clearTimeout(p.timer);
      p.resolve(this.refusal(why));
    }
    this.sock.destroy();
  }

  private refusal(why: string): Reply {
    const msg = `guardrun: decision server ${this.where}: ${why}`;
    return { continue: false, systemMessage: msg, error: msg };
  }
}
