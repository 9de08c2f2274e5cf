#!/usr/bin/env python3
"""tests/tools/health_vectors.py - one set of vectors, two judges.

Reads every health_test.yaml under health-checks/ (Argo CD's
resource_customizations format: tests[].inputPath + healthStatus{status,
message}) and the status samples listed in health-checks/reference-samples.yaml:
ours in tests/status-samples, and the real objects upstream docs print, from
TESTDATA (`make test-deps`; skipped, saying so, until fetched). Every vector goes through

  * the Lua script next to its health_test.yaml, under lua5.1 in the argocd-cm
    sandbox (tests/tools/lua_sandbox_runner.lua: no string/math/io/os), and
  * the C judge: `$JAXJOB health -o json -f FILE`,

and prints TAP: one line per vector per judge (matches the expected status and
message exactly), one line per vector that the two judges agree, plus line
coverage of each Lua script, a static check that no shipped .lua names a
library argocd-cm lacks (even on paths no vector reaches) and canary scripts
proving the sandbox bites. It also runs every actions/action_test.yaml
(discoveryTests: the exact set of offered actions; actionTests: the patched
object) under the same sandbox.

lua5.1 has no YAML parser: this script loads the YAML (PyYAML, timestamps left
as strings) and hands lua5.1 a Lua table literal.

usage: health_vectors.py TOP JAXJOB [TESTDATA]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml


class Loader(yaml.SafeLoader):
    """SafeLoader that keeps timestamps as strings, like Kubernetes does."""


Loader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in rs if tag != "tag:yaml.org,2002:timestamp"]
    for ch, rs in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=Loader)


def lua_str(s):
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        if 32 <= b < 127 and c not in '"\\':
            out.append(c)
        else:
            out.append("\\%03d" % b)
    return '"' + "".join(out) + '"'


def lua_literal(v):
    """A Lua expression for a YAML/JSON value; nulls vanish (gopher-lua)."""
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v != v:
            return "(0/0)"
        if v in (float("inf"), float("-inf")):
            return "(1/0)" if v > 0 else "(-1/0)"
        return repr(v)
    if isinstance(v, str):
        return lua_str(v)
    if isinstance(v, list):
        return "{" + ",".join(lua_literal(x) for x in v if x is not None) + "}"
    if isinstance(v, dict):
        return "{" + ",".join("[%s]=%s" % (lua_str(str(k)), lua_literal(x))
                              for k, x in v.items() if x is not None) + "}"
    return lua_str(str(v))


def write_vectors(path, vectors):
    with open(path, "w", encoding="utf-8") as f:
        f.write("return {\n")
        for v in vectors:
            f.write("{name=%s,script=%s,obj=%s},\n" % (
                lua_str(v["name"]), lua_str(v["script"]), lua_literal(v["obj"])))
        f.write("}\n")


def run_lua(top, mode, vectors, tmp):
    vpath = os.path.join(tmp, "vectors-%s.lua" % mode)
    write_vectors(vpath, vectors)
    runner = os.path.join(top, "tests/tools/lua_sandbox_runner.lua")
    p = subprocess.run(["lua5.1", runner, mode, vpath], capture_output=True,
                       text=True, cwd=top)
    if p.returncode != 0:
        raise RuntimeError("lua runner failed: %s" % p.stderr.strip())
    results, coverage = {}, {}
    for line in p.stdout.splitlines():
        rec = json.loads(line)
        if "coverage" in rec:
            coverage = rec["coverage"]
        else:
            results[rec["name"]] = rec
    return results, coverage


class Tap:
    def __init__(self):
        self.failed = 0

    def check(self, cond, desc, detail=""):
        if cond:
            print("ok - %s" % desc)
        else:
            self.failed += 1
            print("not ok - %s" % desc)
            if detail:
                sys.stderr.write("--- %s\n%s\n" % (desc, detail))

    def skip(self, desc, why):
        print("ok - %s # SKIP %s" % (desc, why))


def find(top, name):
    base = os.path.join(top, "health-checks")
    found = []
    for root, dirs, files in os.walk(base):
        dirs.sort()
        if name in files:
            found.append(os.path.join(root, name))
    return sorted(found)


def sample_path(top, testdata, name):
    """A status sample: ours (tests/status-samples, derived from the operators' code) or
    one of the real objects upstream docs print ($JAXJOB_TESTDATA, `make test-deps`)."""
    for d in (os.path.join(top, "tests/status-samples"),
              os.path.join(testdata, "status-samples") if testdata else None):
        if d and os.path.isfile(os.path.join(d, name)):
            return os.path.join(d, name)
    return None


def health_vectors(top, testdata, tap):
    """All health vectors: (name, script, input file, expected)."""
    vectors = []
    for test_file in find(top, "health_test.yaml"):
        d = os.path.dirname(test_file)
        rel = os.path.relpath(d, os.path.join(top, "health-checks"))
        script = os.path.join(d, "health.lua")
        tests = load_yaml(test_file)["tests"]
        used = set()
        for t in tests:
            inp = os.path.join(d, t["inputPath"])
            used.add(os.path.normpath(inp))
            hs = t["healthStatus"]
            vectors.append({"name": "%s %s" % (rel, t["inputPath"]),
                            "script": os.path.relpath(script, top), "file": inp,
                            "expected": (hs["status"], hs.get("message", ""))})
        data = os.path.join(d, "testdata")
        orphans = sorted(f for f in os.listdir(data)
                         if os.path.normpath(os.path.join(data, f)) not in used)
        tap.check(not orphans, "%s: every testdata file is a vector" % rel,
                  "unused: %s" % ", ".join(orphans))
    samples = load_yaml(os.path.join(top, "health-checks/reference-samples.yaml"))
    for s in samples["samples"]:
        name = "sample %s" % s["sample"]
        path = sample_path(top, testdata, s["sample"])
        if not path:
            tap.skip(name, "a real object from upstream docs, " + os.environ.get(
                "JAXJOB_DEPS_WHY", "run `make test-deps`"))
            continue
        hs = s["healthStatus"]
        vectors.append({"name": name,
                        "script": os.path.join("health-checks", s["check"], "health.lua"),
                        "file": path,
                        "expected": (hs["status"], hs.get("message", ""))})
    return vectors


def c_judge(jaxjob, path):
    p = subprocess.run([jaxjob, "health", "-o", "json", "-f", path],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1, 3, 4, 5):
        return None, "exit %d: %s" % (p.returncode, p.stderr.strip())
    try:
        out = json.loads(p.stdout)
        return (out[0]["status"], out[0]["message"]), None
    except (ValueError, LookupError, TypeError) as e:
        return None, "bad output %r: %s" % (p.stdout[:200], e)


def run_health(top, jaxjob, testdata, tap, tmp):
    vectors = health_vectors(top, testdata, tap)
    for v in vectors:
        v["obj"] = load_yaml(v["file"])
    lua, coverage = run_lua(top, "health", vectors, tmp)
    for v in vectors:
        exp = v["expected"]
        rec = lua.get(v["name"], {"error": "no result"})
        got_lua = None
        if "result" in rec and isinstance(rec["result"], dict):
            r = rec["result"]
            got_lua = (r.get("status"), r.get("message", ""))
        tap.check(got_lua == exp, "lua: %s is %s" % (v["name"], exp[0]),
                  "expected %r, got %r" % (exp, got_lua or rec))
        got_c, err = c_judge(jaxjob, v["file"])
        tap.check(got_c == exp, "c: %s is %s" % (v["name"], exp[0]),
                  "expected %r, got %r" % (exp, got_c or err))
        tap.check(got_c is not None and got_c == got_lua,
                  "agree: %s (lua and C)" % v["name"],
                  "lua %r, C %r" % (got_lua, got_c or err))
    # Line coverage of each script under the vectors: a statement no vector
    # runs is a branch whose restricted-environment behaviour is untested.
    # Bare `end`/`else` lines only hold jumps that some flows skip; ignored.
    scripts = sorted({v["script"] for v in vectors})
    for s in scripts:
        with open(os.path.join(top, s), encoding="utf-8") as f:
            src = f.read().split("\n")
        missed = [n for n in coverage.get(s, [None])
                  if n is None or src[n - 1].strip() not in ("end", "else")]
        tap.check(s in coverage and missed == [],
                  "lua: every statement of %s runs under some vector" % s,
                  "lines never run: %r" % missed)


def norm(v):
    """Argo CD turns empty Lua tables back into the original {} or []."""
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items() if x is not None} or []
    if isinstance(v, list):
        return [norm(x) for x in v if x is not None] or []
    return v


def run_actions(top, tap, tmp):
    for test_file in find(top, "action_test.yaml"):
        d = os.path.dirname(test_file)
        rel = os.path.relpath(d, os.path.join(top, "health-checks"))
        spec = load_yaml(test_file)
        disc = []
        for t in spec.get("discoveryTests", []):
            disc.append({"name": t["inputPath"], "obj": load_yaml(os.path.join(d, t["inputPath"])),
                         "script": os.path.relpath(os.path.join(d, "discovery.lua"), top),
                         "expected": t["result"]})
        res, _ = run_lua(top, "discovery", disc, tmp)
        for v in disc:
            rec = res.get(v["name"], {})
            got = rec.get("result")
            # Argo CD shows the actions the table names; an empty table is none.
            got_set = sorted((k, a.get("iconClass", ""), bool(a.get("disabled", False)))
                             for k, a in (got.items() if isinstance(got, dict) else []))
            exp_set = sorted((a["name"], a.get("iconClass", ""), bool(a.get("disabled", False)))
                             for a in v["expected"])
            tap.check("result" in rec and got_set == exp_set,
                      "lua: %s discovery on %s offers %s" % (rel, v["name"],
                                                            [a[0] for a in exp_set] or "nothing"),
                      "expected %r, got %r" % (exp_set, rec))
        acts = []
        for t in spec.get("actionTests", []):
            acts.append({"name": "%s %s" % (t["action"], t["inputPath"]),
                         "obj": load_yaml(os.path.join(d, t["inputPath"])),
                         "script": os.path.relpath(os.path.join(d, t["action"], "action.lua"), top),
                         "expected": load_yaml(os.path.join(d, t["expectedOutputPath"]))})
        res, _ = run_lua(top, "action", acts, tmp)
        for v in acts:
            rec = res.get(v["name"], {})
            ok = "result" in rec and norm(rec["result"]) == norm(v["expected"])
            tap.check(ok, "lua: %s action %s gives the expected object" % (rel, v["name"]),
                      "got %r" % rec)


# Scripts that must FAIL in the sandbox (each uses something argocd-cm lacks)
# and one that must work: proves the runner really restricts the scripts.
CANARIES = [
    ("string library", 'return {status = string.upper("x")}'),
    ("string methods", 'return {status = ("Healthy"):sub(1)}'),
    ("math library", 'return {status = "Healthy", message = math.floor(1.5)}'),
    ("io library", 'io.write("x") return {status = "Healthy"}'),
    ("os library", 'return {status = "Healthy", message = os.getenv("HOME")}'),
    ("require", 'local s = require("string") return {status = "Healthy"}'),
    ("loadstring", 'return loadstring("return {status = \'Healthy\'}")()'),
    ("dofile", 'return dofile("/dev/null")'),
    ("getfenv", 'return {status = getfenv(0).string.upper("healthy")}'),
]


def sandbox_selftest(top, tap, tmp):
    vectors = []
    for i, (what, code) in enumerate(CANARIES + [("allowed", 'return {status = "Healthy", message = tostring(2) .. "/" .. 3 .. (type(table.insert) == "function" and "" or "?")}')]):
        path = os.path.join(tmp, "canary%d.lua" % i)
        with open(path, "w") as f:
            f.write(code + "\n")
        vectors.append({"name": what, "script": path, "obj": {}})
    res, _ = run_lua(top, "health", vectors, tmp)
    for what, _ in CANARIES:
        tap.check("error" in res.get(what, {}), "sandbox: a script using %s fails" % what,
                  "got %r" % res.get(what))
    got = res.get("allowed", {}).get("result")
    tap.check(got == {"status": "Healthy", "message": "2/3"},
              "sandbox: base functions, table and '..' on numbers work", "got %r" % got)


FORBIDDEN = re.compile(r"\b(string|math|io|os|debug|require|module|load|loadstring|"
                       r"loadfile|dofile|getfenv|setfenv)\b|:\s*[A-Za-z_]\w*\s*[(\"{]")


def code_only(text):
    """Lua source without comments and string literals (enough for our files)."""
    text = re.sub(r"--\[(=*)\[.*?\]\1\]", " ", text, flags=re.S)
    text = re.sub(r"--[^\n]*", " ", text)
    return re.sub(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', '""', text)


def static_lint(top, tap):
    """No shipped script names a library argocd-cm lacks or calls a method
    (s:sub()), even on a path no vector reaches."""
    base = os.path.join(top, "health-checks")
    for root, dirs, files in sorted(os.walk(base)):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(".lua"):
                continue
            path = os.path.join(root, f)
            with open(path, encoding="utf-8") as fh:
                code = code_only(fh.read())
            hits = sorted({m.group(0) for m in FORBIDDEN.finditer(code)})
            tap.check(not hits, "lua: %s uses no string/math/io/os/require/load*/methods"
                      % os.path.relpath(path, top), "found: %r" % hits)


def main():
    top, jaxjob = sys.argv[1], sys.argv[2]
    testdata = sys.argv[3] if len(sys.argv) > 3 else ""
    tap = Tap()
    with tempfile.TemporaryDirectory() as tmp:
        sandbox_selftest(top, tap, tmp)
        static_lint(top, tap)
        run_health(top, jaxjob, testdata, tap, tmp)
        run_actions(top, tap, tmp)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
