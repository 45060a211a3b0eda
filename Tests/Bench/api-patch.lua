-- wrk script for `make bench-api`: authenticated PATCHes of one environment, each a real change (a new name and a
-- flipped attackMode), so every request writes a revision and its audit entry.
-- Reads GATEHOUSE_TOKEN from the environment.

local counter = 1

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end

function init(args)
  n = 0
  wrk.method = "PATCH"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("GATEHOUSE_TOKEN")
end

function request()
  n = n + 1
  local attack = (n % 2 == 0) and "true" or "false"
  local body = string.format('{"name":"Bench %d-%d","attackMode":%s}', id, n, attack)
  return wrk.format(nil, nil, nil, body)
end
