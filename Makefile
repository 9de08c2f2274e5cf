# jaxjob - one binary (build/jaxjob), three roles, one core (lib/).
#
#   make            release build: build/jaxjob (says what to run when the
#                   build packages are missing: `make deps`)
#   make deps       install the missing Debian packages (scripts/install-deps.sh)
#   make check      install missing packages, build with ASan+UBSan under
#                   build/asan/, run every suite in parallel; last line
#                   "N passed, N failed, N skipped"
#   make check-quick  the same build, only the unit and CLI suites (< 60 s)
#   make check-long   make check plus the long suites (fuzzing, 1,000 workers,
#                   the 200-run stall harness)
#   make check-stress the timing-sensitive suites RUNS times beside LOAD busy
#                   loops, one report line per run (tests/stress.sh)
#   make demo       run the main job against the local test API server
#   make fresh-check  `make demo` and `make check-quick` in a clean clone
#                   inside a minimal Debian chroot (scripts/fresh-check.sh)
#   make CC=clang   any C11 compiler; warnings are errors (make check builds
#                   with clang too: tests/suites/13-clang-build.sh)
#
# Sources are found by folder, so a new module is a new file, not a Makefile
# edit: lib/*.c and lib/*/*.c are the core (build/libjaxjob.a, nothing else in it, so the
# linker refuses a lib file that calls into a front-end), component/
# argocd-plugin/ health-checks/ are the front-ends (linked into the binary
# only), tests/unit/test_*.c are cmocka suites linked with the core alone; a
# suite that tests front-end code names those objects in UNIT_APP_<suite>.
# tests/suites/*.sh are the suites `make check` runs.

CC      ?= cc
PKGS    := libcurl yaml-0.1 libcjson libgit2 openssl
ifeq ($(SLIM_DIR),)
# pkg-config is asked on first use, not when the Makefile is read: `make demo`
# and `make check` install the packages first (deps), then build in a
# recursive make, so a fresh machine builds on the first run.
PKG_CFLAGS = $(eval PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null))$(PKG_CFLAGS)
PKG_LIBS   = $(eval PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null))$(PKG_LIBS)

# Goals that build C need the packages; the others install them first or
# need none. A plain `make` on a machine without them says what to run
# instead of failing on a missing header.
NO_PKG_GOALS := deps test-deps check check-quick check-long check-stress demo fresh-check clean deploy \
	deploy-check health-snippet image image-docker rootfs sbom set-image
ifneq ($(filter-out $(NO_PKG_GOALS),$(or $(MAKECMDGOALS),all)),)
ifneq ($(shell pkg-config --exists $(PKGS) 2>/dev/null && command -v $(firstword $(CC)) >/dev/null 2>&1 && echo ok),ok)
$(error missing build packages (compiler, pkg-config, -dev packages); run `make deps` (as root or with sudo) first, or `make demo` / `make check`, which install them)
endif
endif
else
# The image's binary (make rootfs): libcurl and libgit2 from
# scripts/build-slim-deps.sh linked in statically, with Debian's static
# OpenSSL, libyaml, http-parser, nghttp2 and zlib (static: no symbol binding
# at start, fewer mappings); libcjson stays shared (Debian ships no .a), and
# libm (glibc's libm.a needs a static libc for its ifuncs). See the rootfs
# target below.
PKG_CFLAGS := -I$(SLIM_DIR)/include $(shell pkg-config --cflags libcjson 2>/dev/null)
PKG_LIBS   := $(SLIM_DIR)/lib/libcurl.a $(SLIM_DIR)/lib/libgit2.a -l:libyaml.a \
	-l:libhttp_parser.a -l:libnghttp2.a -l:libssl.a -l:libcrypto.a -lcjson -l:libz.a \
	-lpthread -ldl -lrt
endif

SAN     ?=
ifeq ($(SAN),1)
BUILD   ?= build/asan
OPT     ?= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDSAN   := -fsanitize=address,undefined
else
BUILD   ?= build
OPT     ?= -O2 -g
LDSAN   :=
endif

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2 -Wvla
CFLAGS  ?=
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) -I. -Ilib $(PKG_CFLAGS) -MMD -MP
# No path of this checkout in any binary (debug info, __FILE__, and so the
# build id): two checkouts of one commit build the same image (make image,
# with or without the slim libraries). Debuggers find the sources from the top.
CFLAGS  += -ffile-prefix-map=$(CURDIR)=.
LDFLAGS ?=
ifneq ($(SLIM_DIR),)
# The image's binary is one large PIE (static OpenSSL's method tables are
# pointers): its 20,000 relative relocations took 490 kB as RELA entries,
# read by the loader at every start and resident the whole run. Packed as
# RELR (glibc 2.36, binutils 2.38) they take a few kB.
LDFLAGS += -Wl,-z,pack-relative-relocs
endif
LDLIBS   = $(PKG_LIBS) -lm

