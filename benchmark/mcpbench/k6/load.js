// mcpbench load script (k6). No remote imports: everything it needs is here.
//
// Every MCP session (or single call in stateless/persistent mode) writes ONE raw sample line to the
// console log, which the orchestrator reads back; all reported figures are computed from those samples,
// inside the measured window only. Format (comma-separated):
//   S,t_s,vu,tool,ok,error_kind,call_ms,session_ms,http_ms(;-separated)
// plus, once per VU, `T,<scenario start, epoch ms>` so resource samples can be put on the same clock.
// handleSummary writes k6's own counts (iterations, http_reqs, dropped_iterations) to COUNTS_PATH.
//
// The script is the harness's hot path: on a calibrated run k6 is the bottleneck, so per request it
// does as little as it can without changing what the server sees (the same JSON-RPC messages, bytes,
// headers, sequence and think time): request bodies are templates built once per VU, request params
// objects are built once per session, JSON replies are parsed by k6's Go decoder (res.json()) and the
// VU id / scenario start are read once per VU.
import http from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';

const TARGET = __ENV.TARGET_URL;                      // http://127.0.0.1:PORT/mcp
const MODE = __ENV.MODE || 'session';                 // session | stateless | persistent | stateless-2026
// The k6 scenario (executor, stages, and `exec`: which iteration below), built from the load's model and
// stages by benchmark/mcpbench/loadgen/k6.py: a new kind of load needs no change here.
const SCENARIO = JSON.parse(__ENV.SCENARIO);
const THINK = parseFloat(__ENV.THINK_TIME_S || '0.05');
const TIMEOUT = __ENV.REQUEST_TIMEOUT || '30s';
const CHECKS = (__ENV.CHECKS || 'on') === 'on';
const COUNTS_PATH = __ENV.COUNTS_PATH || 'k6-counts.json';

export const options = {
  scenarios: { load: SCENARIO },
  // Only counts are read from k6's summary (handleSummary); no percentiles to sort at the end.
  summaryTrendStats: ['count'],
};

// k6 takes a number as milliseconds; parsing the '30s' string on every request costs CPU. Anything but
// a plain `<number><unit>` is handed to k6 as it is.
function timeoutMs(text) {
  const m = /^([0-9]*\.?[0-9]+)(ms|s|m|h)$/.exec(text);
  if (!m) return text;
  return parseFloat(m[1]) * { ms: 1, s: 1000, m: 60000, h: 3600000 }[m[2]];
}

const TIMEOUT_VALUE = timeoutMs(TIMEOUT);
const CONTENT_TYPE = 'application/json';
const ACCEPT = 'application/json, text/event-stream';
const HEADERS = { 'Content-Type': CONTENT_TYPE, Accept: ACCEPT };
// Params of requests without a session (initialize, stateless calls): shared, never modified.
const PLAIN_TEXT = { headers: HEADERS, timeout: TIMEOUT_VALUE, responseType: 'text' };

const TOOLS = ['search_products', 'get_user_cart', 'checkout'];
const INITIALIZE_PARAMS = {
  protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'mcpbench-k6', version: '1' },
};
// k6 error codes: 1050 request timeout, 1211 TCP connect timeout.
const TIMEOUT_CODES = new Set([1050, 1211]);

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

// Request bodies. JSON.stringify({jsonrpc, method, params, id}) with the id last, built as
// `prefix + id + '}'` where prefix = JSON.stringify({jsonrpc, method, params}) minus its '}' plus
// ',"id":' — byte for byte the same message, without serializing the params every time.
function bodyPrefix(method, params) {
  const text = JSON.stringify({ jsonrpc: '2.0', method, params });
  return `${text.slice(0, -1)},"id":`;
}

// The 2026-07-28 revision (mode stateless-2026): no initialize, no session; every request carries the
// protocol version and client info in params._meta, and the version, method and tool name in headers.
const REVISION_2026 = '2026-07-28';
const SELF_CONTAINED = MODE === 'stateless-2026';
const META_2026 = {
  'io.modelcontextprotocol/protocolVersion': REVISION_2026,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'mcpbench-k6', version: '1' },
};

function selfContainedParams(method, name) {
  const headers = { ...HEADERS, 'MCP-Protocol-Version': REVISION_2026, 'Mcp-Method': method };
  if (name) headers['Mcp-Name'] = name;
  return { headers, timeout: TIMEOUT_VALUE, responseType: 'text' };
}

// Request params per tool in mode stateless-2026 (shared, never modified).
const SELF_CONTAINED_PARAMS = { 'tools/list': selfContainedParams('tools/list') };
for (const tool of TOOLS) SELF_CONTAINED_PARAMS[tool] = selfContainedParams('tools/call', tool);

