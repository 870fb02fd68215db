// Entry point: reads the environment and runs one server process, or a node:cluster primary that forks
// one per share of CPU_LIMIT; with --stdio, one process serving MCP over stdin/stdout (no cluster, no port).
// The same file runs under Node.js, Bun and Deno.
import cluster from 'node:cluster';
import os from 'node:os';
import { parseArgs } from 'node:util';

const env = process.env;
const redisUrl = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const apiUrl = env.API_SERVICE_URL ?? 'http://127.0.0.1:8100';
const serverType = env.SERVER_TYPE ?? 'nodejs';
const { stdio } = parseArgs({ options: { stdio: { type: 'boolean', default: false } } }).values;
const cpuLimit = Number(env.CPU_LIMIT) > 0 ? Number(env.CPU_LIMIT) : os.availableParallelism();
// SESSIONS=1 (the abandoned dimension, docs/server-contract.md): the SDK's stateful transport, which keeps each
// session in the memory of the process that answered its initialize (src/app.ts); unset, stateless as always.
const sessions = env.SESSIONS?.trim() === '1';
// One event loop per granted core: the per-request cost is JavaScript CPU, so more processes than cores
// add heaps, JIT warm-ups and context switches but no throughput (README, "Worker count"). Under SESSIONS=1 one
// process whatever WORKERS/CPU_LIMIT say: node:cluster hands each connection to any worker, so a session's later
// requests would reach workers that do not hold it.
const workers = sessions
  ? 1
  : Number(env.WORKERS) > 0 ? Math.floor(Number(env.WORKERS)) : Math.max(1, Math.round(cpuLimit));
const { bun, deno } = process.versions;
const runtime = bun ? `Bun ${bun}` : deno ? `Deno ${deno}` : `Node.js ${process.version}`;
const port = Number(env.PORT ?? 8080);
const host = env.HOST || '127.0.0.1'; // loopback unless the runtime says otherwise (a container: 0.0.0.0)
// The hosts a request may name (Host, and Origin when a browser sends one): DNS-rebinding protection.
// `*` switches it off, which only the suite's measurement of what the check costs does.
const hostList = (env.ALLOWED_HOSTS || 'localhost,127.0.0.1,[::1]').split(',').map((h) => h.trim()).filter(Boolean);
const allowedHosts = hostList.length === 1 && hostList[0] === '*' ? undefined : hostList;

if (stdio) {
  const { serveOverStdio } = await import('./stdio.js');
  serveOverStdio(redisUrl, apiUrl, serverType);
  console.error(`serving MCP on stdio (${runtime}, 1 process)`);
} else if (workers === 1 || !cluster.isPrimary) {
  // Imported here, not at the top, so that a cluster primary (which serves nothing) stays small.
  const { serve } = await import('./app.js');
  serve({ host, port, allowedHosts, redisUrl, apiUrl, serverType, sessions }, () =>
    cluster.isPrimary && console.log(`listening on ${host}:${port} (${runtime}, 1 process)`),
  );
} else {
  // Share the memory limit between the workers' V8 heaps (JavaScriptCore under Bun sizes itself).
  const memoryMb = Number(env.MEMORY_LIMIT_MB);
  const heap = memoryMb > 0 ? [`--max-old-space-size=${Math.floor((memoryMb * 0.75) / workers)}`] : [];
  if (deno) {
    // Deno's fork gives a child every permission (-A, as a Node child has) unless its execArgv starts with a
    // Deno subcommand and names permissions itself: the workers get what serving needs (as the manifest's
    // stdio command), not the primary's --allow-run.
    const v8 = heap.map((flag) => `--v8-flags=${flag}`);
    cluster.setupPrimary({ execArgv: ['run', '--allow-net', '--allow-env', ...v8] });
  } else if (heap.length && !bun) {
    cluster.setupPrimary({ execArgv: [...process.execArgv, ...heap] });
  }
  let stopping = false;
  let listening = 0;
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on('listening', () => {
    if (++listening === workers) console.log(`listening on :${port} (${runtime}, ${workers} workers, CPU_LIMIT=${cpuLimit})`);
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    if (listening < workers) {
      console.error(`worker ${worker.process.pid} failed during start-up (${signal ?? code})`);
      process.exit(1);
    }
    console.error(`worker ${worker.process.pid} died (${signal ?? code}); starting another`);
    cluster.fork();
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
