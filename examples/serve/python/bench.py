"""Latency of a decision from Python: `guardrun serve` through
guardrun_client (socket and stdio), beside a hook process per event
(`guardrun-hook generic`, as a host without a server pays it) and the hook
shim (`guardrun-hook serve --client generic`, a process per event that
hands it to the server). Standard library only.

    GUARDRUN=.../guardrun GUARDRUN_HOOK=.../guardrun-hook python3 bench.py [ROUNDS]

The events are replay.py's quiet bench (../shared/agentdojo): one session,
one at a time, a ~2 KB third-party output then a send_email per round,
under examples/agentdojo/policy.guard pinned as the user's policy. Prints
the median and p90 per event of each way, in milliseconds, and the CPU
guardrun spent per event (the server's, or the process's per event): on a
loaded machine wall times grow with the wait for a CPU, CPU times less.
"""

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import guardrun_client as gc  # noqa: E402
from test_guardrun_client import private_home, wait_for_socket  # noqa: E402

PAGE = "- body: " + "lorem ipsum dolor sit amet " * 80 + "\n  sender: someone"


def events(sid, rounds):
    yield "prompt.submit", {"session": sid, "text": "Please email the notes to john.doe@clientcorp.com"}
    for i in range(rounds):
        yield "tool.after", {"session": sid, "tool": "read_channel_messages", "input": {"channel": "general"},
                             "output": PAGE + str(i)}
        yield "tool.before", {"session": sid, "tool": "send_email", "input": {
            "recipients": ["john.doe@clientcorp.com"], "subject": "notes", "body": f"notes {i}"}}


def timed(send, sid, rounds, cwd):
    times, denied = [], 0
    for kind, data in events(sid, rounds):
        data["cwd"] = cwd
        t0 = time.perf_counter()
        ok = send(kind, data)
        times.append(time.perf_counter() - t0)
        denied += not ok
    return times, denied


def report(name, times, denied, cpu):
    q = statistics.quantiles(times, n=10)
    print(f"{name:46s} median {1000 * statistics.median(times):7.3f} ms   p90 {1000 * q[8]:7.3f} ms   "
          f"guardrun CPU {1000 * cpu / len(times):6.3f} ms/event   ({len(times)} events, {denied} not allowed)")
    return statistics.median(times)


def proc_cpu(pid):
    """User and system CPU seconds process pid has used (Linux)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measured(send, sid, rounds, cwd, cpu):
    """timed, and the CPU cpu() counts over it."""
    c0 = cpu()
    times, denied = timed(send, sid, rounds, cwd)
    return times, denied, cpu() - c0


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    guardrun, hook = os.environ["GUARDRUN"], os.environ.get("GUARDRUN_HOOK", "")
    tmp = tempfile.mkdtemp(prefix="guardrun-bench-")
    procs = []
    try:
        env = private_home(tmp)
        cwd = os.path.join(tmp, "work")
        os.mkdir(cwd)
        sock = os.path.join(env["XDG_STATE_HOME"], "guardrun", "serve.sock")
        p = subprocess.Popen([guardrun, "serve"], env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        procs.append(p)
        wait_for_socket(sock, p)
        print(f"guardrun serve, python {sys.version.split()[0]}, {rounds} rounds (1 + 2x{rounds} events), "
              f"examples/agentdojo/policy.guard")
        medians = {}
        with gc.Guardrun.connect(sock) as g:
            timed(lambda k, d: g.request(k, d).get("continue"), "warmup", 20, cwd)
            medians["socket"] = report("serve, Unix socket (guardrun_client)",
                                       *measured(lambda k, d: g.request(k, d).get("continue"), "sock", rounds, cwd,
                                                 lambda: proc_cpu(p.pid)))
        with gc.Guardrun.spawn(guardrun, env=env) as g:
            timed(lambda k, d: g.request(k, d).get("continue"), "warmup2", 20, cwd)
            pid = int(g.where.rsplit("pid ", 1)[1].rstrip(")"))
            medians["stdio"] = report("serve --stdio (guardrun_client.spawn)",
                                      *measured(lambda k, d: g.request(k, d).get("continue"), "stdio", rounds, cwd,
                                                lambda: proc_cpu(pid)))

        def process(argv, e):
            def send(kind, data):
                r = subprocess.run(argv, input=json.dumps({"event": kind, "data": data}), env=e, cwd=cwd,
                                   capture_output=True, text=True, timeout=60)
                return r.returncode == 0 and json.loads(r.stdout).get("continue")
            return send

        few = max(10, rounds // 5)
        shim = [hook, "serve", "--client", "generic"] if hook else [guardrun, "serve", "--client", "generic"]
        # The shim's CPU is its own process's; the server's share is the
        # socket's line above.
        medians["shim"] = report(f"a process per event: {os.path.basename(shim[0])} serve --client",
                                 *measured(process(shim, env), "shim", few, cwd, children_cpu))
        if hook:
            medians["hook"] = report("a process per event: guardrun-hook generic",
                                     *measured(process([hook, "generic"], env), "hook", few, cwd, children_cpu))
            print(f"\nserve from Python is {medians['hook'] / medians['socket']:.1f}x faster than a hook process "
                  f"per event")
    finally:
        for p in procs:
            p.terminate()
            p.wait(timeout=10)
            p.stderr.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
