"""Check the failure outputs of one `jaxjob launch` (--out-failure, --out-failure-category,
--out-message, --out-summary written under DIR) against what the scenario must give.

    failure_check.py DIR WORKER CATEGORY EXIT_CODE LAST_LINE_REGEX [EXCEPTION]

EXIT_CODE '-' means the container never exited (exit_code null). Prints what differs and
exits 1; prints nothing and exits 0 when everything matches. Python 3 standard library."""
import json
import re
import sys


def main():
    d, worker, category, code, last = sys.argv[1:6]
    exc = sys.argv[6] if len(sys.argv) > 6 else None
    bad = []
    f = json.load(open(d + '/failure'))
    want_code = None if code == '-' else int(code)
    # one worker: where several fail alike (an image no registry has), the launcher names the
    # one the diagnosis names, by index (lib/health/diagnose.h), whatever order they were seen in
    worker = int(worker)
    for key, want in (('worker', worker), ('category', category), ('exit_code', want_code)):
        if f.get(key) != want:
            bad.append(f'failure.{key} = {f.get(key)!r}, want {want!r}')
    lines = f.get('last_lines') or []
    if want_code is not None and not (lines and re.search(last, lines[-1])):
        bad.append(f'failure.last_lines ends {lines[-1:]!r}, want /{last}/')
    if want_code is None and not re.search(last, f.get('message') or ''):
        bad.append(f'failure.message = {f.get("message")!r}, want /{last}/')
    if exc is not None and f.get('exception') != exc:
        bad.append(f'failure.exception = {f.get("exception")!r}, want {exc!r}')
    for key in ('pod', 'node', 'reason', 'finished_at', 'signal', 'collateral', 'last_lines'):
        if key not in f:
            bad.append(f'failure has no {key}')
    cat = open(d + '/category').read()
    if cat != category:
        bad.append(f'category output = {cat!r}, want {category!r}')
    msg = open(d + '/message').read()
    if not msg.startswith(f'worker-{worker} '):
        bad.append(f'message does not lead with the cause: {msg[:120]!r}')
    md = open(d + '/summary').read()
    why = md.split('#### Why it failed', 1)
    if len(why) != 2:
        bad.append('summary has no "Why it failed" section')
    elif f'| category | {category} |' not in why[1]:
        bad.append('the summary section does not name the category')
    elif lines:
        block = re.search(r'\n(`{3,})text\n(.*?)\n\1\n', why[1], re.S)
        if not block or block.group(2).splitlines()[-1] != lines[-1][:400]:
            bad.append('the summary does not quote the last lines in a code block')
    for b in bad:
        print(b)
    return 1 if bad else 0


sys.exit(main())
