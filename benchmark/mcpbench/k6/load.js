// mcpbench load script (k6). No remote imports: everything it needs is here.
//
// Every MCP session (or single call in stateless mode) writes ONE raw sample line to the console log,
// which the orchestrator reads back; all reported figures are computed from those samples, inside the
// measured window only. Format (comma-separated):
//   S,t_s,vu,tool,ok,error_kind,call_ms,session_ms,http_ms(;-separated)
// plus, once per VU, `T,<scenario start, epoch ms>` so resource samples can be put on the same clock.
import http from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';

const TARGET = __ENV.TARGET_URL;                      // http://127.0.0.1:PORT/mcp
const MODE = __ENV.MODE || 'session';                 // session | stateless | persistent
const EXECUTOR = __ENV.EXECUTOR || 'closed';          // closed (VUs) | open (arrival rate)
const VUS = parseInt(__ENV.VUS || '50', 10);
const RATE = parseFloat(__ENV.RATE || '0');           // open model: tool calls per second
const RAMP_UP = parseFloat(__ENV.RAMP_UP_S || '15');
const HOLD = parseFloat(__ENV.HOLD_S || '360');       // warm-up + measured duration
const RAMP_DOWN = parseFloat(__ENV.RAMP_DOWN_S || '10');
const THINK = parseFloat(__ENV.THINK_TIME_S || '0.05');
const TIMEOUT = __ENV.REQUEST_TIMEOUT || '30s';
const CHECKS = (__ENV.CHECKS || 'on') === 'on';

function closedScenario() {
  return {
    executor: 'ramping-vus',
    startVUs: 0,
    stages: [
      { duration: `${RAMP_UP}s`, target: VUS },
      { duration: `${HOLD}s`, target: VUS },
      { duration: `${RAMP_DOWN}s`, target: 0 },
    ],
    gracefulRampDown: '5s',
    gracefulStop: '5s',
  };
}

function openScenario() {
  // k6 wants whole-number targets: count iterations per 10 s so the rate has 0.1/s resolution.
  const target = Math.round(RATE * 10);
  return {
    executor: 'ramping-arrival-rate',
    startRate: 0,
    timeUnit: '10s',
    preAllocatedVUs: VUS,
    maxVUs: VUS * 4,
    stages: [
      { duration: `${RAMP_UP}s`, target },
      { duration: `${HOLD}s`, target },
      { duration: `${RAMP_DOWN}s`, target: 0 },
    ],
    gracefulStop: '5s',
  };
}

export const options = {
  scenarios: { load: EXECUTOR === 'open' ? openScenario() : closedScenario() },
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'p(99.9)', 'count'],
};

const HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
};

const TOOLS = ['search_products', 'get_user_cart', 'checkout'];

function userFor(vu) {
  // VU N uses user-{N % 1000}; N = 1000, 2000… would be user-00000, which has no cart, so use 1000.
  const n = vu % 1000 || 1000;
  return `user-${String(n).padStart(5, '0')}`;
}

function toolArguments(tool, user) {
  switch (tool) {
    case 'search_products':
      return { category: 'Electronics', min_price: 50.0, max_price: 500.0, limit: 10 };
    case 'get_user_cart':
      return { user_id: user };
    default:
      return { user_id: user, items: [{ product_id: 42, quantity: 2 }, { product_id: 1337, quantity: 1 }] };
  }
}

// The spec's checks (docs/workload.md §3). Returns '' when the result passes.
function checkResult(tool, data) {
  if (tool === 'search_products') {
    return data.total_found === 2251 && data.products.length === 10 && data.top10_popular_ids.length === 10
      ? '' : 'check_failed';
  }
  if (tool === 'get_user_cart') {
    return data.cart.items.length >= 1 && data.recent_history.length === 5 ? '' : 'check_failed';
  }
  if (tool === 'checkout') {
    return data.status === 'confirmed' && data.total > 0 && data.items_count === 2 ? '' : 'check_failed';
  }
  return '';
}

let rpcId = 0;

function rpc(method, params, sessionId, wantBody) {
  const headers = sessionId ? Object.assign({ 'Mcp-Session-Id': sessionId }, HEADERS) : HEADERS;
  const payload = { jsonrpc: '2.0', method };
  if (params !== undefined) payload.params = params;
  if (!method.startsWith('notifications/')) payload.id = ++rpcId;
  return http.post(TARGET, JSON.stringify(payload), {
    headers, timeout: TIMEOUT, responseType: wantBody ? 'text' : 'none', tags: { name: method },
  });
}

function transportKind(res) {
  if (res.status === 0) return res.error_code === 1050 ? 'timeout' : 'transport';
  if (res.status >= 400) return `http_${res.status}`;
  return '';
}

