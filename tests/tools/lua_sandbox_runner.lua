-- tests/tools/lua_sandbox_runner.lua - run Argo CD Lua scripts (health checks,
-- action discovery, actions) the way argocd-cm runs them: without the
-- string, math, io and os libraries, without require/load*/dofile, and with
-- no string methods ("x"):sub(). Lua 5.1, like Argo CD's gopher-lua.
--
--   lua5.1 lua_sandbox_runner.lua MODE VECTORS.lua [ROUNDS]
--
-- VECTORS.lua returns a list of { name = "...", script = "path/to/x.lua",
-- obj = { ...the Kubernetes object... } }, written by
-- tests/tools/health_vectors.py from the YAML test data (lua5.1 has no YAML
-- parser, so Python turns YAML into a Lua table literal; JSON nulls are
-- dropped, as gopher-lua drops nil array items and map values).
-- MODE is health | discovery | action | bench. One JSON line per vector on
-- stdout: {"name":..., "result": <what the script returned>} or
-- {"name":..., "error": "..."}. In health mode a last line reports line
-- coverage per script: {"coverage": {"path": [unexecuted line numbers]}}.
-- bench runs every vector ROUNDS times and prints {"name":..., "seconds":...}.
--
-- This runner itself may use the full library; only the scripts it runs are
-- confined (a fresh environment per run, string metatable __index removed).

local mode, vectors_path, rounds = arg[1], arg[2], tonumber(arg[3] or "1")
if not mode or not vectors_path then
  io.stderr:write("usage: lua5.1 lua_sandbox_runner.lua health|discovery|action|bench VECTORS.lua [ROUNDS]\n")
  os.exit(2)
end

-- String functions are captured here: while a script runs, strings have no
-- methods (the hook below runs then too).
local format, byte, gsub, sub, concat = string.format, string.byte, string.gsub, string.sub, table.concat

-- JSON encoding of what scripts return (tables of strings, numbers, booleans).
local encode
local function quote(s)
  return '"' .. gsub(s, '[%c"\\]', function(c)
    return format("\\u%04x", byte(c))
  end) .. '"'
end
local function is_array(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  for i = 1, n do
    if t[i] == nil then return false end
  end
  return n > 0
end
encode = function(v)
  local tv = type(v)
  if tv == "nil" then return "null" end
  if tv == "boolean" then return tostring(v) end
  if tv == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    if v % 1 == 0 and v > -1e15 and v < 1e15 then return format("%d", v) end
    return format("%.17g", v)
  end
  if tv == "string" then return quote(v) end
  if tv == "table" then
    local out = {}
    if is_array(v) then
      for i = 1, #v do out[#out + 1] = encode(v[i]) end
      return "[" .. concat(out, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    for _, k in ipairs(keys) do
      local val = v[k]
      if val == nil then val = v[tonumber(k)] end
      out[#out + 1] = quote(k) .. ":" .. encode(val)
    end
    if #out == 0 then return "{}" end
    return "{" .. concat(out, ",") .. "}"
  end
  return quote("<" .. tv .. ">")
end

-- What argocd-cm scripts get: base functions minus the ones that load code
-- or reach the real globals, plus table. No string, math, io, os.
local SAFE = { "assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal",
  "rawget", "rawset", "select", "tonumber", "tostring", "type", "unpack",
  "xpcall", "setmetatable", "getmetatable", "_VERSION" }
local function sandbox(obj)
  local env = {}
  for _, name in ipairs(SAFE) do env[name] = _G[name] end
  local tbl = {}
  for k, f in pairs(table) do tbl[k] = f end
  env.table = tbl
  env._G = env
  env.obj = obj
  return env
end

local chunks = {}
local function load_script(path)
  if not chunks[path] then
    local f, err = loadfile(path)
    if not f then error(err) end
    chunks[path] = f
  end
  return chunks[path]
end

-- Line coverage: lines each script could run (activelines of every function
-- seen) and lines it did run.
local active, hit = {}, {}
local function hook(event, line)
  local info = debug.getinfo(2, "SL")
  local src = info.source
  if sub(src, 1, 1) ~= "@" then return end
  src = sub(src, 2)
  if event == "line" then
    hit[src] = hit[src] or {}
    hit[src][line] = true
  else
    active[src] = active[src] or {}
    for l in pairs(info.activelines or {}) do active[src][l] = true end
  end
end

local smt = getmetatable("")
local function run(vector, obj, cover)
  local f = load_script(vector.script)
  setfenv(f, sandbox(obj))
  local saved = smt.__index
  smt.__index = nil
  if cover then debug.sethook(hook, "cl") end
  local ok, res = pcall(f)
  if cover then debug.sethook() end
  smt.__index = saved
  return ok, res
end

local function deepcopy(v)
  if type(v) ~= "table" then return v end
  local t = {}
  for k, x in pairs(v) do t[k] = deepcopy(x) end
  return t
end

local vectors = dofile(vectors_path)
for _, vector in ipairs(vectors) do
  if mode == "bench" then
    local clock = os.clock
    local start = clock()
    for _ = 1, rounds do run(vector, vector.obj, false) end
    print(format('{"name":%s,"rounds":%d,"seconds":%.6f}', quote(vector.name), rounds, clock() - start))
  else
    local ok, res = run(vector, deepcopy(vector.obj), mode == "health")
    if ok then
      print(format('{"name":%s,"result":%s}', quote(vector.name), encode(res)))
    else
      print(format('{"name":%s,"error":%s}', quote(vector.name), quote(tostring(res))))
    end
  end
end

if mode == "health" then
  local report = {}
  for src, lines in pairs(active) do
    local missed = {}
    for l in pairs(lines) do
      if not (hit[src] and hit[src][l]) then missed[#missed + 1] = l end
    end
    table.sort(missed)
    report[src] = missed
  end
  local parts = {}
  for src, missed in pairs(report) do
    local nums = {}
    for _, l in ipairs(missed) do nums[#nums + 1] = tostring(l) end
    parts[#parts + 1] = quote(src) .. ":[" .. concat(nums, ",") .. "]"
  end
  table.sort(parts)
  print('{"coverage":{' .. concat(parts, ",") .. '}}')
end
