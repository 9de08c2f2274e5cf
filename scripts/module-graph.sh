#!/bin/sh
# scripts/module-graph.sh [--known FILE] [--known-graph FILE] [--objects DIR]
#                         [--report] [ROOT]
# - the sources read as a graph of modules; fails on a circle.
#
# Two checks, one reading of the sources (lib/ component/ component/launch/*/
# argocd-plugin/ health-checks/ under ROOT, default .; system and generated
# headers are no modules here):
#
# 1. Include circles (always; build/include-cycles-ok). A module here is a
#    file's name without its extension: foo.c and foo.h are one module. A
#    private header foo_int.h and the files its "Included by:" line names are
#    one module too, foo (they share its private state: the launch hub's
#    files, the workers spoke's, the kube client's around lib/kube/kube_int.h,
#    whose module is "kube" with lib/kube/kube.h); without that line, foo_int.h is
#    foo's when foo.c exists. "foo.c includes bar.h" is the arrow foo -> bar.
#    The same "Included by:" line is a rule too: a private header included by
#    a file it does not name, or a private header without the line, is one
#    error line each (the state such a header declares is its files' alone:
#    nothing else can write the launch hub's).
#
# 2. The module graph (with --objects DIR, the build's objects:
#    build/module-graph-ok). It sees calls, not only includes: nm of every
#    object says what it defines and what it uses.
#    - A module is one .c file with the header of its name (foo.c, foo.h, in
#      one folder); a header without a .c of its name is a module of its own
#      (launch_exit.h; a private foo_int.h: the state that the files it names
#      share). The top's jaxjob.c and commands.h are modules too.
#    - An arrow A -> B: a file of A includes a header of B, or A's object
#      uses (nm: U) a name that B's object alone defines (T, D, B, R, ...):
#      a call, or a read of B's data. A private header's includes of the
#      headers of the files it names draw no arrow: those files are above
#      their shared state, which only sees their types.
#    - A circle: modules that reach each other by arrows (a strongly
#      connected component of more than one). Each circle is one error line
#      naming it and what ties it (who calls which names, who includes what).
#    - A floor: a module stands one floor above the highest module it uses;
#      a module that uses none (in the part measured) is on floor 1, the
#      ground. Measured for component/ and for lib/ alone (arrows inside
#      the part) and for the whole tree.
#    - An arrow running back up: the launch is read by folder
#      (component/launch/*/, docs/architecture.md) and the folders stand in
#      a strict stack, FOLDERS below: run 7 (the command and its steps), hub
#      6 (the wait's one decider), spokes 5 (what the hub listens to),
#      context 4 (what the run's parts share: the context, the loop's one
#      driver, the stdout sink), cli 3 (the command line), outputs 2 (what
#      the run writes), decide 1 (the verdict, the outcome, the diagnosis's
#      headline). An arrow from a module of one folder to a module of
#      another folder of the same or a higher rank runs back up; folder
#      pairs are counted (spokes -> hub is one, however many module arrows
#      make it), and more than BACK_MAX (0: none) fail. A folder not in
#      FOLDERS fails too: give it its rank first.
#    Without --report it prints one line of figures per part; --report adds
#    the floors and the arrows running back up with what makes them.
#
# A circle accepted for now is one line of KNOWN (include circles) or
# KNOWN_GRAPH (the module graph) below: its modules in any order (paths in
# KNOWN_GRAPH), a colon, and why (with what would break it). A listed line
# that no longer matches a circle exactly fails too, so the lists stay true:
# a circle that grows or shrinks is looked at again. --known FILE and
# --known-graph FILE read a list from FILE instead (the check's own tests).
#
# How: the strongly connected components of the graph (Tarjan); a component
# of more than one module is a circle, named by the shortest cycle through
# its first module (breadth first, within the component); floors by the
# longest way down from each component. POSIX sh, awk (mawk has no and(),
# strtonum; none is used) and nm (binutils).

