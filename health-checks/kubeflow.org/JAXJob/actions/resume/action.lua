-- Resume a suspended JAXJob: spec.runPolicy.suspend = false. The operator
-- re-creates the worker pods, sets Suspended=False and resets startTime.
if type(obj.spec) ~= "table" then
  obj.spec = {}
end
if type(obj.spec.runPolicy) ~= "table" then
  obj.spec.runPolicy = {}
end
obj.spec.runPolicy.suspend = false
return obj
