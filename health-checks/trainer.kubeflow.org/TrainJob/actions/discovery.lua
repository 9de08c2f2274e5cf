-- Argo CD action discovery for Kubeflow Trainer v2 TrainJob, shipped by jaxjob.
-- Offers "suspend" on a live job that is not suspended and "resume" on a
-- suspended one, both through spec.suspend (what Kueue uses too). Nothing is
-- offered on a finished job (Complete=True or Failed=True: the controller
-- stops reconciling it, kubeflow/trainer pkg/controller/trainjob_controller.go
-- isTrainJobFinished) or on one being deleted. The JAXJob twin differs only in
-- the flag and the terminal condition: an argocd-cm script runs alone (no
-- require), so they cannot share code. Runs without the string and
-- math libraries, like every argocd-cm script.
local function get(t, k)
  if type(t) == "table" then
    return t[k]
  end
  return nil
end

local actions = {}
if get(obj.metadata, "deletionTimestamp") ~= nil then
  return actions
end

local finished = false
local conditions = get(obj.status, "conditions")
if type(conditions) == "table" then
  for _, c in ipairs(conditions) do
    if type(c) == "table" and c.status == "True" and (c.type == "Complete" or c.type == "Failed") then
      finished = true
    end
  end
end
if finished then
  return actions
end

if get(obj.spec, "suspend") == true then
  actions["resume"] = {["iconClass"] = "fa fa-fw fa-play"}
else
  actions["suspend"] = {["iconClass"] = "fa fa-fw fa-pause"}
end
return actions
