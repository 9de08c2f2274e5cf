#!/bin/sh
# scripts/include-cycles.sh [--known FILE] [ROOT] - fail when the sources'
# #include "..." lines make a circle between modules.
#
# A module is a file's name without its extension: foo.c and foo.h are one
# module. A private header foo_int.h and the files its "Included by:" line
# names are one module too, foo (they share its private state: the launch
# hub's files, the workers spoke's, the kube client's around lib/kube_int.h,
# whose module is "kube" with lib/kube.h); without that line, foo_int.h is
# foo's when foo.c exists. So "foo.c includes bar.h" is the dependency
# foo -> bar. A circle (foo -> bar -> ... -> foo) means neither side can be read, tested or
# changed without the other: the layering the headers describe is false.
# Only the project's own files count (lib/ component/ argocd-plugin/
# health-checks/ under ROOT, default .); system and generated headers are
# no modules here.
#
# Every circle found is one line on stderr naming it and the include lines
# that make it, and the exit status is 1. A circle accepted for now is one
# line of KNOWN below: its modules in any order, a colon, and why (with what
# would break it). A KNOWN line that no longer matches a circle exactly
# fails too, so the list stays true: a circle that grows or shrinks is
# looked at again. --known FILE reads the list from FILE instead (the
# check's own test). The build runs this: build/include-cycles-ok in the
# Makefile.
#
# The same "Included by:" line is a rule too: a private header included by
# a file it does not name, or a private header without the line, is one
# error line each (the state such a header declares is its files' alone:
# nothing else can write the launch hub's).
#
# How: the strongly connected components of the module graph (Tarjan); a
# component of more than one module is a circle, named by the shortest
# cycle through its first module (breadth first, within the component).
# POSIX sh and awk (mawk has no and(), strtonum; none is used).

KNOWN='
# (none: issue 25 cleared the last ones)
'

known_file=
if [ "$1" = --known ]; then
	known_file=$2
	shift 2
fi
if [ -n "$known_file" ]; then
	KNOWN=$(cat "$known_file") || exit 2
