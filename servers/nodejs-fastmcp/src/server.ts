// Entry point: reads the environment and runs one server process, or a node:cluster primary that forks
// one per share of CPU_LIMIT; with --stdio, one process serving MCP over stdin/stdout (no cluster, no port).
import cluster from 'node:cluster';
import os from 'node:os';
import { parseArgs } from 'node:util';

const env = process.env;
const { stdio } = parseArgs({ options: { stdio: { type: 'boolean', default: false } } }).values;
const cpuLimit = Number(env.CPU_LIMIT) > 0 ? Number(env.CPU_LIMIT) : os.availableParallelism();
// SESSIONS=1 (the abandoned dimension, docs/server-contract.md): FastMCP's stateful mode, which keeps each session
// in the memory of the process that answered its initialize (src/app.ts); unset, stateless as always.
const sessions = env.SESSIONS?.trim() === '1';
// One event loop per granted core: the per-request cost is JavaScript CPU, so more processes than cores
// add heaps, JIT warm-ups and context switches but no throughput (as servers/nodejs, README "Workers"). Under
// SESSIONS=1 one process whatever WORKERS/CPU_LIMIT say: node:cluster hands each connection to any worker, so a
// session's later requests would reach workers that do not hold it.
const workers = sessions
  ? 1
  : Number(env.WORKERS) > 0 ? Math.floor(Number(env.WORKERS)) : Math.max(1, Math.round(cpuLimit));
const port = Number(env.PORT ?? 8080);
const host = env.HOST || '127.0.0.1'; // loopback unless the runtime says otherwise (a container: 0.0.0.0)

if (stdio || workers === 1 || !cluster.isPrimary) {
  // Imported here, not at the top, so that a cluster primary (which serves nothing) stays small.
  const { serve } = await import('./app.js');
  await serve({
    stdio,
    host,
    port,
    // The hosts a request may name (Host, and Origin when a browser sends one): DNS-rebinding protection.
    allowedHosts: (env.ALLOWED_HOSTS || 'localhost,127.0.0.1,[::1]').split(',').map((h) => h.trim()).filter(Boolean),
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    apiUrl: env.API_SERVICE_URL ?? 'http://127.0.0.1:8100',
    serverType: env.SERVER_TYPE ?? 'nodejs-fastmcp',
    sessions,
  });
  if (cluster.isPrimary) {
    console.error(stdio ? `serving MCP on stdio (Node.js ${process.version}, 1 process)`
      : `listening on ${host}:${port} (Node.js ${process.version}, 1 process)`);
  }
} else {
  // Share the memory limit between the workers' V8 heaps.
  const memoryMb = Number(env.MEMORY_LIMIT_MB);
  if (memoryMb > 0) {
    cluster.setupPrimary({
      execArgv: [...process.execArgv, `--max-old-space-size=${Math.floor((memoryMb * 0.75) / workers)}`],
    });
  }
  // Each worker's FastMCP starts its own node:http server and calls listen(PORT, HOST): under node:cluster
  // that listen goes to the primary, which binds the port once and hands connections to the workers in turn.
  let stopping = false;
  let listening = 0;
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on('listening', () => {
    if (++listening === workers) {
      console.log(`listening on ${host}:${port} (Node.js ${process.version}, ${workers} workers, CPU_LIMIT=${cpuLimit})`);
    }
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
