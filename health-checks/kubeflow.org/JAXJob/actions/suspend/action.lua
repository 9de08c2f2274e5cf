-- Suspend a JAXJob: spec.runPolicy.suspend = true. The operator deletes the
-- worker pods and sets Suspended=True; "resume" sets the flag back.
if type(obj.spec) ~= "table" then
  obj.spec = {}
end
if type(obj.spec.runPolicy) ~= "table" then
  obj.spec.runPolicy = {}
end
obj.spec.runPolicy.suspend = true
return obj