fi
root=${1:-.}
cd "$root" || exit 2
set --
for f in lib/*.[ch] component/*.[ch] component/launch/*/*.[ch] argocd-plugin/*.[ch] health-checks/*.[ch]; do
	[ -f "$f" ] && set -- "$@" "$f"
done
[ $# -gt 0 ] || { echo "include-cycles: error: no sources under $root" >&2; exit 2; }
printf '%s\n' "$KNOWN" | awk '
function base(path,   b) {
	b = path
	sub(/.*\//, "", b)
	return b
}
function modname(path,   m) {
	m = path
	sub(/.*\//, "", m)
	sub(/\.[^.]*$/, "", m)
	return m
}
# Tarjan: v gets an index and a low link; a root of its component pops it
function strong(v,   i, w, n) {
	idx[v] = low[v] = ++counter
	stack[++sp] = v
	onstack[v] = 1
	for (i = 1; i <= nadj[v]; i++) {
		w = adj[v, i]
		if (!(w in idx)) {
			strong(w)
			if (low[w] < low[v])
				low[v] = low[w]
		} else if (onstack[w] && idx[w] < low[v]) {
			low[v] = idx[w]
		}
	}
	if (low[v] != idx[v])
		return
	n = 0
	do {
		w = stack[sp--]
		onstack[w] = 0
		comp[w] = v
		n++
	} while (w != v)
	if (n > 1)
		found[++nfound] = v
	ncomp[v] = n
}
# the words of s sorted, space-separated: one key for a set of modules
function sorted_words(s,   list, n, i, j, t) {
	n = split(s, list, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && list[j - 1] > list[j]; j--) {
			t = list[j]; list[j] = list[j - 1]; list[j - 1] = t
		}
	s = list[1]
	for (i = 2; i <= n; i++)
		s = s " " list[i]
	return s
}
# the modules of the component rooted at r, sorted
function members_of(r,   i, s) {
	s = ""
	for (i = 1; i <= nmod; i++)
		if (comp[mods[i]] == r)
			s = s " " mods[i]
	return sorted_words(s)
}
# the shortest cycle from s back to s inside its component, with the
# include line of every step
function cycle_of(s,   head, tail, q, v, i, w, from, path, where, hops, seen) {
	head = tail = 1
	q[1] = s
	while (head <= tail) {
		v = q[head++]
		for (i = 1; i <= nadj[v]; i++) {
			w = adj[v, i]
			if (comp[w] != comp[s])
				continue
			if (w == s) {
				from[s] = v
				head = tail + 1
				break
			}
			if (!(w in seen)) {
				seen[w] = 1
				from[w] = v
				q[++tail] = w
			}
		}
	}
	path = s
	where = ""
	w = s
	do {
		v = from[w]
		path = v " -> " path
		where = (where == "" ? "" : ", ") where
		where = site[v, w] where
		w = v
	} while (w != s)
	return path " (" where ")"
}
FILENAME == "-" {
	sub(/#.*/, "")
	if ($0 !~ /:/)
		next
	reason = $0
	sub(/^[^:]*:[ \t]*/, "", reason)
	key = sorted_words(substr($0, 1, index($0, ":") - 1))
	if (reason ~ /^[ \t]*$/)
		noreason[key] = 1
	known[key] = reason
	next
}
FNR == 1 {
	if (FILENAME ~ /_int\.h$/)
		privates[base(FILENAME)] = FILENAME
	m = modname(FILENAME)
	if (FILENAME ~ /\.c$/)
		hasc[m] = 1
	if (!(m in ismod)) {
		ismod[m] = 1
		mods[++nmod] = m
	}
}
# a private header names the files that share it: they are its module
FILENAME ~ /_int\.h$/ && /Included by:/ {
	t = $0
	sub(/.*Included by:[ \t]*/, "", t)
	b = modname(FILENAME)
	sub(/_int$/, "", b)
	group[modname(FILENAME)] = b
	named[base(FILENAME)] = t
	n = split(t, fs, /[ \t]+/)
	for (i = 1; i <= n; i++)
		if (fs[i] != "") {
			group[modname(fs[i])] = b
			mayinclude[base(FILENAME), fs[i]] = 1
		}
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	t = $0
	sub(/^[^"]*"/, "", t)
	sub(/".*/, "", t)
	rawedge[++nraw] = modname(FILENAME) SUBSEP modname(t) SUBSEP FILENAME ":" FNR
	if (t ~ /_int\.h$/)
		privinc[++npriv] = base(t) SUBSEP base(FILENAME) SUBSEP FILENAME ":" FNR
}
END {
	# a private header and the files its "Included by:" line names are
	# one module (the name of the header without _int); without such a
	# line, foo_int.h belongs to foo when foo.c exists
	for (i = 1; i <= nmod; i++) {
		b = mods[i]
		if (mods[i] in group)
			b = group[mods[i]]
		else if (!sub(/_int$/, "", b) || !(b in hasc))
			continue
		if (b != mods[i])
			canon[mods[i]] = b
		if (!(b in ismod)) {
			ismod[b] = 1
			mods[++nmod] = b
		}
	}
	for (i = 1; i <= nraw; i++) {
		split(rawedge[i], e, SUBSEP)
		if (e[1] in canon)
			e[1] = canon[e[1]]
		if (e[2] in canon)
			e[2] = canon[e[2]]
		if (!(e[2] in ismod) || e[1] == e[2])
			continue
		if (!((e[1], e[2]) in site)) {
			adj[e[1], ++nadj[e[1]]] = e[2]
			site[e[1], e[2]] = e[3]
		}
	}
	for (i = 1; i <= nmod; i++)
		if (!(mods[i] in idx) && !(mods[i] in canon))
			strong(mods[i])
	bad = 0
	# a private header is included only by the files it names: the state it
	# declares is theirs alone (the launch hub: nothing else can write it)
	for (h in privates)
		if (!(h in named)) {
			print "include-cycles: error: " privates[h] " has no \"Included by:\" line: name the files that share it" > "/dev/stderr"
			bad = 1
		}
	for (i = 1; i <= npriv; i++) {
		split(privinc[i], e, SUBSEP)
		if ((e[1] in named) && !((e[1], e[2]) in mayinclude)) {
			print "include-cycles: error: " e[3] " includes " e[1] ", a private header that names only: " named[e[1]] > "/dev/stderr"
			bad = 1
		}
	}
	for (i = 1; i <= nfound; i++) {
		key = members_of(found[i])
		if (key in known) {
			seenknown[key] = 1
			continue
		}
		split(key, first, " ")
		c = cycle_of(first[1])
		line = "include-cycles: error: include circle " c
		if (split(c, hops, " -> ") - 1 < ncomp[found[i]])
			line = line "; all in one circle: " key
		print line ": move what both sides need into a module below them, or list the circle in KNOWN (scripts/include-cycles.sh) with the reason" > "/dev/stderr"
		bad = 1
	}
	for (key in noreason) {
		print "include-cycles: error: the known circle \"" key "\" gives no reason: say after its colon why it stays (and what would break it)" > "/dev/stderr"
		bad = 1
	}
	for (key in known)
		if (!(key in seenknown)) {
			print "include-cycles: error: the known circle \"" key "\" is no longer a circle as listed: update or remove its line in KNOWN (scripts/include-cycles.sh)" > "/dev/stderr"
			bad = 1
		}
	exit bad
}
' - "$@"
