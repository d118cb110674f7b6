// The mlld-ref stand-in that asks a running server.cjs: `MLLD_SOCK=S1[,S2]
// node client.cjs ARGS` prints what `mlld-ref ARGS` would in this directory.
const net = require('net');
const socks = process.env.MLLD_SOCK.split(',');
const sock = socks[process.pid % socks.length];
const start = Date.now();
function attempt() {
  const c = net.createConnection(sock, () => {
    c.write(JSON.stringify({ cwd: process.cwd(), args: ['--no-stream', ...process.argv.slice(2)], timeoutMs: 15000 }) + '\n');
  });
  let buf = '';
  c.on('data', (d) => { buf += d; });
  c.on('end', () => {
    if (!buf) { process.exitCode = 125; return; }
    const r = JSON.parse(buf);
    if (r.exit === -2) { setTimeout(() => {}, 60000); return; } // let the harness time it out
    process.stdout.write(r.stdout); process.stderr.write(r.stderr);
    process.exitCode = r.exit < 0 ? 125 : r.exit;
  });
  c.on('error', (e) => {
    if (Date.now() - start < 30000) { setTimeout(attempt, 500); return; }
    process.stderr.write('client: ' + e.message + '\n'); process.exitCode = 125;
  });
}
attempt();
