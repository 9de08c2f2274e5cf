#!/usr/bin/python3
"""tests/realserver/auditlog.py - the real kube-apiserver's audit log, read one way by the suites
(kcp.sh's kcp_audit runs it) and the benchmarks (bench/realserver.sh and bench/crowd.py import
it).

    auditlog.py LOG UA_PREFIX    every request of clients whose user agent starts with UA_PREFIX,
                                 one JSON line each {verb, uri, code, ua, user, time}

The control plane's policy (../shared/tools/kube-control-plane/up.sh) logs every request at level
Metadata, one JSON object a line, without the RequestReceived stage: a watch or a log follow is
written when its response starts (ResponseStarted) and again when it ends (ResponseComplete), a
short request once. Both stages of one request carry its auditID, so a request is counted once,
and a watch still open counts."""
import json
import sys


def read(path, ua_prefix, since=0):
    """(requests, end): the requests of clients whose user agent starts with ua_prefix logged from
    byte offset `since` on, one audit event per auditID (its last stage), in the order they were
    first logged; `end` is where the next read starts. A last line the apiserver is still writing
    (no newline yet) is left for that next read, not skipped as broken JSON."""
    with open(path, 'rb') as f:
        f.seek(since)
        data = f.read()
    whole = data[:data.rfind(b'\n') + 1]
    seen = {}
    for line in whole.splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if (e.get('userAgent') or '').startswith(ua_prefix):
            seen[e.get('auditID')] = e
    return list(seen.values()), since + len(whole)


def main():
    reqs, _ = read(sys.argv[1], sys.argv[2])
    for e in reqs:
        print(json.dumps({'verb': e.get('verb'), 'uri': e.get('requestURI'),
                          'code': (e.get('responseStatus') or {}).get('code'),
                          'ua': e.get('userAgent'), 'user': (e.get('user') or {}).get('username'),
                          'time': e.get('requestReceivedTimestamp')}))


if __name__ == '__main__':
    main()