const INITIALIZE_PREFIX = bodyPrefix('initialize', INITIALIZE_PARAMS);
const INITIALIZED_BODY = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

let rpcId = 0;
let vuId = 0;          // this VU's id, its scenario's start (epoch ms) and its tool call prefixes,
let startMs = 0;       // set on its first iteration
let callPrefixes = null;

function vuSetup() {
  vuId = exec.vu.idInTest;
  startMs = exec.scenario.startTime;
  const user = userFor(vuId);
  const meta = SELF_CONTAINED ? { _meta: META_2026 } : {};
  callPrefixes = { 'tools/list': bodyPrefix('tools/list', meta) };
  for (const tool of TOOLS) {
    callPrefixes[tool] = bodyPrefix('tools/call', { name: tool, arguments: toolArguments(tool, user), ...meta });
  }
  console.log(`T,${startMs}`);
}

// Params of the requests inside a session (one object per session, shared by its requests).
function sessionParams(sessionId, responseType) {
  return {
    headers: { 'Content-Type': CONTENT_TYPE, Accept: ACCEPT, 'Mcp-Session-Id': sessionId },
    timeout: TIMEOUT_VALUE, responseType,
  };
}

function initialize() {
  return http.post(TARGET, `${INITIALIZE_PREFIX}${++rpcId}}`, PLAIN_TEXT);
}

function call(tool, params) {
  return http.post(TARGET, `${callPrefixes[tool]}${++rpcId}}`, params);
}

function transportKind(res) {
  const status = res.status;
  if (status === 0) return TIMEOUT_CODES.has(res.error_code) ? 'timeout' : 'transport';
  if (status >= 400) return `http_${status}`;
  return '';
}

// A DELETE that ends a session: 200/202/204 are fine, and so is 405 (the server does not let clients
// end sessions, which the MCP spec allows).
function deleteKind(res) {
  return res.status === 405 ? '' : transportKind(res);
}

function isEventStream(res) {
  const type = res.headers['Content-Type'];
  return type !== undefined && type.indexOf('text/event-stream') >= 0;
}

// A reply is either a JSON body or an SSE stream whose data lines carry JSON-RPC messages.
function parseReply(res, sse) {
  if (sse) {
    let message = null;
    for (const line of String(res.body).split('\n')) {
      if (line.startsWith('data:')) {
        const candidate = JSON.parse(line.slice(5));
        if (candidate.id !== undefined) message = candidate;
      }
    }
    return message;
  }
  return res.json(); // k6's Go JSON decoder: as strict as JSON.parse, far cheaper
}

// The JSON-RPC result of a reply (and whether it came as SSE), or the kind of error when there is none.
function replyResult(res) {
  const kind = transportKind(res);
  if (kind) return { kind };
  const sse = isEventStream(res);
  let message;
  try {
    message = parseReply(res, sse);
  } catch (e) {
    return { kind: 'bad_response' };
  }
  if (!message || typeof message !== 'object') return { kind: 'bad_response' };
  if (message.error) return { kind: `jsonrpc_${message.error.code}` };
  const result = message.result;
  if (!result) return { kind: 'bad_response' };
  return { kind: '', result, sse };
}

function judgeInitialize(res) {
  return replyResult(res).kind;
}

// The tool's JSON payload (result.content[0].text, parsed); throws when it is missing or no valid JSON.
// For a JSON reply the text is parsed by k6's Go side (gjson: `@fromstr` unquotes it, `@valid` rejects
// anything JSON.parse would reject; undefined then), which costs a fraction of JSON.parse.
function toolPayload(res, result, sse) {
  const text = result.content[0].text;
  if (sse || typeof text !== 'string') return JSON.parse(text);
  const data = res.json('result.content.0.text|@fromstr|@valid');
  if (data === undefined) throw new Error('the tool result is no valid JSON');
  return data;
}

function judgeCall(res, tool) {
  const { kind, result, sse } = replyResult(res);
  if (kind) return kind;
  if (tool === 'tools/list') return result.tools && result.tools.length >= 3 ? '' : 'check_failed';
  if (result.isError) return 'tool_error';
  if (!CHECKS) return '';
  try {
    return checkResult(tool, toolPayload(res, result, sse));
  } catch (e) {
    return 'check_failed';
  }
}