# lib/ is read by folder too (lib/kube/, lib/job/, ...: docs/architecture.md):
# its own files are the ground, each folder a family above them.
LIB_SRC  := $(sort $(wildcard lib/*.c lib/*/*.c))
# The launch is read by folder (component/launch/{run,hub,spokes,context,cli,
# outputs,decide}: docs/architecture.md). Only the launch's root is on its
# include path: a header of another folder is named with its folder
# ("cli/launch_opts.h", as curl's "vtls/vtls.h"), so a crossing shows in the
# include line, and one of the same folder by its name alone.
LAUNCH_SRC := $(sort $(wildcard component/launch/*/*.c))
LAUNCH_INC := -Icomponent/launch
APP_SRC  := $(sort $(wildcard component/*.c argocd-plugin/*.c health-checks/*.c)) $(LAUNCH_SRC)
MAIN_SRC := jaxjob.c
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))

OBJ_OF   = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
CORE_OBJ := $(call OBJ_OF,$(LIB_SRC))
APP_OBJ  := $(call OBJ_OF,$(APP_SRC))
MAIN_OBJ := $(call OBJ_OF,$(MAIN_SRC))
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: all unit clean check check-quick demo deps fresh-check release-check fuzz bench
all: $(BUILD)/jaxjob $(BUILD)/layers-ok $(BUILD)/include-cycles-ok $(BUILD)/module-graph-ok
ifneq ($(SLIM_DIR),)
# The static archives the image's binary links, one path a line, read from
# the link line itself: the SBOM's components (scripts/sbom.py, make sbom).
all: $(BUILD)/static-libs
$(BUILD)/static-libs: FORCE
	@mkdir -p $(BUILD)
	@for a in $(filter-out -l:%,$(filter %.a,$(PKG_LIBS))) $(patsubst -l:%,%,$(filter -l:%,$(PKG_LIBS))); do \
		case $$a in /*) readlink -f "$$a" ;; *) readlink -f "$$($(CC) -print-file-name="$$a")" ;; esac; \
	done >$@.tmp && mv $@.tmp $@
endif

# The layers, enforced rather than asserted: every object of the core linked
# into a program with no front-end object (--whole-archive pulls each one in),
# so a lib file that calls into component/, argocd-plugin/ or health-checks/
# fails the build here with an undefined reference. (The binary itself links
# the front-ends first, so such a call would link there.)
$(BUILD)/layers-ok: $(BUILD)/libjaxjob.a
	@printf 'int main(void) { return 0; }\n' >$(BUILD)/layers-main.c
	$(CC) $(LDSAN) $(LDFLAGS) -o $(BUILD)/layers-check $(BUILD)/layers-main.c \
		-Wl,--whole-archive $(BUILD)/libjaxjob.a -Wl,--no-whole-archive $(LDLIBS)
	@touch $@

# No include circle between modules (foo.c and foo.h are one module): the
# #include "..." lines of lib/ and the front-ends read as a graph, a circle
# fails the build with the line that names it; the few accepted for now are
# listed, with the reason, in the script (scripts/module-graph.sh).
CYCLE_SRC := $(sort $(wildcard lib/*.[ch] lib/*/*.[ch] component/*.[ch] component/launch/*/*.[ch] argocd-plugin/*.[ch] health-checks/*.[ch]))
$(BUILD)/include-cycles-ok: scripts/module-graph.sh $(CYCLE_SRC)
	@mkdir -p $(BUILD)
	@scripts/module-graph.sh
	@touch $@

# No circle of calls or includes between modules (a .c with the header of its
# name), read from the objects (nm: who uses a name that only another
# defines) and the #include lines, and no arrow running back up between
# the launch's folders (run > hub > spokes > context > cli > outputs >
# decide): the
# definitions are in scripts/module-graph.sh and docs/architecture.md. It
# prints one line of figures per part (modules, floors, arrows).
$(BUILD)/module-graph-ok: scripts/module-graph.sh $(CYCLE_SRC) $(MAIN_OBJ) $(APP_OBJ) $(CORE_OBJ)
	@scripts/module-graph.sh --objects $(BUILD)/obj
	@touch $@

$(BUILD)/jaxjob: $(MAIN_OBJ) $(APP_OBJ) $(BUILD)/libjaxjob.a
	$(CC) $(LDSAN) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The commit in `jaxjob --version`: HEAD (-dirty with uncommitted changes), or
# JAXJOB_COMMIT=... where there is no .git (the image build passes REVISION).
# The header is rewritten only when the commit changes, so a rebuild at the
# same commit recompiles nothing.
JAXJOB_COMMIT ?=
COMMIT_H := $(BUILD)/gen/commit.h
.PHONY: FORCE
$(COMMIT_H): FORCE
	@mkdir -p $(dir $@)
	@scripts/commit-h.sh '$(JAXJOB_COMMIT)' >$@.tmp && { cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@; }
$(BUILD)/obj/jaxjob.o: $(COMMIT_H)
$(BUILD)/obj/jaxjob.o: CFLAGS += -I$(BUILD)/gen

# Rebuilt when the Makefile or the list of lib sources changes too, so no
# member outlives its source (a deleted lib/x.c would stay in the archive).
$(BUILD)/libjaxjob.members: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CORE_OBJ)' | cmp -s - $@ || echo '$(CORE_OBJ)' >$@
$(BUILD)/libjaxjob.a: $(CORE_OBJ) Makefile $(BUILD)/libjaxjob.members
	@rm -f $@
	ar rcs $@ $(filter %.o,$^)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<
$(BUILD)/obj/component/%.o: CFLAGS += $(LAUNCH_INC)

# The front-end objects a unit suite tests (each suite of lib/ links lib alone);
# a launch file is named by its module, wherever its folder is.
UNIT_APP_test_health        := health-checks/health_cmd
UNIT_APP_test_launch_opts   = launch_opts launch_flags launch_values \
			      launch_metrics_flags launch_help $(UNIT_APP_test_launch_parts)
UNIT_APP_test_launch_parts  := launch_identity launch_logs launch_stdout launch_loop \
			       launch_outputs launch_progress launch_metrics \
			       launch_result launch_file launch_summary \
			       launch_kfp launch_metrics_chart \
			       launch_failure launch_verdict launch_outcome
UNIT_APP_test_launch_hub    := launch_hub launch_hub_clock launch_hub_end launch_loop \
			       launch_verdict \
			       launch_progress launch_result launch_outcome
UNIT_APP_test_launch_kueue_reasons := launch_kueue_reasons
UNIT_APP_test_render_params := argocd-plugin/render_params argocd-plugin/render_repo argocd-plugin/render_set
UNIT_APP_test_render_repo   := argocd-plugin/render_repo argocd-plugin/render_set
comma := ,
APP_PATH = $(or $(basename $(filter %/$(1).c,$(LAUNCH_SRC))),$(1))
UNIT_APP_OBJ = $(foreach m,$(UNIT_APP_$(1)),$(BUILD)/obj/$(call APP_PATH,$(m)).o)
# The hub's test runs the hub on a scripted loop of its own: the client's
# loop functions (and the judge, to count it) are wrapped at link time.
UNIT_LD_test_launch_hub := $(patsubst %,-Wl$(comma)--wrap=%,kube_now kube_timer_add \
			   kube_timer_cancel kube_loop_run kube_loop_stop kube_loop_cancel_call \
			   kube_loop_catch_signals health_judge)

.SECONDEXPANSION:
$(BUILD)/tests/%: tests/unit/%.c $$(call UNIT_APP_OBJ,$$*) $(BUILD)/libjaxjob.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LAUNCH_INC) $(LDSAN) $(LDFLAGS) $(UNIT_LD_$*) -o $@ $< $(call UNIT_APP_OBJ,$*) $(BUILD)/libjaxjob.a $(LDLIBS) -lcmocka

unit: $(UNIT_BIN)

deps:
	@scripts/install-deps.sh

# The test run: sanitizer build of the binary and the unit tests, then every
# suite under tests/suites/, run in parallel (JOBS, default nproc+1) and
# counted together by tests/run-all.sh. The build is a recursive make so that
# pkg-config is asked after deps has installed it.
# The release build is made too: suites that build the image filesystem or
# run the demo (80-rootfs, 85-readme-examples) then find it up to date
# instead of compiling it twice at once.
JOBS ?=
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
RUN_ALL = JAXJOB=$(CURDIR)/build/asan/jaxjob JAXJOB_BUILD=$(CURDIR)/build/asan \
	$(if $(JOBS),JOBS=$(JOBS)) tests/run-all.sh
# (The suites' line must not contain $(MAKE): `make -n check`, which
# 85-readme-examples runs, executes such lines.)
check: deps
	@mkdir -p build && date +%s.%N >build/.check-start
	-@stack/test-deps.sh || echo "make check: test-deps incomplete (above); the suites that need them say so" >&2
	$(MAKE) -j$(BUILD_JOBS) SAN=1 all unit
	$(MAKE) -j$(BUILD_JOBS) all
	JAXJOB_RUN_START=$$(cat build/.check-start) $(RUN_ALL)

# Everything, including the suites marked long (the libFuzzer run of every
# target, the 1,000-worker fault cells): beyond the 4 minutes of make check.
.PHONY: check-long
check-long:
	JAXJOB_LONG=1 $(MAKE) check

# What the suites need from the registries (stack/test-deps.sh; no Go build): the
# upstream CRDs, examples and Argo's schema from the Go modules that ship them, the KFP
# SDK venvs from PyPI, all into $JAXJOB_CACHE keyed by the pins of stack/versions.env.
# make check and check-quick make them first (a registry that does not answer is a
# warning there: the suites that need them then skip, naming this target).
.PHONY: test-deps
test-deps: deps
	stack/test-deps.sh

# The real stack of issue 38 (stack/README.md): build what is missing of it into
# $JAXJOB_CACHE from the Go module proxy (etcd, Kubernetes, training operator, Kueue,
# Trainer v2, JobSet, their CRDs). Cold on 2 cores: see stack/README.md; cached: seconds.
.PHONY: stack
stack:
	stack/build.sh

# The suites that need a real control plane (tests/realserver/kcp.sh), on the real stack:
# built or reused from the cache (make stack), brought up per suite, brought down after.
# `make check` runs them on ../shared's 1.24 plane where it is, else says to run this.
REAL_SUITES := 56-kube-http2-real 65-real 66-real 67-real 68-real 73-crd-corpus 94-stall.sh
.PHONY: check-real
check-real: deps
	@mkdir -p build && date +%s.%N >build/.check-start
	stack/build.sh
	stack/venv.sh jax >/dev/null
	$(MAKE) -j$(BUILD_JOBS) SAN=1 all unit
	JAXJOB_REAL=1 JAXJOB_RUN_START=$$(cat build/.check-start) $(RUN_ALL) $(REAL_SUITES)

# The timing-sensitive suites RUNS times (default 3) beside LOAD busy loops
# (default 2), one report line per run (tests/stress.sh): finds the next
# flaky test before CI does. STRESS=PATTERNS picks other suites.
.PHONY: check-stress
RUNS ?=
LOAD ?=
STRESS ?=
check-stress: deps
	$(MAKE) -j$(BUILD_JOBS) SAN=1 all unit
	JAXJOB=$(CURDIR)/build/asan/jaxjob JAXJOB_BUILD=$(CURDIR)/build/asan $(if $(JOBS),JOBS=$(JOBS)) \
		$(if $(RUNS),RUNS=$(RUNS)) $(if $(LOAD),LOAD=$(LOAD)) tests/stress.sh $(STRESS)

# The edit-compile loop: unit tests and the CLI suites that need no server.
QUICK_SUITES := 10-unit 11-fixed-sleeps 20-launch-dry-run 21-trainjob-dry-run 40-health-cli 40-health-vectors \
	70-render-errors 70-render.sh 71-render-trainjob 86-errors
check-quick: deps
	-@stack/test-deps.sh testdata || echo "make check-quick: test data not fetched (above); the suites that need it say so" >&2
	$(MAKE) -j$(BUILD_JOBS) SAN=1 all unit
	$(RUN_ALL) $(QUICK_SUITES)

demo: deps
	$(MAKE) -j$(BUILD_JOBS) all
	scripts/demo.sh

# The demo on the real stack with real JAX (scripts/demo-real.sh): builds or reuses the
# stack's cache (make stack) and the JAX venv, then a 4-worker jax.distributed JAXJob.
.PHONY: demo-real
demo-real: deps
	$(MAKE) -j$(BUILD_JOBS) all
	scripts/demo-real.sh

# A clean clone of HEAD (plus uncommitted changes) inside a minimal Debian
# bookworm chroot: `make demo` then `make check-quick`, each on first run.
# Red when an install step is missing. Needs root and Debian's mirror; the
# chroot base and the .deb files are cached under FRESH_CACHE.
fresh-check:
	scripts/fresh-check.sh

clean:
	rm -rf build

# (build/npm*: validators from npm, whose packages hold directories named *.d)
-include $(shell find build -path 'build/npm*' -prune -o -name '*.d' -type f -print 2>/dev/null)

# ---------------------------------------------------------------------------
# Shipping (issue #7, #34): the image's filesystem, the image, its SBOM, the
# install manifests. Owned by scripts/mkrootfs.sh, scripts/sbom.py,
# scripts/mkimage.sh, Dockerfile, deploy/.
#
#   make rootfs   build/rootfs from the RELEASE build (build/jaxjob, even when
#                 called with SAN=1); prints a size breakdown and the total
#   make sbom     build/rootfs, then its CycloneDX 1.5 SBOM from the build
#                 inputs: build/jaxjob-sbom.cdx.json (scripts/sbom.py)
#   make image    the OCI image without a container daemon (umoci, skopeo):
#                 build/image/ (OCI layout) and build/jaxjob-image.tar
#                 (docker-archive) from build/rootfs and the SBOM, every time
#                 in it SOURCE_DATE_EPOCH (default: the commit's time), so one
#                 commit gives one manifest digest (scripts/mkimage.sh). The
#                 slim libcurl/libgit2 are built first when not cached, as the
#                 Dockerfile does (IMAGE_SLIM=if-cached: never build them).
#                 IMAGE=registry.example.com/ml/jaxjob:1.2.3 names the image
#                 (default jaxjob:<lib/version.h>) and, given on the command
#                 line, first runs set-image; without it no tracked file changes
#   make image-docker  docker/podman build of Dockerfile where an engine works
#                 (IMAGE_REQUIRED=1: exit 1 where none does); compare the two
#                 with scripts/image-diff.sh (README, Install)
#   make set-image  write IMAGE into every file that runs the image: the KFP
#                 component, the Argo WorkflowTemplate, the KFP examples, the
#                 Argo CD sidecar (and deploy/) (scripts/set-image.py)
#   make deploy   regenerate deploy/ from argocd-plugin/, health-checks/,
#                 component/ sources; the generated files are committed and
#                 `make deploy-check` (run by tests/suites/80-deploy.sh) fails
#                 when they are stale. Layout: deploy/README.md
JAXJOB_VERSION := $(shell sed -n 's/^\#define JAXJOB_VERSION "\(.*\)"/\1/p' lib/version.h)
ROOTFS  ?= build/rootfs
IMAGE   ?= jaxjob:$(JAXJOB_VERSION)
IMAGE_DIR ?= build/image
IMAGE_TAR ?= build/jaxjob-image.tar
SBOM    ?= build/jaxjob-sbom.cdx.json
IMAGE_SLIM ?= build
IMAGE_REQUIRED ?=
.PHONY: rootfs sbom image image-docker deploy deploy-check set-image

# What the image is stamped with, all from the checkout (evaluated only when
# used): the commit (-dirty when tracked files differ), the remote as a URL
# (never a local path; any user:password@ part removed), the commit's time.
IMAGE_REVISION = $(shell c=$$(git rev-parse HEAD 2>/dev/null) || c=unknown; \
	[ $$c = unknown ] || git diff --quiet HEAD -- 2>/dev/null || c=$$c-dirty; echo $$c)
IMAGE_SOURCE = $(shell git remote get-url origin 2>/dev/null | sed -n 's|://[^/@]*@|://|; /^\(https\?\|ssh\):\/\/\|^git@/p')
IMAGE_EPOCH = $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null),0)

# IMAGE given on the command line (or in the environment) is checked when the
# Makefile is read, so a bad one is one line and nothing is written.
shq = '$(subst ','\'',$(1))'
ifneq ($(filter image image-docker set-image,$(MAKECMDGOALS)),)
ifneq ($(filter command line environment,$(origin IMAGE)),)
IMAGE_SET := 1
IMAGE_BAD := $(shell python3 scripts/set-image.py $(if $(filter image image-docker,$(MAKECMDGOALS)),--validate-build,--validate) \
	$(call shq,$(IMAGE)) 2>&1)
$(if $(IMAGE_BAD),$(error $(IMAGE_BAD)))
endif
endif

# The image's binary is linked against libcurl and libgit2 built from Debian's
# source for what jaxjob uses (scripts/build-slim-deps.sh, once, cached in
# SLIM_DIR): 3 ms faster to start and half the rootfs. Without that cache the
# system's libraries are used, and it says so.
SLIM_DIR_DEFAULT ?= $(or $(JAXJOB_SLIM_DIR),/var/cache/jaxjob-slim)
rootfs:
	@if [ -f "$(SLIM_DIR_DEFAULT)/VERSIONS" ]; then \
		echo "rootfs: linking against the slim libcurl/libgit2 in $(SLIM_DIR_DEFAULT) ($$(cat "$(SLIM_DIR_DEFAULT)/VERSIONS"))"; \
		$(MAKE) SAN= BUILD=build/slim SLIM_DIR=$(SLIM_DIR_DEFAULT) all && \
		scripts/mkrootfs.sh build/slim/jaxjob $(ROOTFS); \
	else \
		echo "rootfs: no slim libcurl/libgit2 in $(SLIM_DIR_DEFAULT): linking against the system's (a larger rootfs, a slower start);"; \
		echo "rootfs: run scripts/build-slim-deps.sh once (a few minutes of CPU) to build them"; \
		$(MAKE) SAN= BUILD=build all && scripts/mkrootfs.sh build/jaxjob $(ROOTFS); \
	fi

# The SBOM of what `make rootfs` just packed: the static archives come from
# the slim build's link line (build/slim/static-libs) when the rootfs holds
# that binary.
sbom: rootfs
	@bin=$$(cat $(ROOTFS).binary); libs=$$(dirname "$$bin")/static-libs; \
	case "$$bin" in */build/slim/jaxjob) ;; *) libs= ;; esac; \
	python3 scripts/sbom.py --rootfs $(ROOTFS) --out $(SBOM) $${libs:+--static-libs "$$libs"} \
		--slim-dir $(SLIM_DIR_DEFAULT) --version $(JAXJOB_VERSION) --commit $(IMAGE_REVISION) \
		--source '$(IMAGE_SOURCE)' --epoch $(IMAGE_EPOCH)

