// A persistent mlld 2.0.5 for the differential harness (docs/differential.md):
// loading mlld's 7 MB CLI bundle is most of a run's CPU, so this loads it
// once and runs each request (cwd, args) in turn, capturing stdout,
// stderr and the exit code. A request that runs past its time limit
// ends the server (run.sh starts it again), so no run leaks into the next.
//   MLLD_CLI=~/.cache/mlld-peer/mlld/dist/cli.cjs node --no-warnings server.cjs SOCKET
const fs = require('fs'), vm = require('vm'), path = require('path'), Module = require('module'), net = require('net');
const file = process.env.MLLD_CLI;
let src = fs.readFileSync(file, 'utf8');
if (src.startsWith('#!')) src = '//' + src.slice(2);
const marker = '{\n  const args = process.argv.slice(2);';
const at = src.lastIndexOf(marker);
if (at < 0) { console.error('no main block'); process.exit(2); }
src = src.slice(0, at) + '\nmodule.exports.__main = main;\n';
const script = new vm.Script(Module.wrap(src), { filename: file, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
const m = new Module(file, null);
m.filename = file;
m.paths = Module._nodeModulePaths(path.dirname(file));
script.runInThisContext().call(m.exports, m.exports, Module.createRequire(file), m, file, path.dirname(file));
const main = m.exports.__main;

const realOut = process.stdout.write.bind(process.stdout);
const realErr = process.stderr.write.bind(process.stderr);
const realExit = process.exit;
const home = process.cwd();

let queue = Promise.resolve();
function runOne(req) {
  return new Promise((resolve) => {
    let out = '', err = '', done = false;
    const finish = (code) => {
      if (done) return; done = true;
      process.stdout.write = realOut; process.stderr.write = realErr; process.exit = realExit;
      try { process.chdir(home); } catch (e) {}
      resolve({ stdout: out, stderr: err, exit: code });
    };
    process.stdout.write = (c, enc, cb) => { out += typeof c === 'string' ? c : Buffer.from(c).toString(); if (typeof enc === 'function') enc(); else if (cb) cb(); return true; };
    process.stderr.write = (c, enc, cb) => { err += typeof c === 'string' ? c : Buffer.from(c).toString(); if (typeof enc === 'function') enc(); else if (cb) cb(); return true; };
    let exitCode = null;
    process.exit = (code) => { if (exitCode === null) exitCode = code ?? 0; };
    const timer = setTimeout(() => { finish(-2); setTimeout(() => realExit(3), 50); }, req.timeoutMs || 15000);
    try { process.chdir(req.cwd); } catch (e) { clearTimeout(timer); finish(-3); return; }
    Promise.resolve().then(() => main(req.args)).then(
      () => setTimeout(() => { clearTimeout(timer); finish(exitCode ?? 0); }, 10),
      (error) => {
        const handled = Boolean(error && typeof error === 'object' && error.__mlldHandled === true);
        if (!handled) console.error(error);
        setTimeout(() => { clearTimeout(timer); finish(exitCode ?? 1); }, 10);
      });
  });
}
process.on('uncaughtException', (e) => { realErr('uncaught: ' + (e && e.stack) + '\n'); });
process.on('unhandledRejection', (e) => { realErr('unhandled: ' + (e && e.stack) + '\n'); });

const sock = process.argv[2];
try { fs.unlinkSync(sock); } catch (e) {}
net.createServer((c) => {
  let buf = '';
  c.on('data', (d) => {
    buf += d;
    const nl = buf.indexOf('\n');
    if (nl < 0) return;
    const req = JSON.parse(buf.slice(0, nl));
    queue = queue.then(() => runOne(req)).then((res) => { c.end(JSON.stringify(res) + '\n'); });
  });
}).listen(sock, () => realErr('mlld server on ' + sock + '\n'));
