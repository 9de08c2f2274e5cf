#!/usr/bin/env bash
# tests/suites/86-errors.sh - the errors a new user meets first, word for
# word: one wording for an unknown command or option across launch, render
# and health, with a "did you mean" from the one edit distance (lib/suggest.c),
# one for a missing value, one meaning of `--` (lib/parseopt.c);
# required options named as options and marked in --help; -ojson accepted by
# health as by launch. Each case asserts the exact stderr line and exit code.
# (The errors that need an API server are in 62-launch-errors.sh.)
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
H=$JAXJOB_TOP/health-checks/kubeflow.org/JAXJob/testdata

# exactly: EXIT-CODE 'STDERR LINE' DESCRIPTION COMMAND...  (stdout empty)
exactly() {
	local code=$1 line=$2 desc=$3
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ "$rc" -eq "$code" ] && [ ! -s "$T/out" ] && [ "$(cat "$T/err")" = "$line" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		{ echo "--- $desc: rc=$rc (want $code)"; echo "want: $line"; echo "got:"; cat "$T/err"; head -c 300 "$T/out"; } >&2
	fi
}

# --- commands ------------------------------------------------------------------
exactly 2 'error: unknown command lanch (did you mean launch?); see `jaxjob help`' \
	'a mistyped command gets a did-you-mean' jj lanch --name x
exactly 2 'error: unknown command helth (did you mean health?); see `jaxjob help`' \
	'every command is a candidate (health)' jj helth
exactly 2 'error: unknown command deploy; see `jaxjob help`' \
	'a word close to no command gets no guess' jj deploy
exactly 2 'error: unknown option --verison (did you mean --version?); see `jaxjob help`' \
	'a mistyped top-level option' jj --verison
exactly 2 'error: unknown command rendr (did you mean render?); see `jaxjob help`' \
	'jaxjob help with a mistyped command' jj help rendr

# --- options: the same wording in the three commands ------------------------------
exactly 2 'error: unknown option --worker (did you mean --workers?); see `jaxjob launch --help`' \
	'launch: --worker suggests --workers' jj launch --dry-run --name x --image i:1 --worker 3
exactly 2 'error: unknown option --wrokers (did you mean --workers?); see `jaxjob launch --help`' \
	'launch: a swap of two letters counts as one edit' jj launch --dry-run --name x --image i:1 --wrokers=3
exactly 2 'error: unknown option --frobnicate; see `jaxjob launch --help`' \
	'launch: no guess when nothing is close' jj launch --dry-run --name x --frobnicate
exactly 2 'error: unknown option -x; see `jaxjob launch --help`' \
	'launch: one letter is too short to guess from' jj launch --dry-run --name x -x
exactly 2 'error: unknown option --paramz (did you mean --params?); see `jaxjob render --help`' \
	'render: the same wording' jj render --paramz
exactly 2 'error: unknown option --fil (did you mean --file?); see `jaxjob health --help`' \
	'health: the same wording' jj health --fil x.yaml
exactly 2 'error: unexpected argument job.yaml; give the file with -f FILE; see `jaxjob health --help`' \
	'health: a bare file name says how to give it' jj health job.yaml

# --- a missing value: one wording, the option's long name and what its value is --------
exactly 2 'error: --workers needs a value (N); see `jaxjob launch --help`' \
	'launch: a value missing at the end' jj launch --dry-run --name x --image i:1 --workers
exactly 2 'error: --kubeconfig needs a value (FILE); see `jaxjob launch --help`' \
	'launch: an empty value where one is needed, the same words' jj launch --dry-run --name x --kubeconfig=
exactly 2 'error: --repo needs a value (PATH|URL); see `jaxjob render --help`' \
	'render: the same wording' jj render --repo
exactly 2 'error: --repo needs a value (PATH|URL); see `jaxjob render --help`' \
	'render: --repo= (empty) the same' jj render --repo=
exactly 2 'error: --diff needs two values (REV1 REV2); see `jaxjob render --help`' \
	'render: a pair short of its second value' jj render --diff v1
exactly 2 'error: --file needs a value (FILE); see `jaxjob health --help`' \
	'health: the same wording, -f named by its long name' jj health -f
exactly 2 'error: --file needs a value (FILE); see `jaxjob health --help`' \
	'health: --file= (empty) the same' jj health --file=

# --- `--`: the end of the options, for every command ----------------------------------
expect 'launch: the words after -- are the command, options or not' \
	'jj launch --dry-run --name x --image i:1 -- --workers 3 >"$T/job" &&
	 grep -A2 -- "- command:" "$T/job" | tr -d " " | tr "\n" " " | grep -qx -- "-command: ---workers -\"3\" "'
exactly 2 'error: nothing after --; write -- followed by the command, e.g. -- python train.py' \
	'launch: -- with nothing after it' jj launch --dry-run --name x --image i:1 --
exactly 2 'error: unexpected argument --params; render takes only options; see `jaxjob render --help`' \
	'render: a word after -- is an argument, not an option' jj render -- --params
exactly 2 'error: unexpected argument --file; give the file with -f FILE; see `jaxjob health --help`' \
	'health: a word after -- is an argument, not an option' jj health -f x.yaml -- --file
expect_exit 0 'health: -- with nothing after it ends the options, and is nothing more' \
	jj health -f "$H/succeeded.yaml" --

# --- required options --------------------------------------------------------------
exactly 2 'error: --name is required (or --name-prefix with --run-id, which derive one per run); see `jaxjob launch --help`' \
	'launch without --name says so, not which placeholder' jj launch --dry-run --image i:1 -- python train.py
exactly 2 'error: --image is required; see `jaxjob launch --help`' \
	'a JAXJob needs --image' jj launch --dry-run --name mnist
exactly 2 'error: --name is required (or --name-prefix with --run-id, which derive one per run); see `jaxjob launch --help`' \
	'a TrainJob needs --name too (and no image: the runtime has one)' jj launch --dry-run --api trainjob
expect '--help marks --name required and --image required for a JAXJob' \
	'jj launch --help >"$T/help" &&
	 grep -A3 -- "^  --name NAME" "$T/help" | grep -q "(required)" &&
	 grep -A2 -- "^  --image IMAGE" "$T/help" | tr -s " \n" " " | grep -q "(required for a JAXJob)" &&
	 [ "$(grep -c "(required" "$T/help")" -eq 2 ]'

# --- health -ojson as launch -ojson ------------------------------------------------
expect 'health -ojson is -o json' \
	'jj health -ojson -f "$H/succeeded.yaml" >"$T/a" && jj health -o json -f "$H/succeeded.yaml" >"$T/b" &&
	 cmp "$T/a" "$T/b" && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/a"'
expect 'health -f FILE glued (-fFILE) as getopt allows' \
	'jj health "-f$H/succeeded.yaml" >"$T/a" && grep -q ": Healthy" "$T/a"'
