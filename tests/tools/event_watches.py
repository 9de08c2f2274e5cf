#!/usr/bin/env python3
"""event_watches.py USER SELECTOR_REGEX... < requests

The requests: the test double's request log (a JSON list: /_test/requests) or the real
apiserver's, one JSON object a line ({verb, uri, user}: tests/realserver/kcp.sh kcp_audit).
Exit 0 when every request USER sent for core events (a list or a watch) carried a field
selector matching one of the SELECTOR_REGEXes in full, and each regex matched at least one
request: the user's event reads are scoped as the test expects (never the whole namespace).
Otherwise exit 1, saying which request or regex broke the rule."""
import json
import re
import sys
import urllib.parse


def requests(text):
    """Either log as the double's entries: user, method, path, query."""
    if text.lstrip().startswith('['):
        return json.loads(text)
    out = []
    for line in text.splitlines():
        if line.strip():
            a = json.loads(line)
            path, _, query = (a.get('uri') or '').partition('?')
            out.append({'user': a.get('user'), 'method': a.get('verb'), 'path': path,
                        'query': query})
    return out


def main():
    user, pats = sys.argv[1], [re.compile(p) for p in sys.argv[2:]]
    used = [0] * len(pats)
    for r in requests(sys.stdin.read()):
        if r['user'] != user or not re.search(r'/api/v1/namespaces/[^/]+/events$', r['path']):
            continue
        sel = urllib.parse.parse_qs(r.get('query') or '').get('fieldSelector', [''])[0]
        hits = [i for i, p in enumerate(pats) if p.fullmatch(sel)]
        if not hits:
            sys.exit(f'event_watches: {user} sent {r["method"]} {r["path"]}?{r.get("query")}: '
                     f'field selector {sel!r} is none of {sys.argv[2:]}')
        for i in hits:
            used[i] += 1
    missing = [sys.argv[2 + i] for i, n in enumerate(used) if not n]
    if missing:
        sys.exit(f'event_watches: no event request of {user} with a field selector {missing}')


if __name__ == '__main__':
    main()