KNOWN='
# (none: issue 25 cleared the last ones)
'
KNOWN_GRAPH='
# (none: the parts of render include render_set.h, which stands below them)
'
FOLDERS='run:7 hub:6 spokes:5 context:4 cli:3 outputs:2 decide:1'
BACK_MAX=0
# lib/ is read by folder too, a family per folder (docs/architecture.md):
# job 4 (the job model: APIs, parameters, templates, the build path) above
# kube 3 (the client) and health 3 (the judge, the diagnosis), above yj 2
# (YAML/JSON), git 2 and metrics 2, above lib's own files, "lib" 1 (buffers,
# errors, maps, names: the ground). No arrow between lib's folders may run
# back up (same rank or higher): LIB_BACK_MAX is 0.
LIB_FOLDERS='job:4 kube:3 health:3 yj:2 git:2 metrics:2 lib:1'
LIB_BACK_MAX=0

known_file= known_graph_file= objects= report=
while [ $# -gt 0 ]; do
	case $1 in
	--known) known_file=$2; shift 2 ;;
	--known-graph) known_graph_file=$2; shift 2 ;;
	--objects) objects=$2; shift 2 ;;
	--report) report=1; shift ;;
	*) break ;;
	esac
done
if [ -n "$known_file" ]; then
	KNOWN=$(cat "$known_file") || exit 2
fi
if [ -n "$known_graph_file" ]; then
	KNOWN_GRAPH=$(cat "$known_graph_file") || exit 2
