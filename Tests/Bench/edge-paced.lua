-- The edge bench's paced wrk script (Tests/Bench/edge-bench.sh): Debian's wrk has no -R (that is wrk2), so the rate
-- is set by a pause: each connection waits $EDGE_DELAY_MS milliseconds after each answer before its next call
-- (wrk's delay(); the latency it reports excludes the pause). Every call is GET on the URL given to wrk with the
-- receipt of the first line of $EDGE_TOKENS in antibot-token, the same bytes through nginx alone and through
-- nginx with the check. Without EDGE_DELAY_MS there is no pause (the peak rate). Prints `passed: N, other: N` (200 or
-- not); the first other answer goes to standard error.
local threads = {}
local pause = tonumber(os.getenv("EDGE_DELAY_MS") or "")
if pause then
  function delay()
    return pause
  end
end

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(os.getenv("EDGE_TOKENS")) do
    wrk.headers["antibot-token"] = line
    break
  end
  passed = 0
  other = 0
end

function response(status, headers, body)
  if status == 200 then
    passed = passed + 1
  else
    other = other + 1
    if other == 1 then io.stderr:write(status .. " " .. body .. "\n") end
  end
end

function done(summary, latency, requests)
  local p, o = 0, 0
  for _, t in ipairs(threads) do
    p = p + t:get("passed")
    o = o + t:get("other")
  end
  io.write(string.format("passed: %d, other: %d\n", p, o))
end