set-image:
	python3 scripts/set-image.py $(call shq,$(IMAGE))

# One recursive make for rootfs and sbom, so that they run after the slim
# cache exists and see the pinned SOURCE_DATE_EPOCH (the rootfs mtimes).
image: $(if $(IMAGE_SET),set-image)
	@if [ "$(IMAGE_SLIM)" = build ]; then JAXJOB_SLIM_DIR=$(SLIM_DIR_DEFAULT) scripts/build-slim-deps.sh; fi
	@SOURCE_DATE_EPOCH=$(IMAGE_EPOCH) $(MAKE) --no-print-directory sbom
	@SOURCE_DATE_EPOCH=$(IMAGE_EPOCH) VERSION=$(JAXJOB_VERSION) REVISION=$(IMAGE_REVISION) \
		SOURCE='$(IMAGE_SOURCE)' scripts/mkimage.sh $(ROOTFS) $(SBOM) $(IMAGE_DIR) $(IMAGE_TAR) $(call shq,$(IMAGE))

image-docker: $(if $(IMAGE_SET),set-image)
	@engine=; for e in docker podman; do \
		if command -v $$e >/dev/null 2>&1 && $$e info >/dev/null 2>&1; then engine=$$e; break; fi; \
	done; \
	if [ -z "$$engine" ]; then \
		echo "make image-docker: no working container engine here (docker/podman missing, or 'docker info' cannot reach a daemon);"; \
		echo "make image-docker: not built. 'make image' builds the same image without one (umoci)."; \
		[ -z "$(IMAGE_REQUIRED)" ] || exit 1; exit 0; \
	fi; \
	echo "$$engine build -t $(IMAGE)"; \
	$$engine build --build-arg VERSION=$(JAXJOB_VERSION) --build-arg REVISION=$(IMAGE_REVISION) \
		--build-arg SOURCE=$(or $(IMAGE_SOURCE),unknown) --build-arg SOURCE_DATE_EPOCH=$(IMAGE_EPOCH) \
		-t $(call shq,$(IMAGE)) .