fi
root=${1:-.}
case $objects in
/*|'') ;;
*) objects=$PWD/$objects ;;
esac
cd "$root" || exit 2
set --
for f in lib/*.[ch] lib/*/*.[ch] component/*.[ch] component/launch/*/*.[ch] argocd-plugin/*.[ch] health-checks/*.[ch]; do
	[ -f "$f" ] && set -- "$@" "$f"
done
[ $# -gt 0 ] || { echo "module-graph: error: no sources under $root" >&2; exit 2; }
tmp=
nmfile= kgfile=
if [ -n "$objects" ]; then
	tmp=$(mktemp -d) || exit 2
	trap 'rm -rf "$tmp"' EXIT
	for f in jaxjob.c commands.h; do
		[ -f "$f" ] && set -- "$@" "$f"
	done
	nmfile=$tmp/nm
	kgfile=$tmp/known-graph
	printf '%s\n' "$KNOWN_GRAPH" >"$kgfile"
	objs=
	for f in "$@"; do
		case $f in
		*.c) ;;
		*) continue ;;
		esac
		o=$objects/${f%.c}.o
		if [ ! -f "$o" ]; then
			echo "module-graph: error: no object $o for $f: build it first (make)" >&2
			exit 2
		fi
		objs="$objs $o"
	done
	# one nm for all ("OBJ: SYMBOL TYPE ..."; the paths have no blanks)
	nm -A -P $objs >"$nmfile" || exit 2
	set -- "$kgfile" "$@" "$nmfile"
fi
printf '%s\n' "$KNOWN" | awk -v nmfile="$nmfile" -v kgfile="$kgfile" -v objdir="$objects" -v folders="$FOLDERS" \
	-v backmax="$BACK_MAX" -v libfolders="$LIB_FOLDERS" -v libbackmax="$LIB_BACK_MAX" -v report="$report" '

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
# ---- the module graph (--objects) ------------------------------------------
# dir/stem of a path: lib/kube/kube_client.c -> lib/kube/kube_client
# The circles the last search found (found[1..nfound]), against the list of
# known ones `kn` (members -> reason) and those listed without a reason `nr`:
# an unlisted circle, a listed one without a reason and a listed one no longer
# found are each one error line on stderr. Returns 1 when there was any.
function report_circles(what, kn, nr, listname, advice,   i, key, e, c, line, hops, seen, bad) {
	bad = 0
	for (i = 1; i <= nfound; i++) {
		key = members_of(found[i])
		if (key in kn) {
			seen[key] = 1
			continue
		}
		split(key, e, " ")
		c = cycle_of(e[1])
		line = "module-graph: error: " what " " c
		if (split(c, hops, " -> ") - 1 < ncomp[found[i]])
			line = line "; all in one circle: " key
		print line ": " advice ", or list the circle in " listname " (scripts/module-graph.sh) with the reason" > "/dev/stderr"
		bad = 1
	}
	for (key in nr) {
		print "module-graph: error: the known circle \"" key "\" gives no reason: say after its colon why it stays (and what would break it)" > "/dev/stderr"
		bad = 1
	}
	for (key in kn)
		if (!(key in seen)) {
			print "module-graph: error: the known circle \"" key "\" is no longer a circle as listed: update or remove its line in " listname " (scripts/module-graph.sh)" > "/dev/stderr"
			bad = 1
		}
	return bad
}

function stemof(path,   s) {
	s = path
	sub(/\.[^.\/]*$/, "", s)
	return s
}
# the module of a file: the .c of its name (in its folder), else itself
function modof(path,   s) {
	s = stemof(path)
	if (path ~ /\.h$/ && (s in cfile))
		return cfile[s]
	return path
}
function inscope(m, sc) {
	return sc == "" || index(m, sc) == 1
}
# the launch folder of a module (component/launch/FOLDER/...), or ""
function folder_of(m,   f) {
	if (m !~ /^component\/launch\/[^\/]+\//)
		return ""
	f = m
	sub(/^component\/launch\//, "", f)
	sub(/\/.*/, "", f)
	return f
}
# the lib folder of a module: lib/FOLDER/... -> FOLDER, lib/file -> "lib"; else ""
function lib_folder_of(m,   f) {
	if (m !~ /^lib\//)
		return ""
	f = m
	sub(/^lib\//, "", f)
	if (f !~ /\//)
		return "lib"
	sub(/\/.*/, "", f)
	return f
}
function addwhy(v, w, kind, what) {
	if (!((v, w) in isarrow)) {
		isarrow[v, w] = 1
		arrowv[++narrow] = v
		arroww[narrow] = w
	}
	if (kind == "calls") {
		if (!((v, w, what) in seenname) && ncalls[v, w]++ < 4)
			gcalls[v, w] = gcalls[v, w] " " what
		seenname[v, w, what] = 1
	} else if (!((v, w) in gincl)) {
		gincl[v, w] = what
	}
}
function label(v, w,   s) {
	s = ""
	if ((v, w) in gincl)
		s = "includes " gincl[v, w]
	if (ncalls[v, w])
		s = s (s == "" ? "" : " and ") "uses" gcalls[v, w] (ncalls[v, w] > 4 ? " ..." : "")
	return v " " s
}
# the floor of m within the part sc: one above the highest it uses there
function floor_of(m, sc,   i, j, v, w, f, best) {
	if ((sc, comp[m]) in fl)
		return fl[sc, comp[m]]
	fl[sc, comp[m]] = 1
	best = 1
	for (i = 1; i <= nmod; i++) {
		v = mods[i]
		if (comp[v] != comp[m])
			continue
		for (j = 1; j <= nadj[v]; j++) {
			w = adj[v, j]
			if (comp[w] == comp[m] || !inscope(w, sc))
				continue
			f = floor_of(w, sc) + 1
			if (f > best)
				best = f
		}
	}
	fl[sc, comp[m]] = best
	return best
}
# one line of figures for the part sc; with --report its floors too
function part(sc, name,   i, n, a, top, f, k, line) {
	n = a = top = 0
	for (i = 1; i <= nmod; i++)
		if (inscope(mods[i], sc)) {
			n++
			f = floor_of(mods[i], sc)
			if (f > top)
				top = f
		}
	for (i = 1; i <= narrow; i++)
		if (inscope(arrowv[i], sc) && inscope(arroww[i], sc))
			a++
	line = "module-graph: " name ": " n " modules on " top " floors, " a " arrows"
	if (sc == "component/")
		line = line ", " nback " running back up between the launch folders" (nback ? " (" backlist ")" : "")
	if (sc == "lib/")
		line = line ", " nlback " running back up between the lib folders" (nlback ? " (" lbacklist ")" : "")
	print line
	if (!report)
		return
	for (i = 1; i <= nmixed; i++)
		if (inscope(mixed[i], sc))
			print "  a circle (its modules share a floor): " mixed[i]
	for (f = top; f >= 1; f--) {
		line = ""
		for (i = 1; i <= nmod; i++)
			if (inscope(mods[i], sc) && floor_of(mods[i], sc) == f) {
				k = mods[i]
				sub(/.*\//, "", k)
				line = line " " k
			}
		print "  floor " f ":" line
	}
}
# the strongly connected components of the arrows
function tarjan(   i) {
	delete idx
	delete low
	delete onstack
	delete comp
	delete found
	delete ncomp
	delete adj
	delete nadj
	nfound = counter = sp = 0
	for (i = 1; i <= narrow; i++)
		adj[arrowv[i], ++nadj[arrowv[i]]] = arroww[i]
	for (i = 1; i <= nmod; i++)
		if (!(mods[i] in idx))
			strong(mods[i])
}
function graph(   i, e, v, w, m, key, c, hops, r, fv, fw, p, np, fr, nf) {
	delete site
	delete mods
	delete ismod
	nmod = 0
	for (i = 1; i <= nfiles; i++) {
		m = modof(files[i])
		fmod[files[i]] = m
		if (!(m in ismod)) {
			ismod[m] = 1
			mods[++nmod] = m
		}
		if (files[i] ~ /\.h$/)
			hmod[base(files[i])] = m	# by name, as the sources include it
	}
	for (i = 1; i <= nfincl; i++) {
		split(fincl[i], e, SUBSEP)
		if (!(e[2] in hmod))
			continue
		v = fmod[e[1]]
		w = hmod[e[2]]
		if (v == w || (e[1], modname(w)) in sharer)
			continue
		addwhy(v, w, "includes", e[2] " (" e[3] ")")
	}
	for (i = 1; i <= nuse; i++) {
		split(uses[i], e, SUBSEP)
		if (ndef[e[2]] != 1)
			continue
		v = fmod[e[1]]
		w = fmod[defsrc[e[2]]]
		if (v != "" && w != "" && v != w)
			addwhy(v, w, "calls", e[2])
	}
	for (i = 1; i <= narrow; i++)
		site[arrowv[i], arroww[i]] = label(arrowv[i], arroww[i])
	tarjan()
	if (report_circles("circle", gknown, gnoreason, "KNOWN_GRAPH",
			   "move what both sides need into a module below them (or report up through a table, as the launch spokes do)"))
		bad = 1
	nmixed = 0
	for (i = 1; i <= nfound; i++)
		mixed[++nmixed] = members_of(found[i])
	folders_back("launch", folders, backmax)
	folders_back("lib", libfolders, libbackmax)
	nback = nbk["launch"]
	backlist = bklist["launch"]
	nlback = nbk["lib"]
	lbacklist = bklist["lib"]
	part("component/", "component/")
	part("lib/", "lib/")
	part("", "the whole tree")
	if (report) {
		for (i = 1; i <= nback; i++)
			print "  back up " bkkeys["launch", i] ":" bk["launch", bkkeys["launch", i]]
		for (i = 1; i <= nlback; i++)
			print "  back up lib " bkkeys["lib", i] ":" bk["lib", bkkeys["lib", i]]
	}
}
# The folders of a tree read by folder ("launch": component/launch/*/, ranked by
# FOLDERS; "lib": lib/*/ and lib itself, ranked by LIB_FOLDERS) and their ranks
# ("name:rank ..."): an arrow from one folder to another of the same or a higher
# rank runs back up; more than max folder pairs fail, and so does a folder
# without a rank. Leaves nbk[tree], bklist[tree], bkkeys[tree, i], bk[tree, key].
function folders_back(tree, ranks, max,   i, nf, p, fr, fv, fw, v, w, key, rk, where, var) {
	where = tree == "lib" ? "lib/" : "component/launch/"
	var = tree == "lib" ? "LIB_FOLDERS" : "FOLDERS"
	nf = split(ranks, p, " ")
	for (i = 1; i <= nf; i++) {
		split(p[i], fr, ":")
		rk[fr[1]] = fr[2] + 0
	}
	for (i = 1; i <= nmod; i++) {
		fv = folder_in(tree, mods[i])
		if (fv != "" && !(fv in rk) && !((tree, fv) in norank)) {
			norank[tree, fv] = 1
			print "module-graph: error: " where fv "/ has no rank among the " tree " folders: add it to " var " (scripts/module-graph.sh) and docs/architecture.md" > "/dev/stderr"
			bad = 1
		}
	}
	nbk[tree] = 0
	bklist[tree] = ""
	for (i = 1; i <= narrow; i++) {
		v = arrowv[i]
		w = arroww[i]
		fv = folder_in(tree, v)
		fw = folder_in(tree, w)
		if (fv == "" || fw == "" || fv == fw || !(fv in rk) || !(fw in rk) || rk[fw] < rk[fv])
			continue
		key = fv " -> " fw
		if (!((tree, key) in bk)) {
			bkkeys[tree, ++nbk[tree]] = key
			bklist[tree] = bklist[tree] (bklist[tree] == "" ? "" : ", ") key
		}
		bk[tree, key] = bk[tree, key] "\n    " site[v, w]
	}
	if (nbk[tree] > max) {
		print "module-graph: error: " nbk[tree] " arrows run back up between the " tree " folders (at most " max "): " bklist[tree] "; move the file or the names to the folder where they belong (docs/architecture.md)" > "/dev/stderr"
		for (i = 1; i <= nbk[tree]; i++)
			print "  " bkkeys[tree, i] ":" bk[tree, bkkeys[tree, i]] > "/dev/stderr"
		bad = 1
	}
}
function folder_in(tree, m) {
	return tree == "lib" ? lib_folder_of(m) : folder_of(m)
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
FILENAME == kgfile {
	sub(/#.*/, "")
	if ($0 !~ /:/)
		next
	reason = $0
	sub(/^[^:]*:[ \t]*/, "", reason)
	key = sorted_words(substr($0, 1, index($0, ":") - 1))
	if (reason ~ /^[ \t]*$/)
		gnoreason[key] = 1
	gknown[key] = reason
	next
}
# "OBJDIR/SOURCE.o: SYMBOL TYPE ...": nm -A -P of the objects
FILENAME == nmfile {
	$1 = substr($1, length(objdir) + 2)
	sub(/\.o:$/, ".c", $1)
	if ($3 == "U")
		uses[++nuse] = $1 SUBSEP $2
	else if ($3 ~ /^[TDBRCGSVW]$/ && !(($2, $1) in defpair)) {
		defpair[$2, $1] = 1
		ndef[$2]++
		defsrc[$2] = $1
	}
	next
}
FNR == 1 {
	files[++nfiles] = FILENAME
	if (FILENAME ~ /\.c$/)
		cfile[stemof(FILENAME)] = FILENAME
}
FNR == 1 && FILENAME !~ /\// {
	rootonly = 1	# jaxjob.c, commands.h: the module graph only
}
FNR == 1 && FILENAME ~ /\// {
	rootonly = 0
}
rootonly && /^[ \t]*#[ \t]*include[ \t]*"/ {
	t = $0
	sub(/^[^"]*"/, "", t)
	sub(/".*/, "", t)
	fincl[++nfincl] = FILENAME SUBSEP base(t) SUBSEP FILENAME ":" FNR
	next
}
rootonly {
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
			sharer[FILENAME, modname(fs[i])] = 1
		}
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	t = $0
	sub(/^[^"]*"/, "", t)
	sub(/".*/, "", t)
	rawedge[++nraw] = modname(FILENAME) SUBSEP modname(t) SUBSEP FILENAME ":" FNR
	fincl[++nfincl] = FILENAME SUBSEP base(t) SUBSEP FILENAME ":" FNR
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
			print "module-graph: error: " privates[h] " has no \"Included by:\" line: name the files that share it" > "/dev/stderr"
			bad = 1
		}
	for (i = 1; i <= npriv; i++) {
		split(privinc[i], e, SUBSEP)
		if ((e[1] in named) && !((e[1], e[2]) in mayinclude)) {
			print "module-graph: error: " e[3] " includes " e[1] ", a private header that names only: " named[e[1]] > "/dev/stderr"
			bad = 1
		}
	}
	if (report_circles("include circle", known, noreason, "KNOWN",
			   "move what both sides need into a module below them"))
		bad = 1
	if (nmfile != "")
		graph()
	exit bad
}
' - "$@"
