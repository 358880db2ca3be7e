-- wrk script for benchmarks/web-load. Arguments after "--":
--   1: the expected status (200 if absent)
--   2: a JSON body; if given (and not empty), every request is a POST of it
--   3..: more paths; requests then rotate over the URL's path and these (per thread, starting
--        at a different one in each thread), e.g. to spread notes over several boards
-- It counts responses with the expected status and all others, and prints at the end
--   status expected <status> <count>
--   status other <count> <up to 50 of the other statuses>
-- (wrk itself only reports non-2xx/3xx, so a 200 where a 201 is due would pass unnoticed.)

local threads = {}
local counter = 0

function setup(thread)
   counter = counter + 1
   thread:set("thread_number", counter)
   table.insert(threads, thread)
end

function init(args)
   expected = tonumber(args[1] or "200")
   matched = 0
   other = 0
   other_statuses = ""
   if args[2] ~= nil and args[2] ~= "" then
      wrk.method = "POST"
      wrk.body = args[2]
      wrk.headers["Content-Type"] = "application/json"
   end
   if args[3] ~= nil then
      local paths = { wrk.path }
      for i = 3, #args do
         table.insert(paths, args[i])
      end
      requests = {}
      for i, path in ipairs(paths) do
         requests[i] = wrk.format(nil, path)
      end
      next_request = thread_number % #requests
   end
end

-- Defined here, not in init: wrk decides whether requests are dynamic before init runs.
function request()
   if requests == nil then
      return wrk.request()
   end
   next_request = next_request % #requests + 1
   return requests[next_request]
end

function response(status, headers, body)
   if status == expected then
      matched = matched + 1
   else
      other = other + 1
      if other <= 50 then
         other_statuses = other_statuses .. " " .. status
      end
   end
end

function done(summary, latency, requests)
   local m, o, seen = 0, 0, ""
   for _, t in ipairs(threads) do
      m = m + t:get("matched")
      o = o + t:get("other")
      seen = seen .. t:get("other_statuses")
   end
   io.write(string.format("status expected %d %d\n", threads[1]:get("expected"), m))
   io.write(string.format("status other %d%s\n", o, seen))
end
