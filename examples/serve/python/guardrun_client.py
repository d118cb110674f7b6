"""A client of `guardrun serve` for Python agents, standard library only.

guardrun decides whether a tool call may run (and records what a tool
brought back) with your policies; `guardrun serve` keeps them loaded in one
process, so a decision costs a fraction of a millisecond. The wire format
is one JSON object per line each way (see docs/agents.md, "guardrun
serve"):

    request  {"id": 1, "event": "tool.before", "data": {"session": ..., "tool": ..., "input": {...}}}
    reply    {"id": 1, "continue": true}                       # or false, with "systemMessage"

Usage:

    from guardrun_client import Guardrun

    with Guardrun.connect() as g:             # the server's socket (guardrun serve)
    # or: with Guardrun.spawn() as g:         # a private server on a pipe (guardrun serve --stdio)
        g.prompt("s1", user_prompt)
        d = g.before("s1", "send_money", {"recipient": iban, "amount": 10})
        if d.allowed:
            out = send_money(**d.input)
            g.after("s1", "send_money", d.input, out)
        else:
            tell_the_model(d.reason)

Every error (no server, a broken connection, an unreadable reply) is a
refusal whose reason says what went wrong: the client fails closed. One
client sends one request at a time (a lock keeps threads in turn); open a
client per thread for decisions at once.
"""

import io
import json
import os
import socket
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Any, Optional

ALLOW, DENY, ASK, RETRY = "allow", "deny", "ask", "retry"


def default_socket() -> str:
    """The server's socket: serve.sock in guardrun's state directory
    ($XDG_STATE_HOME/guardrun, or ~/.local/state/guardrun)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "guardrun", "serve.sock")


@dataclass
class Decision:
    """What guardrun decided about one event."""

    outcome: str  # allow, deny, ask (a person must approve) or retry
    reason: str = ""  # why not, for the model (systemMessage)
    input: Any = None  # the input to run the tool with (a policy may rewrite it)
    message: str = ""  # a message for the user, when the policy has one
    failed: bool = False  # guardrun could not decide (the reply's "error")
    raw: dict = field(default_factory=dict)

    @property
    def allowed(self) -> bool:
        return self.outcome == ALLOW


def decision_of(reply: dict, data: Any = None) -> Decision:
    """Reads a generic-protocol answer (the server's reply)."""
    if not isinstance(reply, dict) or not isinstance(reply.get("continue"), bool):
        return Decision(DENY, "guardrun: unreadable answer from the decision server", failed=True, raw=reply or {})
    if reply["continue"]:
        return Decision(ALLOW, input=reply.get("data", data), message=reply.get("message", ""),
                        reason=reply.get("systemMessage", ""), raw=reply)
    outcome = {"ask": ASK, "retry": RETRY}.get(reply.get("decision"), DENY)
    return Decision(outcome, reply.get("systemMessage") or reply.get("error") or "guardrun: denied",
                    input=data, message=reply.get("message", ""), failed="error" in reply, raw=reply)


class Guardrun:
    """One connection to a guardrun decision server."""

    def __init__(self, reader, writer, closer, where: str):
        self._r, self._w, self._close, self.where = reader, writer, closer, where
        self._lock = threading.Lock()
        self._id = 0

    @classmethod
    def connect(cls, path: Optional[str] = None, timeout: float = 10.0) -> "Guardrun":
        """Connects to `guardrun serve` on its Unix socket (default_socket())."""
        path = path or default_socket()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(path)
        except OSError:
            s.close()
            raise
        # Replies are read buffered (a raw socket file's readline reads a
        # byte per system call); requests are written unbuffered.
        r, w = s.makefile("rb"), s.makefile("wb", buffering=0)

        def close():
            r.close()
            w.close()
            s.close()

        return cls(r, w, close, path)

    @classmethod
    def spawn(cls, guardrun: str = "guardrun", args=(), env=None) -> "Guardrun":
        """Starts a private `guardrun serve --stdio ARGS` and talks to it on
        its stdin and stdout; it ends with the client."""
        p = subprocess.Popen([guardrun, "serve", "--stdio", *args], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, env=env, bufsize=0)
        # Replies are read buffered (readline on the raw pipe reads a byte
        # per system call); a pipe's read returns what is there, so a
        # reply's line is never waited past.
        r = io.BufferedReader(p.stdout)

        def close():
            p.stdin.close()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            r.close()

        return cls(r, p.stdin, close, f"{guardrun} serve --stdio (pid {p.pid})")

    def close(self):
        self._close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def request(self, event: str, data: dict) -> dict:
        """Sends one event and returns the server's reply (a dict); an
        error is a refusal's reply, never an exception."""
        with self._lock:
            self._id += 1
            rid = self._id
            try:
                line = json.dumps({"id": rid, "event": event, "data": data}, separators=(",", ":"),
                                  default=str).encode() + b"\n"
                self._w.write(line)
                reply = self._r.readline()
                if not reply:
                    raise OSError("the server closed the connection")
                ans = json.loads(reply)
                if ans.get("id") != rid:
                    raise ValueError(f"reply to request {ans.get('id')!r}, not {rid}")
                return ans
            except (OSError, ValueError) as e:
                msg = f"guardrun: decision server {self.where}: {e}"
                return {"continue": False, "systemMessage": msg, "error": msg}

    def prompt(self, session: str, text: str, cwd: Optional[str] = None) -> Decision:
        """The user's prompt (prompt.submit): what they typed is known,
        trusted text for the session."""
        return decision_of(self.request("prompt.submit", _data(session, cwd, text=text)))

    def before(self, session: str, tool: str, input: dict, cwd: Optional[str] = None) -> Decision:
        """May the tool run with input? (tool.before)"""
        return decision_of(self.request("tool.before", _data(session, cwd, tool=tool, input=input)), input)

    def after(self, session: str, tool: str, input: dict, output: Any, error: str = "",
              cwd: Optional[str] = None) -> Decision:
        """What the tool returned (tool.after): its output is labelled for
        the rest of the session. A refusal means the output must not reach
        the model (or reaches it as the policy rewrote it: Decision.input)."""
        d = _data(session, cwd, tool=tool, input=input, output=output)
        if error:
            d["error"] = error
        return decision_of(self.request("tool.after", d), output)

    def stop(self, session: str, cwd: Optional[str] = None) -> Decision:
        """The agent wants to end its turn (agent.stop)."""
        return decision_of(self.request("agent.stop", _data(session, cwd)))


def _data(session, cwd, **kw):
    d = {"session": session, "cwd": cwd or os.getcwd()}
    d.update(kw)
    return d
