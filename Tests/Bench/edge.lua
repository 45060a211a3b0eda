-- The edge bench's wrk script (Tests/Bench/edge-bench.sh): checks sent to /api/v4/edge/nginx (the URL given to wrk)
-- as nginx's auth_request sends them, naming the call GET $EDGE_URI, authenticated with $BENCH_SECRET, each with a
-- receipt of the file $EDGE_TOKENS (one a line) and, when $EDGE_PROOFS names a file, a proof of it (one a line),
-- in turn. With two lines or more, each of wrk's two threads takes every other line of a file. With
-- EDGE_DISTINCT=1 each receipt is meant to be sent once: a thread that has sent all of its own sends them again and
-- counts those calls as `repeated`. Every request is formatted in init, not per call: wrk shares the machine's cores
-- with the server. Prints `verified: N, other: N, repeated: N` at the end (answers by status and Gatehouse-Outcome);
-- the first answer counted as other goes to standard error, to say why.
local threads = {}
local counter = 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local function lines(path)
  local all = {}
  for line in io.lines(path) do
    if line ~= "" then table.insert(all, line) end
  end
  if #all < 2 then return all end
  local mine = {}
  for i = 1, #all do
    if (i - 1) % 2 == id then table.insert(mine, all[i]) end
  end
  return mine
end

function init(args)
  local tokens = lines(os.getenv("EDGE_TOKENS"))
  local proofs = {}
  if os.getenv("EDGE_PROOFS") then proofs = lines(os.getenv("EDGE_PROOFS")) end
  distinct = os.getenv("EDGE_DISTINCT") == "1"
  fresh = #tokens
  wrk.method = "GET"
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_SECRET")
  wrk.headers["X-Original-Method"] = "GET"
  wrk.headers["X-Original-URI"] = os.getenv("EDGE_URI")
  requests = {}
  for k = 1, math.max(#tokens, #proofs) do
    wrk.headers["antibot-token"] = tokens[(k - 1) % #tokens + 1]
    if #proofs > 0 then wrk.headers["antibot-pop"] = proofs[(k - 1) % #proofs + 1] end
    requests[k] = wrk.format()
  end
  n = 0
  verified = 0
  other = 0
  repeated = 0
end

function request()
  n = n + 1
  if distinct and n > fresh then repeated = repeated + 1 end
  return requests[(n - 1) % #requests + 1]
end

function response(status, headers, body)
  local outcome = headers["Gatehouse-Outcome"] or headers["gatehouse-outcome"]
  if (status == 204 or status == 200) and outcome == "verified" then
    verified = verified + 1
  else
    other = other + 1
    if other == 1 then io.stderr:write(status .. " " .. tostring(outcome) .. " " .. body .. "\n") end
  end
end

function done(summary, latency, requests)
  local v, o, r = 0, 0, 0
  for _, t in ipairs(threads) do
    v = v + t:get("verified")
    o = o + t:get("other")
    r = r + t:get("repeated")
  end
  io.write(string.format("verified: %d, other: %d, repeated: %d\n", v, o, r))
end
