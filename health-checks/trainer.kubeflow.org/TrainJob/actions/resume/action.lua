-- Resume a suspended TrainJob: spec.suspend = false. The controller resumes
-- the JobSet, which re-creates the node pods, and sets Suspended=False.
if type(obj.spec) ~= "table" then
  obj.spec = {}
end
obj.spec.suspend = false
return obj
