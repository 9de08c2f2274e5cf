-- Argo CD health check for Kubeflow JAXJob (kubeflow.org/v1), shipped by jaxjob.
--
-- Written for argocd-cm, where scripts run WITHOUT the string and math
-- libraries (gopher-lua, Lua 5.1): only type, ipairs, comparisons, '%' and
-- '..' are used. Every field is read through get() because any part of the
-- object may have an unexpected type; indexing a non-table would abort.
--
-- Conditions are judged by type and status == "True", never by position:
-- the operator re-appends changed conditions at the end, keeps Running=False
-- after the job ends and keeps Suspended=False after a resume.
-- Precedence: Failed > Succeeded > Suspended > Restarting > Running > Created.
-- The C judge in lib/health/health.c implements the same table; both run
-- the vectors in health_test.yaml.
local function get(t, k)
  if type(t) == "table" then
    return t[k]
  end
  return nil
end

-- A replica count: a non-negative integer that fits an int32, else nil.
local function count(v)
  if type(v) == "number" and v == v and v >= 0 and v <= 2147483647 and v % 1 == 0 then
    return v
  end
  return nil
end

-- The condition's message, else its reason, else the fallback.
local function text(cond, fallback)
  local m = get(cond, "message")
  if type(m) == "string" and m ~= "" then
    return m
  end
  local r = get(cond, "reason")
  if type(r) == "string" and r ~= "" then
    return r
  end
  return fallback
end

-- A job Kueue holds: the label kueue.x-k8s.io/queue-name on the job names its
-- LocalQueue (a non-empty string), else nil. Suspended with it is "queued",
-- without it "someone suspended it" - same status, the message tells them apart.
local function kueue_queue(o)
  local q = get(get(get(o, "metadata"), "labels"), "kueue.x-k8s.io/queue-name")
  if type(q) == "string" and q ~= "" then
    return q
  end
  return nil
end

local hs = {}
if get(obj.metadata, "deletionTimestamp") ~= nil then
  hs.status = "Progressing"
  hs.message = "Pending deletion"
  return hs
end

local status = get(obj, "status")
local conditions = get(status, "conditions")
local seen = 0
local true_cond = {}
if type(conditions) == "table" then
  for _, c in ipairs(conditions) do
    if type(c) == "table" then
      seen = seen + 1
      local t = c.type
      if c.status == "True" and type(t) == "string" and true_cond[t] == nil then
        true_cond[t] = c
      end
    end
  end
end

if seen == 0 then
  hs.status = "Progressing"
  hs.message = "Waiting for JAXJob to be accepted by the training operator"
elseif true_cond.Failed ~= nil then
  hs.status = "Degraded"
  hs.message = text(true_cond.Failed, "JAXJob failed")
elseif true_cond.Succeeded ~= nil then
  hs.status = "Healthy"
  hs.message = text(true_cond.Succeeded, "JAXJob succeeded")
elseif true_cond.Suspended ~= nil then
  hs.status = "Suspended"
  local queue = kueue_queue(obj)
  if queue ~= nil then
    hs.message = "Queued by Kueue in LocalQueue " .. queue .. ": suspended until admitted"
  else
    hs.message = text(true_cond.Suspended, "JAXJob is suspended")
  end
elseif true_cond.Restarting ~= nil then
  hs.status = "Progressing"
  hs.message = text(true_cond.Restarting, "JAXJob is restarting")
elseif true_cond.Running ~= nil then
  hs.status = "Progressing"
  -- "N/M workers active": N from status.replicaStatuses.Worker.active
  -- (omitted by the operator when 0), M from the spec (operator default 1).
  local ws = get(get(status, "replicaStatuses"), "Worker")
  if type(ws) == "table" then
    local n = count(ws.active) or 0
    local wspec = get(get(get(obj, "spec"), "jaxReplicaSpecs"), "Worker")
    local m = nil
    if type(wspec) == "table" then
      if wspec.replicas == nil then
        m = 1
      else
        m = count(wspec.replicas)
      end
    end
    if m ~= nil then
      hs.message = n .. "/" .. m .. " workers active"
    else
      hs.message = n .. " workers active"
    end
  else
    hs.message = text(true_cond.Running, "JAXJob is running")
  end
elseif true_cond.Created ~= nil then
  hs.status = "Progressing"
  hs.message = text(true_cond.Created, "JAXJob is created")
else
  hs.status = "Progressing"
  hs.message = "Waiting for JAXJob status"
end
return hs