# The pipeline component against the flag table (scripts/component-flags.py):
# `make component` regenerates component/component.yaml's inputs and their
# arguments from `jaxjob launch --help=json` (a new flag becomes an input),
# `make component-check` (run by tests/suites/60-launch-component.sh) fails
# when a flag is neither an input, an output, nor in component/absent-flags.yaml.
.PHONY: component component-check
component: $(BUILD)/jaxjob
	python3 scripts/component-flags.py --jaxjob $(BUILD)/jaxjob

component-check: $(BUILD)/jaxjob
	python3 scripts/component-flags.py --check --jaxjob $(BUILD)/jaxjob

deploy:
	python3 deploy/generate.py

deploy-check:
	python3 deploy/generate.py --check

# --- built-in templates ------------------------------------------------------
# templates/*.yaml are compiled into the binary (lib/job/tmpl.h tmpl_builtin()),
# so the default template travels with build/jaxjob. The generated C file
# lives in the build tree and joins libjaxjob.a.
TMPL_YAML := $(sort $(wildcard templates/*.yaml))
TMPL_GEN  := $(BUILD)/gen/templates_builtin.c
TMPL_OBJ  := $(BUILD)/obj/gen/templates_builtin.o

$(TMPL_GEN): $(TMPL_YAML) scripts/embed-templates.sh
	@mkdir -p $(dir $@)
	scripts/embed-templates.sh $(TMPL_YAML) >$@.tmp && mv $@.tmp $@

$(TMPL_OBJ): $(TMPL_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/libjaxjob.a: $(TMPL_OBJ)

# --- health checks (health-checks/README.md) ---------------------------------
# The argocd-cm snippets are generated from the Lua checks, never edited by
# hand; tests/suites/40-health-snippet.sh fails when they are stale.
.PHONY: health-snippet
health-snippet:
	python3 health-checks/gen-argocd-cm.py

# --- kube client integration driver (tests/suites/50-kube-client.sh) --------
# Scripted client scenarios against tests/kube-apiserver; built with the unit
# tests (same flags, same library), run by the suite, not a unit test itself.
KUBE_DRIVER := $(BUILD)/tests/kube-client-driver
$(KUBE_DRIVER): tests/kube-client-driver/driver.c $(BUILD)/libjaxjob.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDSAN) $(LDFLAGS) -o $@ $< $(BUILD)/libjaxjob.a $(LDLIBS)
unit: $(KUBE_DRIVER)

# --- bench driver (bench/metrics_driver.c) ----------------------------------
# metrics_line() alone over a log file, for callgrind (SCAN_ONLY=1
# bench/metrics.sh); a release build like the rest of bench/.
.PHONY: bench-driver
bench-driver: $(BUILD)/bench/metrics-driver $(BUILD)/bench/diagnose-driver
$(BUILD)/bench/metrics-driver: bench/metrics_driver.c $(BUILD)/libjaxjob.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDSAN) $(LDFLAGS) -o $@ $< $(BUILD)/libjaxjob.a $(LDLIBS)
# diag_line() over generated lines, with and without a diagnosis (bench/diagnose.sh)
$(BUILD)/bench/diagnose-driver: bench/diagnose_driver.c $(BUILD)/libjaxjob.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDSAN) $(LDFLAGS) -o $@ $< $(BUILD)/libjaxjob.a $(LDLIBS)

# --- fuzzing (issue #8; owned by fuzz/) -------------------------------------
# clang libFuzzer targets fuzz/fuzz_*.c, each linked with the whole core built
# with -fsanitize=fuzzer-no-link,address,undefined under build/fuzz/ (its own
# objects, so the ASan/release builds are untouched). fuzz_watch_decoder links
# only the watch, line and status code (and jtree, digest: the metadata
# lookups) plus its fake transport (see its
# header comment). Seeds: fuzz/corpus/<target>/ (read-only; new inputs go to
# build/fuzz/corpus/<target>/); crash regressions: fuzz/regress/<target>/.
#
#   make fuzz               build, then run every target FUZZ_SECONDS (60) each
#   make fuzz-build         build only (tests/suites/90-fuzz-short.sh uses it)
#   make fuzz FUZZ_TARGETS='yj tmpl' FUZZ_SECONDS=600
FUZZ_CC      ?= clang
FUZZ_BUILD   := build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   = -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
	-Wall -Wextra -Werror -Wshadow -Wvla -I. -Ilib -Iargocd-plugin -Ihealth-checks $(PKG_CFLAGS)
FUZZ_SRC     := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_ALL     := $(patsubst fuzz/fuzz_%.c,%,$(FUZZ_SRC))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_BIN     := $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_ALL))
FUZZ_OBJ     := $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(LIB_SRC) $(APP_SRC)) \
	$(FUZZ_BUILD)/obj/gen/templates_builtin.o
FUZZ_WATCH_SRC := $(addprefix lib/,buf.c digest.c err.c yj/jtree.c kube/kube_lines.c kube/kube_status.c \
	kube/kube_watch.c yj/yj_scalar.c)
FUZZ_WATCH_OBJ := $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(FUZZ_WATCH_SRC))
.PHONY: fuzz-build

fuzz-build: $(FUZZ_BIN)

fuzz: fuzz-build
	fuzz/run.sh -t $(FUZZ_SECONDS) $(FUZZ_TARGETS)

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -MMD -MP -c -o $@ $<
# the launch's parts include each other's headers across their folders, as in the build above
$(FUZZ_BUILD)/obj/component/%.o: FUZZ_FLAGS += $(LAUNCH_INC)

$(FUZZ_BUILD)/gen/templates_builtin.c: $(TMPL_YAML) scripts/embed-templates.sh
	@mkdir -p $(dir $@)
	scripts/embed-templates.sh $(TMPL_YAML) >$@.tmp && mv $@.tmp $@

$(FUZZ_BUILD)/obj/gen/templates_builtin.o: $(FUZZ_BUILD)/gen/templates_builtin.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -c -o $@ $<

$(FUZZ_BUILD)/libjaxjob-fuzz.a: $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_watch_decoder: fuzz/fuzz_watch_decoder.c $(FUZZ_WATCH_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_BUILD)/libjaxjob-fuzz.a
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# --- fuzz replay in the sanitizer build (make check) -------------------------
# The same targets linked with fuzz/replay_main.c instead of libFuzzer, against
# this build's objects: `make check` replays the committed seeds and the
# regression inputs without a clang tree (tests/suites/90-fuzz-short.sh);
# `make check-long` and `make fuzz` still fuzz with libFuzzer.
REPLAY_DIR := $(BUILD)/fuzz-replay
REPLAY_BIN := $(patsubst %,$(REPLAY_DIR)/fuzz_%,$(FUZZ_ALL))
REPLAY_APP := $(call OBJ_OF,$(APP_SRC))
REPLAY_WATCH_OBJ := $(call OBJ_OF,$(FUZZ_WATCH_SRC))
# the targets are written for FUZZ_FLAGS (fewer warnings than WARN)
REPLAY_CFLAGS = $(CFLAGS) -Iargocd-plugin -Ihealth-checks -Wno-strict-prototypes -Wno-format-nonliteral
.PHONY: fuzz-replay
fuzz-replay: $(REPLAY_BIN)
unit: $(REPLAY_BIN)

$(REPLAY_DIR)/fuzz_watch_decoder: fuzz/fuzz_watch_decoder.c fuzz/replay_main.c $(REPLAY_WATCH_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(REPLAY_CFLAGS) $(LDSAN) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(REPLAY_DIR)/fuzz_%: fuzz/fuzz_%.c fuzz/replay_main.c $(REPLAY_APP) $(BUILD)/libjaxjob.a
	@mkdir -p $(dir $@)
	$(CC) $(REPLAY_CFLAGS) $(LDSAN) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# --- valgrind (issue #8; owned by tests/valgrind/) ---------------------------
# The unit tests and the CLI suites under valgrind memcheck, against a
# non-sanitizer -O0 build in build/vg/ (ASan and valgrind do not mix).
# Memory errors and definite/indirect leaks fail the run (exit status 99 of
# the program, plus one failure per process with a report); see
# tests/valgrind/run.sh. Slow (valgrind costs 20-50x): not part of `make check`.
.PHONY: check-valgrind
check-valgrind:
	$(MAKE) BUILD=build/vg OPT='-O0 -g' all unit
	tests/valgrind/run.sh build/vg $(VG_SUITES)
