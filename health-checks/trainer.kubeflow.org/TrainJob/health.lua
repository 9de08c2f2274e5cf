-- Argo CD health check for Kubeflow Trainer TrainJob (trainer.kubeflow.org),
-- shipped by jaxjob.
--
-- Written for argocd-cm, where scripts run WITHOUT the string and math
-- libraries (gopher-lua, Lua 5.1): only type, ipairs, comparisons, '%' and
-- '..' are used, and every field is read through get().
--
-- TrainJob conditions are metav1.Conditions: Complete, Failed, Suspended
-- (and Created in early releases). A live job has no terminal condition and
-- no Running condition, so "running" comes from status.jobsStatus[].active.
-- Precedence: Failed > Complete > controller lagging behind the spec >
-- Created=False with a failure reason > Suspended > in progress.
-- The C judge in lib/health/health.c implements the same table; both run
-- the vectors in health_test.yaml.
local function get(t, k)
  if type(t) == "table" then
    return t[k]
  end
  return nil
end

-- A non-negative integer up to 2^31-1, else nil (larger values would print
-- differently in gopher-lua and C Lua, so they are not trusted).
local function count(v)
  if type(v) == "number" and v == v and v >= 0 and v <= 2147483647 and v % 1 == 0 then
    return v
  end
  return nil
end

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
local true_cond = {}
local created_false = nil
local observed = nil
local conditions = get(status, "conditions")
if type(conditions) == "table" then
  for _, c in ipairs(conditions) do
    if type(c) == "table" then
      local t = c.type
      if type(t) == "string" then
        if c.status == "True" and true_cond[t] == nil then
          true_cond[t] = c
        elseif t == "Created" and c.status == "False" and created_false == nil then
          created_false = c
        end
      end
      local og = count(c.observedGeneration)
      if og ~= nil and (observed == nil or og > observed) then
        observed = og
      end
    end
  end
end
local generation = count(get(obj.metadata, "generation"))

if type(status) ~= "table" then
  hs.status = "Progressing"
  hs.message = "Waiting for TrainJob to be accepted by the Trainer controller"
elseif true_cond.Failed ~= nil then
  hs.status = "Degraded"
  hs.message = text(true_cond.Failed, "TrainJob failed")
elseif true_cond.Complete ~= nil then
  hs.status = "Healthy"
  hs.message = text(true_cond.Complete, "TrainJob completed")
elseif generation ~= nil and observed ~= nil and observed < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the Trainer controller to observe generation " .. generation .. " (observed " .. observed .. ")"
elseif created_false ~= nil and (created_false.reason == "JobsCreationFailed" or created_false.reason == "JobsBuildFailed") then
  hs.status = "Degraded"
  hs.message = text(created_false, "TrainJob failed to create its jobs")
elseif true_cond.Suspended ~= nil then
  hs.status = "Suspended"
  local queue = kueue_queue(obj)
  if queue ~= nil then
    hs.message = "Queued by Kueue in LocalQueue " .. queue .. ": suspended until admitted"
  else
    hs.message = text(true_cond.Suspended, "TrainJob is suspended")
  end
else
  hs.status = "Progressing"
  local running = false
  local jobs = get(status, "jobsStatus")
  if type(jobs) == "table" then
    for _, j in ipairs(jobs) do
      local a = count(get(j, "active"))
      if a ~= nil and a > 0 then
        running = true
      end
    end
  end
  if running then
    hs.message = "TrainJob is running"
  else
    hs.message = "Waiting for TrainJob to start"
  end
end
return hs