function record(tool, kind, callMs, started, httpMs) {
  const now = Date.now();
  console.log(`S,${((now - startMs) / 1000).toFixed(3)},${vuId},${tool},${kind ? 0 : 1},${kind},` +
    `${callMs < 0 ? '' : callMs.toFixed(3)},${(now - started).toFixed(3)},` +
    `${httpMs.map((d) => d.toFixed(3)).join(';')}`);
}

// The v2 study's pattern: a whole MCP session around every single call.
function sessionCall(tool) {
  const started = Date.now();
  const httpMs = [];
  const init = initialize();
  httpMs.push(init.timings.duration);
  let kind = judgeInitialize(init);
  if (kind) return record(tool, kind, -1, started, httpMs);
  const sessionId = init.headers['Mcp-Session-Id'] || null;
  const params = sessionId ? sessionParams(sessionId, 'text') : PLAIN_TEXT;
  const note = http.post(TARGET, INITIALIZED_BODY, params);
  httpMs.push(note.timings.duration);
  kind = transportKind(note);
  if (kind) return record(tool, kind, -1, started, httpMs);
  const res = call(tool, params);
  const callMs = res.timings.duration;
  httpMs.push(callMs);
  kind = judgeCall(res, tool);
  if (sessionId) {
    params.responseType = 'none';
    const del = http.del(TARGET, null, params);
    httpMs.push(del.timings.duration);
    if (!kind) kind = deleteKind(del);
  }
  return record(tool, kind, callMs, started, httpMs);
}

function statelessCall(tool) {
  const started = Date.now();
  const res = call(tool, PLAIN_TEXT);
  const callMs = res.timings.duration;
  return record(tool, judgeCall(res, tool), callMs, started, [callMs]);
}

// persistent mode: one session per VU, opened on its first call and reused. A failed opening, or a call
// answered with HTTP 404 (the session expired, per the MCP spec), is retried once with a new session
// before the sample is recorded.
let persistentParams; // the session's request params; undefined: no session open
let lastOpenMs = 0;    // duration of the request that failed the last opening

function openPersistent() {
  const init = initialize();
  lastOpenMs = init.timings.duration;
  let kind = judgeInitialize(init);
  if (kind) return kind;
  const sessionId = init.headers['Mcp-Session-Id'] || null;
  const params = sessionId ? sessionParams(sessionId, 'text') : PLAIN_TEXT;
  const note = http.post(TARGET, INITIALIZED_BODY, params);
  lastOpenMs = note.timings.duration;
  kind = transportKind(note);
  if (kind) return kind;
  persistentParams = params;
  return '';
}

function persistentCall(tool) {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    if (persistentParams === undefined) {
      const kind = openPersistent();
      if (kind) {
        if (attempt === 0) continue;
        return record(tool, kind, -1, started, [lastOpenMs]);
      }
    }
    const res = call(tool, persistentParams);
    if (res.status === 404 && persistentParams !== PLAIN_TEXT) {
      persistentParams = undefined; // the session is gone: the next call opens a new one
      if (attempt === 0) continue;
    }
    const callMs = res.timings.duration;
    return record(tool, judgeCall(res, tool), callMs, started, [callMs]);
  }
}

// Mode stateless-2026: one self-contained request per call (the 2026-07-28 revision).
function selfContainedCall(tool) {
  const started = Date.now();
  const res = call(tool, SELF_CONTAINED_PARAMS[tool]);
  const callMs = res.timings.duration;
  return record(tool, judgeCall(res, tool), callMs, started, [callMs]);
}

const CALLS = { session: sessionCall, persistent: persistentCall, stateless: statelessCall,
  'stateless-2026': selfContainedCall };
const oneCall = CALLS[MODE];
if (oneCall === undefined) throw new Error(`unknown MODE ${MODE}`);

// Closed model (scenarios/closed.py): the three tools, tools/list, then the think time.
export function closedIteration() {
  if (callPrefixes === null) vuSetup();
  for (const tool of TOOLS) oneCall(tool);
  oneCall('tools/list');
  sleep(THINK);
}

// Open model (scenarios/open.py): one iteration = one tool call, the tools in turn; the arrival rate is
// tool calls/s.
export function openIteration() {
  if (callPrefixes === null) vuSetup();
  oneCall(TOOLS[exec.scenario.iterationInTest % TOOLS.length]);
}

// k6's own counts over the whole test, for the orchestrator's cross-check against the samples.
export function handleSummary(data) {
  const count = (name) => {
    const metric = data.metrics[name];
    return (metric && metric.values && metric.values.count) || 0;
  };
  return {
    [COUNTS_PATH]: JSON.stringify({
      iterations: count('iterations'), http_reqs: count('http_reqs'),
      dropped_iterations: count('dropped_iterations'),
    }),
  };
}
