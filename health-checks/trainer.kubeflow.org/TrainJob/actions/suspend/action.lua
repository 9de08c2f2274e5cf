-- Suspend a TrainJob: spec.suspend = true. The controller suspends the JobSet
-- (its pods are deleted) and sets Suspended=True; "resume" sets it back.
if type(obj.spec) ~= "table" then
  obj.spec = {}
end
obj.spec.suspend = true
return obj