// A reply is either a JSON body or an SSE stream whose data lines carry JSON-RPC messages.
function parseReply(res) {
  const type = String(res.headers['Content-Type'] || '');
  if (type.indexOf('text/event-stream') >= 0) {
    let message = null;
    for (const line of String(res.body).split('\n')) {
      if (line.startsWith('data:')) {
        const candidate = JSON.parse(line.slice(5));
        if (candidate.id !== undefined) message = candidate;
      }
    }
    return message;
  }
  return JSON.parse(res.body);
}

function judgeCall(res, tool) {
  const kind = transportKind(res);
  if (kind) return kind;
  let message;
  try {
    message = parseReply(res);
  } catch (e) {
    return 'bad_response';
  }
  if (!message) return 'bad_response';
  if (message.error) return `jsonrpc_${message.error.code}`;
  const result = message.result;
  if (!result) return 'bad_response';
  if (tool === 'tools/list') return result.tools && result.tools.length >= 3 ? '' : 'check_failed';
  if (result.isError) return 'tool_error';
  if (!CHECKS) return '';
  try {
    return checkResult(tool, JSON.parse(result.content[0].text));
  } catch (e) {
    return 'check_failed';
  }
}

function record(tool, kind, callMs, started, httpMs) {
  const t = (Date.now() - exec.scenario.startTime) / 1000;
  const sessionMs = Date.now() - started;
  console.log(`S,${t.toFixed(3)},${exec.vu.idInTest},${tool},${kind ? 0 : 1},${kind},` +
    `${callMs < 0 ? '' : callMs.toFixed(3)},${sessionMs.toFixed(3)},${httpMs.map((d) => d.toFixed(3)).join(';')}`);
}

function callParams(tool, user) {
  return tool === 'tools/list' ? {} : { name: tool, arguments: toolArguments(tool, user) };
}

function callMethod(tool) {
  return tool === 'tools/list' ? 'tools/list' : 'tools/call';
}

// The v2 study's pattern: a whole MCP session around every single call.
function sessionCall(tool, user) {
  const started = Date.now();
  const httpMs = [];
  const init = rpc('initialize', {
    protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'mcpbench-k6', version: '1' },
  }, null, false);
  httpMs.push(init.timings.duration);
  let kind = transportKind(init);
  if (kind) return record(tool, kind, -1, started, httpMs);
  const sessionId = init.headers['Mcp-Session-Id'] || null;
  const note = rpc('notifications/initialized', undefined, sessionId, false);
  httpMs.push(note.timings.duration);
  kind = transportKind(note);
  if (kind) return record(tool, kind, -1, started, httpMs);
  const res = rpc(callMethod(tool), callParams(tool, user), sessionId, true);
  httpMs.push(res.timings.duration);
  kind = judgeCall(res, tool);
  if (sessionId) {
    const del = http.del(TARGET, null, {
      headers: Object.assign({ 'Mcp-Session-Id': sessionId }, HEADERS), timeout: TIMEOUT,
      responseType: 'none', tags: { name: 'DELETE' },
    });
    httpMs.push(del.timings.duration);
  }
  return record(tool, kind, res.timings.duration, started, httpMs);
}

function statelessCall(tool, user, sessionId) {
  const started = Date.now();
  const res = rpc(callMethod(tool), callParams(tool, user), sessionId || null, true);
  return record(tool, judgeCall(res, tool), res.timings.duration, started, [res.timings.duration]);
}

// persistent mode: one session per VU, opened on its first iteration and reused.
let persistentSession;

function persistentSessionId() {
  if (persistentSession === undefined) {
    const init = rpc('initialize', {
      protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'mcpbench-k6', version: '1' },
    }, null, false);
    persistentSession = init.headers['Mcp-Session-Id'] || null;
    rpc('notifications/initialized', undefined, persistentSession, false);
  }
  return persistentSession;
}

function oneCall(tool, user) {
  if (MODE === 'session') return sessionCall(tool, user);
  if (MODE === 'persistent') return statelessCall(tool, user, persistentSessionId());
  return statelessCall(tool, user, null);
}

let announced = false;

export default function () {
  if (!announced) {
    console.log(`T,${exec.scenario.startTime}`);
    announced = true;
  }
  const user = userFor(exec.vu.idInTest);
  if (EXECUTOR === 'open') {
    // Open model: one iteration = one tool call, the tools in turn; the arrival rate is tool calls/s.
    oneCall(TOOLS[exec.scenario.iterationInTest % TOOLS.length], user);
    return;
  }
  for (const tool of TOOLS) oneCall(tool, user);
  oneCall('tools/list', user);
  sleep(THINK);
}

export function handleSummary(data) {
  return { [__ENV.SUMMARY_PATH || 'k6-summary.json']: JSON.stringify(data, null, 1) };
}
